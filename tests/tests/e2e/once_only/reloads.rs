//! Reloads in the middle of a call (docs/once-only.md §2 and §3): the caller's page before the request left,
//! while the tool runs, after the result was sent but before the page handled it; the provider's page while the
//! tool runs.

use interpane_e2e::{Ctx, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::pages::{Layout, Pages, REPETITIONS};

/// The caller's page reloads before its request reached the provider. The tool is held at a gate until the new
/// page is ready, so the old page can never see the result: the new page resumes the call, and its result arrives
/// there, once, as a recovered `toolresult`. Even repetitions: the page starts the call and reloads in the same
/// task (the request leaves as the page goes; the new page asks the provider, which runs or has run it). Odd
/// ones: the request is dropped on its way out (the page's port posts are muted; checked: nothing reached the
/// provider), then the page reloads: the new page learns `unknown` from the provider and sends the call, once.
pub async fn caller_reload_before_send(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s1r{rep:02}");
        let gate = format!("g-{id}");
        if rep % 2 == 0 {
            let old = pages.in_caller("return window.__once.loadId;", vec![]).await?;
            pages.call(&id, json!({ "gate": gate, "reload": true })).await?;
            pages.wait_caller_ready(old.as_str()).await?;
        } else {
            pages.in_caller("window.__once.deafness.muted = true; return true;", vec![]).await?;
            pages.call(&id, json!({ "gate": gate })).await?;
            pages.wait_caller_state(&id, "sent").await?;
            let unsent = pages.in_caller("return window.__once.deafness.unsent;", vec![]).await?;
            check(unsent.as_u64().is_some_and(|n| n >= 1), || format!("the muted page posted anyway: {unsent}"))?;
            check_eq(pages.provider_state(&id).await?, Value::Null, "the provider's record of the muted call")?;
            pages.reload_caller().await?;
        }
        pages.wait_at_gate(&gate).await?;
        pages.open_gate(&gate)?;
        pages.expect(&id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("caller_reload_before_send").await
}

/// The caller reloads while the tool runs (held at a gate); the gate opens after the new page is ready; the
/// result reaches the new page once, as a recovered `toolresult`; the tool ran once.
pub async fn caller_reload_during_the_run(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s2r{rep:02}");
        let gate = format!("g-{id}");
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        pages.wait_provider_state(&id, "running").await?;
        pages.reload_caller().await?;
        pages.open_gate(&gate)?;
        pages.expect(&id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("caller_reload_during_the_run").await
}

/// The provider finishes while the caller cannot handle the response (the caller's page drops every bridge
/// message, as a page torn down before it runs that task would), then the caller reloads: the new page asks
/// the provider, which answers from its journal with the result it kept, and the result is delivered once.
pub async fn caller_reload_after_the_result_before_delivery(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s3r{rep:02}");
        let gate = format!("g-{id}");
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        pages.in_caller("window.__once.deafness.on = true; return true;", vec![]).await?;
        pages.open_gate(&gate)?;
        // The tool returned and the provider posted its response; the caller dropped it unhandled.
        pages.expect(&id, &[], &[("", 1), ("returned", 1)]).await?;
        pages.enter_caller().await?;
        pages.session.wait_for("window.__once.deafness.dropped > 0", interpane_e2e::session::DEFAULT_WAIT).await?;
        let before = pages.in_caller("return window.__once.outcomes[arguments[0]].state;", vec![json!(id)]).await?;
        check_eq(before, json!("pending"), "the caller's promise before the reload")?;
        // The provider keeps the result until the caller acknowledges it.
        pages.wait_provider_state(&id, "done").await?;
        pages.reload_caller().await?;
        pages.expect(&id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("caller_reload_after_the_result_before_delivery").await
}

/// The provider reloads while the tool runs. Even repetitions: the caller hears the provider go away and
/// settles the call as `interrupted` in the same page. Odd ones: the caller hears nothing (it drops every bridge
/// message), reloads, asks the provider, and the provider answers `interrupted` from its journal. Either way a
/// retry with the same callId gets `interrupted`, and the tool never runs again.
pub async fn provider_reload_during_the_run(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    for rep in 0..REPETITIONS {
        let id = format!("s4r{rep:02}");
        let heard = rep % 2 == 0;
        // Held in the page rather than at a server gate: a reload would cut the gate's request short, and the
        // tool would fail ("Failed to fetch") instead of still running when its page goes away.
        pages.call(&id, json!({ "hold": true })).await?;
        pages.wait_held(&id).await?;
        if !heard {
            pages.in_caller("window.__once.deafness.on = true; return true;", vec![]).await?;
        }
        pages.reload_provider().await?;
        pages.wait_provider_state(&id, "interrupted").await?;
        // Heard: the provider said it was going away while the call was in flight. Not heard: the new provider
        // page answered the caller's status query from its journal (the call ran when its page reloaded).
        let (settled, why): (&[&str], &str) = if heard {
            (&["pr.interrupted-gone", "ev.interrupted-gone"], "interrupted-gone")
        } else {
            pages.reload_caller().await?;
            (&["evr.interrupted-reloaded"], "interrupted-reloaded")
        };
        pages.expect(&id, settled, &[("", 1), ("held", 1)]).await?;
        check_eq(
            pages.retry(&id, json!({ "hold": true })).await?,
            why.to_owned(),
            &format!("retry of {id} with the same callId"),
        )?;
        let replayed = format!("rp.{why}");
        let expected: Vec<&str> = settled.iter().copied().chain([replayed.as_str()]).collect();
        pages.expect(&id, &expected, &[("", 1), ("held", 1)]).await?;
        pages.expect_nothing_pending().await?;
    }
    pages.finish("provider_reload_during_the_run").await
}

/// The provider reloads while its tool awaits a `fetch` (a server gate that never opens). The reload cuts the
/// request short and the tool throws ("Load failed" in WebKit, which does so as soon as the navigation starts,
/// while the page still runs; "Failed to fetch" elsewhere): an error the departure caused, not the tool. The
/// caller learns that the call was interrupted, as when the run is held in the page, and the tool ran once.
pub async fn provider_reload_while_the_tool_awaits_a_fetch(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "").await?;
    let id = "s4f00";
    let gate = format!("g-{id}");
    pages.call(id, json!({ "gate": gate })).await?;
    pages.wait_at_gate(&gate).await?;
    pages.reload_provider().await?;
    pages.wait_provider_state(id, "interrupted").await?;
    pages.expect(id, &["pr.interrupted-gone", "ev.interrupted-gone"], &[("", 1)]).await?;
    check_eq(
        pages.retry(id, json!({ "gate": gate })).await?,
        "interrupted-gone".to_owned(),
        &format!("retry of {id} with the same callId"),
    )?;
    pages.expect(id, &["pr.interrupted-gone", "ev.interrupted-gone", "rp.interrupted-gone"], &[("", 1)]).await?;
    pages.expect_nothing_pending().await?;
    pages.finish("provider_reload_while_the_tool_awaits_a_fetch").await
}

/// The host adds the caller's and the provider's frames at once (`together=1`), so the provider may announce
/// itself while the caller's first tool listing is still waiting for it; the caller then finds the tool, calls it,
/// and reloads while it runs (held at a gate). The new caller page must still find the provider's window and
/// receive the result once (`completed`), as in `caller_reload_during_the_run`. Each repetition loads the pages
/// anew.
pub async fn caller_reload_after_both_frames_loaded_together(t: Ctx) -> E2eResult<()> {
    let (mut expected, started) = (Vec::new(), std::time::Instant::now());
    for rep in 0..REPETITIONS {
        let mut pages = Pages::open(&t, &t.session, Layout::Siblings, "together=1").await?;
        pages.continue_from(&expected, started);
        let id = format!("s11r{rep:02}");
        let gate = format!("g-{id}");
        pages.call(&id, json!({ "gate": gate })).await?;
        pages.wait_at_gate(&gate).await?;
        pages.reload_caller().await?;
        pages.open_gate(&gate)?;
        pages.expect(&id, &["evr.completed"], &[("", 1), ("returned", 1)]).await?;
        pages.expect_nothing_pending().await?;
        expected = pages.expected();
        if rep + 1 == REPETITIONS {
            return pages.finish("caller_reload_after_both_frames_loaded_together").await;
        }
    }
    Ok(())
}
