//! Extension messages from an origin that may see no tool (`WEBMCP_CANCEL_TOOL`, `WEBMCP_CALL_ACK`,
//! `WEBMCP_CALL_STATUS_REQUEST` with ids it made up) must leave no trace in the shop: they are refused like a call
//! of an invisible tool. A trace would be worse than noise: the provider journal keeps a bounded number of records
//! (2,000) for every origin together, so a stranger that can add records can push out the records of the widget's
//! calls, and with them what the shop knows about those calls.

use interpane_demo_sites::Site;
use interpane_e2e::{Ctx, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::arena::{Frame, check_arena_clean, check_nothing_else_ran, enter, open_arena, run_in, widget_command};

/// Messages of each kind the stranger sends, each with an id of its own.
const PER_KIND: usize = 2500;

/// How much the shop's sessionStorage may grow while the stranger sends them, in characters (the journals' own
/// bookkeeping; a record per message would be hundreds of thousands).
const MAX_STORAGE_GROWTH: i64 = 2_000;

/// In the widget, as its bridge does after a reload: asks the shop about call `args[0]` and resolves with the
/// answer (the widget's bridge sees that answer too, and drops it: it asked nothing).
const STATUS_FROM_THE_WIDGET: &str = "const id = args[0]; const answer = new Promise((resolve, reject) => { \
      const timer = setTimeout(() => reject(new Error('the shop did not answer the status request')), 10000); \
      addEventListener('message', function listener(event) { \
        if (event.source !== parent || event.data?.requestId !== id || event.data?.type === 'WEBMCP_CALL_STATUS_REQUEST') return; \
        clearTimeout(timer); removeEventListener('message', listener); resolve(event.data); }); }); \
    parent.postMessage({ type: 'WEBMCP_CALL_STATUS_REQUEST', requestId: id }, args[1]); \
    const data = await answer; return { ...data, requestId: data.requestId === id ? '<the call>' : data.requestId };";

const STRANGER: &str = "const a = window.__attack; const h = a.helpers; const n = args[0]; \
    const messages = []; for (let i = 0; i < n; i += 1) { \
      messages.push({ type: 'WEBMCP_CANCEL_TOOL', requestId: h.freshId() }, \
        { type: 'WEBMCP_CALL_ACK', requestIds: [h.freshId(), h.freshId()] }, { type: 'WEBMCP_CALL_STATUS_REQUEST', requestId: h.freshId() }); } \
    const replies = await a.send('shop', messages); return replies.length;";

async fn status_of(t: &Ctx, id: &Value) -> E2eResult<Value> {
    run_in(&t.session, Frame::Widget, STATUS_FROM_THE_WIDGET, vec![id.clone(), json!(t.origin(Site::Shop))]).await
}

async fn storage_chars(t: &Ctx) -> E2eResult<i64> {
    let memory = run_in(&t.session, Frame::Shop, "return await window.__victim.memory();", vec![]).await?;
    Ok(memory["storageChars"].as_i64().unwrap_or_default())
}

/// The shop knows the same about the widget's finished call before and after a stranger sent 2,500 cancels,
/// 2,500 acknowledgements and 2,500 status requests for ids of its own; its journal did not grow with them.
pub async fn a_strangers_extension_messages_leave_no_trace(t: Ctx) -> E2eResult<()> {
    open_arena(&t, 100).await?;
    check_eq(widget_command(&t.session, "add 1 margherita").await?, "completed".to_owned(), "the widget's call")?;
    enter(&t.session, Frame::Shop).await?;
    let id = t
        .session
        .execute(
            "return window.__victim.seen.find((e) => e.dir === 'in' && e.type === 'WEBMCP_EXECUTE_TOOL_REQUEST').requestId;",
            vec![],
        )
        .await?;
    // The widget acknowledges the result a little later (acknowledgements wait for company, up to 250 ms): take
    // the reference answer once the shop has it, so that only the stranger could change it afterwards.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let known = loop {
        let answer = status_of(&t, &id).await?;
        let acknowledged = answer["error"].as_str().is_some_and(|e| e.contains("already delivered and acknowledged"));
        if acknowledged || std::time::Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let before = storage_chars(&t).await?;

    let answered = run_in(&t.session, Frame::Evil, STRANGER, vec![json!(PER_KIND)]).await?;
    let after = storage_chars(&t).await?;
    let still_known = status_of(&t, &id).await?;
    eprintln!(
        "journal: the shop's answer about the widget's call before {known}, after {still_known}; the stranger got \
         {answered} answers; sessionStorage {before} -> {after} characters"
    );
    let mut failures = Vec::new();
    if after - before > MAX_STORAGE_GROWTH {
        failures.push(format!("the shop's sessionStorage grew by {} characters ({before} -> {after})", after - before));
    }
    if still_known != known {
        failures
            .push(format!("the shop's answer about the widget's finished call changed from {known} to {still_known}"));
    }
    check(failures.is_empty(), || format!("a stranger's extension messages left a trace:\n{}", failures.join("\n")))?;

    check_eq(widget_command(&t.session, "cart").await?, "completed".to_owned(), "the widget's next call")?;
    check_nothing_else_ran(&t, &["add_to_cart", "get_cart"])?;
    check_arena_clean(&t.session).await
}
