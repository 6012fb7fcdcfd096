//! Other copies of a page (docs/once-only.md §5 and §6): a duplicated tab, another tab of the same origin, and
//! the bridge loaded twice in one page.

use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{Ctx, Doing, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::pages::{Layout, Pages, REPETITIONS};

/// What a copy of the caller's page knows, read in the copy.
const COPY_FACTS: &str = "const o = window.__once; return { tabAtLoad: o.tabAtLoad, tab: o.tab(), \
    events: o.events, pending: o.pending(), unsettled: o.unsettled() };";

/// The caller's page (at the top, the provider in its frame) opens a copy of itself with `window.open`, which
/// copies its sessionStorage, journal included, as a duplicated tab does, while a call runs and is recorded as
/// sent. The copy takes a new tab id, resumes nothing, reports nothing and runs nothing; the original gets its
/// result once.
pub async fn duplicate_tab_does_not_adopt_calls(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::CallerOnTop, "").await?;
    let client = t.session.client();
    let original = client.window().await.doing("reading the window handle")?;
    for rep in 0..REPETITIONS {
        let id = format!("s7r{rep:02}");
        let gate = format!("g-{id}");
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        // The copy must inherit the call as "sent": the state a resuming page would act on.
        let stored = format!(
            "window.__once.unsettled().some((c) => c.callId === {} && c.state === 'sent')",
            Value::String(id.clone())
        );
        pages.enter_caller().await?;
        pages.session.wait_for(&stored, DEFAULT_WAIT).await?;
        let tab = pages.in_caller("return window.__once.tab();", vec![]).await?;
        let provider_tab = pages.in_provider("return window.__provider.tab();", vec![]).await?;

        pages.in_caller("window.open(location.href); return true;", vec![]).await?;
        let copy = wait_for_new_window(&t, &original).await?;
        client.switch_to_window(copy).await.doing("switching to the copy")?;
        pages.lost_focus();
        let copied = async {
            pages.wait_provider_ready(None).await?;
            pages.wait_caller_ready(None).await?;
            let facts = pages.in_caller(COPY_FACTS, vec![]).await?;
            check_eq(&facts["tabAtLoad"], &tab, "the tab id the copy inherited (sessionStorage was copied)")?;
            check(facts["tab"] != tab, || format!("the copy kept the original's tab id: {facts}"))?;
            for field in ["events", "pending", "unsettled"] {
                check_eq(&facts[field], &json!([]), &format!("the copy's {field}"))?;
            }
            let provider = pages
                .in_provider("return { tabAtLoad: window.__provider.tabAtLoad, tab: window.__provider.tab() };", vec![])
                .await?;
            // Where the engine copies no cross-site frame's storage, the provider's copy starts as a new tab would.
            let inherited =
                if t.engine().copies_frame_storage_into_opened_windows() { provider_tab.clone() } else { Value::Null };
            check_eq(&provider["tabAtLoad"], &inherited, "the tab id the copy's provider inherited")?;
            check(provider["tab"] != provider_tab, || format!("the copy's provider kept the tab id: {provider}"))?;
            pages.sync().await
        }
        .await;
        client.close_window().await.doing("closing the copy")?;
        client.switch_to_window(original.clone()).await.doing("switching back to the original")?;
        pages.lost_focus();
        copied.map_err(|error| E2eError::Check(format!("in the copy of {id}: {error}")))?;

        pages.open_gate(&gate)?;
        pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("duplicate_tab_does_not_adopt_calls").await
}

/// A second tab of the caller's origin (opened by the browser, so with its own sessionStorage and tab id) watches
/// the first tab's calls through `toolstatus` events: it sees each call running, then completed, with the first
/// tab's public label, never its tab id (issue 13); it never runs, resumes or reports one, and each call runs once.
pub async fn another_tab_observes_calls_and_never_runs_them(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::CallerOnTop, "").await?;
    let client = t.session.client();
    let first = client.window().await.doing("reading the window handle")?;
    let url = client.current_url().await.doing("reading the caller's address")?;
    let tab = pages.in_caller("return window.__once.tab();", vec![]).await?;
    let label = pages.in_caller("return sessionStorage.getItem('webmcp:tab-label');", vec![]).await?;
    check(label.is_string() && label != tab, || format!("the first tab's label {label} (tab id {tab})"))?;

    let second = client.new_window(true).await.doing("opening a second tab")?.handle;
    client.switch_to_window(second.clone()).await.doing("switching to the second tab")?;
    pages.lost_focus();
    t.session.open(url.as_str()).await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "the second tab's state")?;
    pages.wait_provider_ready(None).await?;
    pages.wait_caller_ready(None).await?;
    let watch = "window.__statuses = []; document.modelContext.addEventListener('toolstatus', \
        (e) => window.__statuses.push(`${e.tab}|${e.callId}|${e.name}|${e.status}`)); return window.__once.tab();";
    let second_tab = pages.in_caller(watch, vec![]).await?;
    check(second_tab != tab, || format!("both tabs have the id {tab}"))?;

    let switch = async |handle: &fantoccini::wd::WindowHandle, pages: &Pages<'_>| -> E2eResult<()> {
        client.switch_to_window(handle.clone()).await.doing("switching tabs")?;
        pages.lost_focus();
        pages.enter_caller().await
    };
    for rep in 0..REPETITIONS {
        let id = format!("s9r{rep:02}");
        let gate = format!("g-{id}");
        switch(&first, &pages).await?;
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;

        switch(&second, &pages).await?;
        let seen = |status: &str| {
            let entry = format!("{}|{id}|charge|{status}", label.as_str().unwrap_or_default());
            format!("window.__statuses.includes({})", Value::String(entry))
        };
        pages.session.wait_for(&seen("running"), DEFAULT_WAIT).await?;

        switch(&first, &pages).await?;
        pages.open_gate(&gate)?;
        pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;

        switch(&second, &pages).await?;
        pages.session.wait_for(&seen("completed"), DEFAULT_WAIT).await?;
        let own = pages.in_caller(COPY_FACTS, vec![]).await?;
        for field in ["events", "pending", "unsettled"] {
            check_eq(&own[field], &json!([]), &format!("the second tab's {field} after {id}"))?;
        }
    }
    let statuses = pages.in_caller("return window.__statuses.length;", vec![]).await?;
    check_eq(statuses, json!(2 * REPETITIONS), "toolstatus events in the second tab (running and completed)")?;
    let leaked = "return window.__statuses.some((s) => s.includes(arguments[0]));";
    check_eq(pages.in_caller(leaked, vec![tab.clone()]).await?, json!(false), "the first tab's id in a toolstatus")?;
    client.close_window().await.doing("closing the second tab")?;
    client.switch_to_window(first).await.doing("switching back to the first tab")?;
    pages.lost_focus();
    pages.expect_nothing_pending().await?;
    pages.finish("another_tab_observes_calls_and_never_runs_them").await
}

async fn wait_for_new_window(
    t: &Ctx,
    original: &fantoccini::wd::WindowHandle,
) -> E2eResult<fantoccini::wd::WindowHandle> {
    let started = std::time::Instant::now();
    loop {
        let handles = t.session.client().windows().await.doing("listing windows")?;
        if let Some(copy) = handles.into_iter().find(|handle| handle != original) {
            return Ok(copy);
        }
        if started.elapsed() > DEFAULT_WAIT {
            return Err(E2eError::Check("window.open opened no window".into()));
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// Two copies of the bridge module (two URLs, so two module and wasm instances) in the caller and in the
/// provider: the second install() returns the first bridge, one listener answers, and every call runs once,
/// whether it completes in place (even repetitions) or across a reload of the caller (odd ones).
pub async fn bridge_loaded_twice_runs_each_call_once(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "twice=1").await?;
    let same = "return window.__once.sameContext;";
    check_eq(pages.in_caller(same, vec![]).await?, json!(true), "the caller's two installs return one bridge")?;
    let same_provider = "return window.__provider.sameContext;";
    check_eq(pages.in_provider(same_provider, vec![]).await?, json!(true), "the provider's two installs")?;
    for rep in 0..REPETITIONS {
        let id = format!("s8r{rep:02}");
        if rep % 2 == 0 {
            pages.call(&id, json!({})).await?;
            pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;
            pages.sync().await?;
            pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;
        } else {
            let gate = format!("g-{id}");
            pages.call(&id, json!({ "gate": gate })).await?;
            pages.wait_at_gate(&gate).await?;
            pages.reload_caller().await?;
            check_eq(pages.in_caller(same, vec![]).await?, json!(true), "after the reload, one bridge")?;
            pages.open_gate(&gate)?;
            pages.expect(&id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
        }
        pages.expect_nothing_pending().await?;
    }
    pages.finish("bridge_loaded_twice_runs_each_call_once").await
}
