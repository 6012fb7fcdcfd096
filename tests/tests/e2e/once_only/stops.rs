//! Stopping a call (docs/once-only.md §4): before it starts, and while it runs.

use interpane_e2e::{Ctx, E2eResult, check_eq};
use serde_json::{Value, json};

use super::pages::{Layout, Pages, REPETITIONS};

/// Longer than a page's journal takes to reach sessionStorage after a change (`FLUSH_DELAY_MS`, 50 ms).
const PROVIDER_FLUSHED: std::time::Duration = std::time::Duration::from_millis(200);

/// The caller aborts in the same task as `executeTool`, before the request leaves the page: the promise
/// rejects with the signal's reason, the outcome is `stopped`, the request never leaves (the provider's journal
/// never holds the call, whether it would have gone on the port or by window, as after the reloads before each
/// repetition), and the tool never runs, neither then nor after the caller's or the provider's page reloads; a
/// retry with the same callId replays `stopped` (`cancelled`).
pub async fn stop_before_start(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s5r{rep:02}");
        pages.call(&id, json!({ "abort": true })).await?;
        pages.wait_caller_state(&id, "settled").await?;
        pages.expect(&id, &["pr.aborted", "ev.stopped"], &[]).await?;
        // Whatever the caller posted has been handled by now, and written to the provider's sessionStorage after
        // the provider's flush delay (50 ms).
        pages.sync().await?;
        tokio::time::sleep(PROVIDER_FLUSHED).await;
        check_eq(pages.provider_state(&id).await?, Value::Null, &format!("the provider's record of {id}"))?;
        pages.reload_caller().await?;
        pages.reload_provider().await?;
        check_eq(pages.retry(&id, json!({})).await?, "cancelled".to_owned(), &format!("retry of the stopped {id}"))?;
        pages.expect(&id, &["pr.aborted", "ev.stopped", "rp.cancelled"], &[]).await?;
        check_eq(pages.provider_state(&id).await?, Value::Null, &format!("the provider's record of {id}"))?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("stop_before_start").await
}

/// The caller aborts while the tool runs (held at a gate): the promise rejects at once, the outcome is
/// `stopped`, the tool's signal aborts; the tool's late result (it ignores the signal and returns once the gate
/// opens) is discarded: no second outcome, before or after the caller reloads.
pub async fn stop_during_the_run(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s6r{rep:02}");
        let gate = format!("g-{id}");
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        pages.in_caller("return window.__once.stop(arguments[0]);", vec![json!(id)]).await?;
        pages.expect(&id, &["pr.aborted", "ev.stopped"], &[("", 1), ("aborted", 1)]).await?;
        pages.wait_provider_state(&id, "cancelled").await?;
        pages.open_gate(&gate)?;
        pages.expect(&id, &["pr.aborted", "ev.stopped"], &[("", 1), ("aborted", 1), ("returned", 1)]).await?;
        // Had the late result been delivered, the caller would have reported it by the end of this round trip.
        pages.sync().await?;
        pages.expect(&id, &["pr.aborted", "ev.stopped"], &[("", 1), ("aborted", 1), ("returned", 1)]).await?;
        if rep % 4 == 3 {
            pages.reload_caller().await?;
        }
        pages.expect_nothing_pending().await?;
    }
    pages.finish("stop_during_the_run").await
}
