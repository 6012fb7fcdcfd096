//! sessionStorage unavailable (docs/once-only.md §7): blocked for the caller's site by the browser profile, and
//! full at the provider. Calls work within a page load; after a reload the bridge never runs a call twice, and
//! says `interrupted` where it cannot know more.

use fantoccini::ClientBuilder;
use hyper_util::client::legacy::connect::HttpConnector;
use interpane_demo_sites::Site;
use interpane_e2e::Engine;
use interpane_e2e::browser::{chromium_capabilities, chromium_from_env};
use interpane_e2e::driver::Driver;
use interpane_e2e::{Ctx, E2eError, E2eResult, Session, check_eq};
use serde_json::json;

use super::pages::{Layout, Pages, REPETITIONS};

/// How many of the page's bridge warnings say that sessionStorage is unavailable (`global`: `__once` or
/// `__provider`); the bridge says it once per page load.
fn storage_warnings(global: &str) -> String {
    format!("return window.{global}.warnings.filter((w) => w.includes('sessionStorage is unavailable')).length;")
}

/// A Chromium session whose profile blocks site data ("cookies", which covers sessionStorage) for `origin`
/// only: its documents get a SecurityError from `sessionStorage`, other origins' frames keep theirs.
async fn session_blocking_storage_of(driver: &Driver, origin: &str) -> E2eResult<Session> {
    let chromium = chromium_from_env();
    let mut capabilities = chromium_capabilities(&chromium);
    // Nested, not dotted: the pattern holds dots, and chromedriver splits dotted preference names.
    let prefs = json!({ "profile": { "content_settings": { "exceptions": { "cookies": {
        format!("{origin},*"): { "setting": 2 }
    } } } } });
    if let Some(options) = capabilities.get_mut("goog:chromeOptions").and_then(|o| o.as_object_mut()) {
        options.insert("prefs".into(), prefs);
    }
    let client =
        ClientBuilder::new(HttpConnector::new()).capabilities(capabilities).connect(&driver.url()).await.map_err(
            |error| E2eError::NewSession { engine: "chromium", binary: chromium, message: error.to_string() },
        )?;
    Ok(Session::new(client))
}

/// In a session whose profile blocks the shop's storage, the caller (shop) cannot use sessionStorage (checked:
/// SecurityError) and keeps its journal in memory. A call completes within the page load. A call running when
/// the caller reloads is lost with the page (the new page cannot know of it, and says nothing), and it runs
/// exactly once: nothing re-sends it.
pub async fn session_storage_blocked_for_the_caller(t: Ctx) -> E2eResult<()> {
    // A chromedriver of this case's own (the shared one is not reachable from a case), killed by its PID on drop.
    let driver = Driver::start_async(Engine::Chromium).await?;
    let session = session_blocking_storage_of(&driver, t.origin(Site::Shop)).await?;
    let outcome = blocked_caller(&t, &session).await;
    let closed = session.close().await;
    drop(driver);
    outcome.and(closed)
}

async fn blocked_caller(t: &Ctx, session: &Session) -> E2eResult<()> {
    let mut pages = Pages::open(t, session, Layout::Siblings, "").await?;
    let probe = "return window.__once.storage;";
    check_eq(pages.in_caller(probe, vec![]).await?, json!({ "usable": false, "error": "SecurityError" }), "caller")?;
    let direct = "try { return typeof window.sessionStorage.length; } catch (e) { return e.name; }";
    check_eq(pages.in_caller(direct, vec![]).await?, json!("SecurityError"), "reading sessionStorage in the caller")?;
    check_eq(pages.in_provider(direct, vec![]).await?, json!("number"), "sessionStorage in the provider")?;
    let warned = storage_warnings("__once");
    check_eq(pages.in_caller(&warned, vec![]).await?, json!(1), "the caller's warnings about sessionStorage")?;
    for rep in 0..REPETITIONS {
        let within = format!("s9r{rep:02}a");
        pages.call(&within, json!({})).await?;
        pages.expect(&within, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;

        let across = format!("s9r{rep:02}b");
        let gate = format!("g-{across}");
        pages.call(&across, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        pages.reload_caller().await?;
        check_eq(pages.in_caller(&warned, vec![]).await?, json!(1), "the new page's warnings about sessionStorage")?;
        pages.open_gate(&gate)?;
        pages.expect(&across, &[], &[("", 1), ("returned", 1)]).await?;
        // Whatever the provider posted for it has reached the new page by now: nothing was reported.
        pages.sync().await?;
        pages.expect(&across, &[], &[("", 1), ("returned", 1)]).await?;
        check_eq(pages.in_caller("return window.__once.events;", vec![]).await?, json!([]), "the new page's events")?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("session_storage_blocked_for_the_caller").await
}

/// The provider (pay) fills its sessionStorage to the quota before its bridge starts, so its journal lives in
/// memory; the caller's works. A call completes within the page load. When the provider reloads during a run
/// and the caller, which did not hear it go away, reloads too and asks, the new provider page cannot know
/// whether the call ran (`durable: false`): the caller settles it `interrupted` rather than send it again, and
/// a retry with the same callId gets `interrupted`. The tool ran once.
pub async fn session_storage_full_at_the_provider(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "fill=1").await?;
    let full = "return window.__provider.storage;";
    check_eq(pages.in_provider(full, vec![]).await?, json!({ "full": true, "error": "QuotaExceededError" }), "pay")?;
    check_eq(pages.in_caller("return window.__once.storage.usable;", vec![]).await?, json!(true), "caller storage")?;
    let warned = storage_warnings("__provider");
    check_eq(pages.in_provider(&warned, vec![]).await?, json!(1), "the provider's warnings about sessionStorage")?;
    for rep in 0..REPETITIONS {
        let within = format!("s10r{rep:02}a");
        pages.call(&within, json!({})).await?;
        pages.expect(&within, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;

        let across = format!("s10r{rep:02}b");
        pages.call(&across, json!({ "hold": true })).await?;
        pages.wait_held(&across).await?;
        pages.in_caller("window.__once.deafness.on = true; return true;", vec![]).await?;
        pages.reload_provider().await?;
        check_eq(pages.in_provider(full, vec![]).await?["full"].clone(), json!(true), "pay after its reload")?;
        check_eq(pages.in_provider(&warned, vec![]).await?, json!(1), "the new provider page's storage warnings")?;
        pages.reload_caller().await?;
        let runs = [("", 1), ("held", 1)];
        pages.expect(&across, &["evr.interrupted-not-durable"], &runs).await?;
        let retried = pages.retry(&across, json!({ "hold": true })).await?;
        check_eq(retried, "interrupted-not-durable".to_owned(), &format!("retry of {across}"))?;
        pages.expect(&across, &["evr.interrupted-not-durable", "rp.interrupted-not-durable"], &runs).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("session_storage_full_at_the_provider").await
}

/// Sequential calls whose results are near the default result cap, more than the storage quota could hold if the
/// caller kept every outcome it may replay (256 by count).
const LARGE_CALLS: usize = 200;
/// Characters of padding in each of those results (each about 29 KB as the journal stores it).
const PAD: u64 = 29_000;

/// Many calls with large results (issue 25's benchmark found this): the caller keeps the outcomes it may replay
/// within a byte budget (docs/once-only.md §8), so its journal stays in sessionStorage. Before, it outgrew the
/// quota, warned that it now lives in memory, and a reload then lost the calls in flight. After the calls, the
/// caller has no such warning, a retry of the first call's callId (whose outcome no longer fits) is refused
/// without running the tool again, and a call across a reload of the caller still reaches the new page, once.
pub async fn large_results_keep_the_callers_journal_in_storage(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    let in_memory = "return window.__once.warnings.filter((w) => w.includes('lives in memory')).length;";
    for n in 0..LARGE_CALLS {
        let id = format!("s11n{n:03}");
        pages.call(&id, json!({ "pad": PAD })).await?;
        pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;
    }
    check_eq(
        pages.in_caller(in_memory, vec![]).await?,
        json!(0),
        "the caller's warnings that its journal is in memory",
    )?;
    // The first calls' outcomes no longer fit the budget: their callIds replay an error saying so, and never run
    // the tool again.
    let first = "s11n000";
    check_eq(pages.retry(first, json!({ "pad": PAD })).await?, "refused".to_owned(), "retry of the first call")?;
    pages.expect(first, &["pr.completed", "ev.completed", "rp.refused"], &[("", 1), ("returned", 1)]).await?;
    let id = "s11across";
    let gate = format!("g-{id}");
    pages.call(id, json!({ "gate": gate, "pad": PAD })).await?;
    pages.wait_at_gate(&gate).await?;
    pages.wait_provider_state(id, "running").await?;
    pages.reload_caller().await?;
    pages.open_gate(&gate)?;
    pages.expect(id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
    check_eq(pages.in_caller(in_memory, vec![]).await?, json!(0), "the new caller page's warnings")?;
    pages.finish("large_results_keep_the_callers_journal_in_storage").await
}
