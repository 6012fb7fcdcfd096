//! The back/forward cache: a page with the bridge is kept in it and restored from it, as a page without the
//! bridge is, and works when it is back. Firefox keeps a page that holds a Web Lock out of the cache, and the
//! bridge holds its tab's lock (docs/once-only.md §5): it lets go of it while a navigation that replaces the page
//! starts, and asks for it again when the page is back. The pages are served under `/cacheable/`, without the
//! `no-store` of the rest of the demo, which keeps every page out of Chromium's cache.

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{Case, Ctx, E2eResult, case, check_eq};
use serde_json::{Value, json};

pub fn cases() -> Vec<Case> {
    vec![case!(
        "bfcache::a_page_with_the_bridge_is_restored_from_the_back_forward_cache_and_works",
        a_page_with_the_bridge_is_restored_from_the_back_forward_cache_and_works
    )]
}

/// Marks the page (a restored page keeps its script's state; a loaded one starts afresh), records its `pageshow`
/// events, and navigates to the next page of the same origin, which has the bridge too, a task later.
const MARK_AND_LEAVE: &str = r#"
window.__mark = "the first page's state";
window.__shown = [];
addEventListener("pageshow", (event) => window.__shown.push(event.persisted));
setTimeout(() => { location.href = location.href + "&next=1"; }, 20);
return true;
"#;

/// What the page is: its mark, the `persisted` of each `pageshow` since it was marked, and whether it holds the
/// tab's lock (a held Web Lock named `webmcp:lock:…`).
const STATE: &str = r#"
const held = (await navigator.locks.query()).held.map((lock) => lock.name);
return {
  mark: window.__mark ?? null,
  shown: window.__shown ?? null,
  holdsTabLock: held.some((name) => name.startsWith("webmcp:lock:")),
  notRestored: JSON.stringify(performance.getEntriesByType("navigation")[0]?.notRestoredReasons ?? null),
};
"#;

/// The bridge's page goes to the next page and back: it comes back from the cache (its script's state kept,
/// `pageshow` with `persisted`), holds its tab's lock again, and its own tool runs when called, as before it left.
/// The next page, whose bridge takes the tab's lock while the first page is in the cache, keeps the tab id.
async fn a_page_with_the_bridge_is_restored_from_the_back_forward_cache_and_works(t: Ctx) -> E2eResult<()> {
    let path = "/cacheable/e2e/peer.html?kind=bridge";
    t.open(Site::Shop, path).await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "the first page's bridge")?;
    let tab = "return sessionStorage.getItem('webmcp:tab');";
    let first_tab = t.session.execute(tab, vec![]).await?;
    t.session
        .execute(r#"return window.__e2e.register({ name: "echo", body: "return { echoed: args.n };" });"#, vec![])
        .await?;
    let holds = t.session.execute_async(STATE, vec![]).await?;
    check_eq(holds["holdsTabLock"].clone(), json!(true), "the first page holds its tab's lock")?;

    t.session.execute(MARK_AND_LEAVE, vec![]).await?;
    t.session
        .wait_for("(location.search.includes('next=1') && document.readyState === 'complete') || null", DEFAULT_WAIT)
        .await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "the next page's bridge")?;
    check_eq(t.session.execute(tab, vec![]).await?, first_tab.clone(), "the next page's tab id")?;

    t.session.execute("setTimeout(() => history.back(), 20); return true;", vec![]).await?;
    t.session
        .wait_for("(!location.search.includes('next=1') && document.readyState === 'complete') || null", DEFAULT_WAIT)
        .await?;
    let back = t
        .session
        .wait_for(
            "(window.__shown && window.__shown.length > 0) || window.__demo?.state === 'ready' || null",
            DEFAULT_WAIT,
        )
        .await;
    let state = t.session.execute_async(STATE, vec![]).await?;
    check_eq(
        json!({ "mark": state["mark"], "shown": state["shown"] }),
        json!({ "mark": "the first page's state", "shown": [true] }),
        &format!("the first page, back (restored from the back/forward cache; waited: {back:?}; {state})"),
    )?;
    let started = std::time::Instant::now();
    loop {
        let state = t.session.execute_async(STATE, vec![]).await?;
        if state["holdsTabLock"] == json!(true) {
            break;
        }
        if started.elapsed() > DEFAULT_WAIT {
            check_eq(state, json!({ "holdsTabLock": true }), "the restored page takes its tab's lock again")?;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    check_eq(t.session.execute(tab, vec![]).await?, first_tab, "the restored page's tab id")?;
    let list = t.session.execute_async("return await window.__e2e.list();", vec![]).await?;
    check_eq(list, json!([["echo", t.origin(Site::Shop)]]), "the restored page lists its tool")?;
    let outcome: Value =
        t.session.execute_async(r#"return await window.__e2e.call("echo", { n: 7 });"#, vec![]).await?;
    check_eq(outcome["ok"].clone(), json!(true), &format!("the restored page's call of its own tool: {outcome}"))?;
    check_eq(t.counter(Site::Shop, "echo"), 1, "runs of the tool")
}
