//! One huge message (issue 13 §3): any window that can post to the shop sends a `WEBMCP_*` message carrying a
//! 100-million-character string. The bridge must refuse it by measuring it, before serializing it or copying it
//! into wasm memory: the shop's wasm memory and JS heap end within a few MiB of where they were, and the widget's
//! next call still works. The case prints the memory figures. Before the fix, the message was serialized and
//! copied: wasm memory grew by hundreds of MiB and never shrank.

use interpane_e2e::session::Session;
use interpane_e2e::{Ctx, E2eResult, check};
use serde_json::{Value, json};

use super::arena::{Frame, check_arena_clean, open_arena_in, run_in};
use super::flood::{CALLS, close_precise_memory_session, growth, latencies, memory, mib, precise_memory_session};

/// Characters in the huge string.
const HUGE_CHARS: u64 = 100_000_000;
/// How far the shop's wasm memory and JS heap may grow: "within a few MiB".
const MAX_GROWTH: i64 = 4 * 1024 * 1024;

/// In the attacker frame: posts one execute request whose arguments hold a string of `args[0]` characters to the
/// shop (the parent) at its exact origin, then a tool list request, so that the shop's answer to the second says
/// when it got past the first. Resolves with how long the round trip took.
const POST_HUGE: &str = "const huge = 'x'.repeat(args[0]); const started = performance.now(); \
    const answered = new Promise((resolve) => addEventListener('message', function listener(event) { \
      if (event.source === parent && event.data?.requestId === 'after-huge') { \
        removeEventListener('message', listener); resolve(); } })); \
    parent.postMessage({ type: 'WEBMCP_EXECUTE_TOOL_REQUEST', requestId: 'huge-1', name: 'add_to_cart', \
      args: { sku: huge } }, args[1]); \
    parent.postMessage({ type: 'WEBMCP_GET_TOOLS_REQUEST', requestId: 'after-huge' }, args[1]); \
    await answered; return performance.now() - started;";

async fn huge_in(t: &Ctx, session: &Session) -> E2eResult<()> {
    open_arena_in(t, session, 100).await?;
    let shop = t.origin(interpane_demo_sites::Site::Shop).to_owned();
    let before = memory(session).await?;
    let ms = run_in(session, Frame::Evil, POST_HUGE, vec![json!(HUGE_CHARS), json!(shop)]).await?;
    let after = memory(session).await?;
    let calls = run_in(session, Frame::Widget, CALLS, vec![json!(3)]).await?;
    let warnings = run_in(session, Frame::Shop, "return window.__victim.warnings;", vec![]).await?;
    let (wasm, heap) = (growth(&before, &after, "wasmBytes"), growth(&before, &after, "jsHeapBytes"));
    eprintln!(
        "huge message: {HUGE_CHARS} characters, refused in {:.0} ms; shop wasm {} -> {} ({wasm:+} B), JS heap {} -> {} \
         ({heap:+} B, gc {})",
        ms.as_f64().unwrap_or(f64::NAN),
        mib(&before["wasmBytes"]),
        mib(&after["wasmBytes"]),
        mib(&before["jsHeapBytes"]),
        mib(&after["jsHeapBytes"]),
        after["gc"]
    );
    check(wasm <= MAX_GROWTH, || format!("the shop's wasm memory grew by {wasm} bytes (at most {MAX_GROWTH})"))?;
    check(heap <= MAX_GROWTH, || format!("the shop's JS heap grew by {heap} bytes (at most {MAX_GROWTH})"))?;
    let said = warnings.as_array().cloned().unwrap_or_default();
    check(said.iter().filter_map(Value::as_str).any(|w| w.contains("bytes; not read")), || {
        format!("the shop's console says the message was refused unread: {said:?}")
    })?;
    let (_, _, count, completed) = latencies(&calls);
    check(count == 3 && completed, || format!("the widget's calls after the huge message: {calls}"))?;
    check_arena_clean(session).await
}

/// A 100-million-character message from an attacker frame is refused before it costs the shop memory.
pub async fn a_huge_message_is_refused_before_it_reaches_wasm_memory(t: Ctx) -> E2eResult<()> {
    let (driver, session) = precise_memory_session().await?;
    let outcome = huge_in(&t, &session).await;
    close_precise_memory_session(driver, session, outcome).await
}
