//! A caller that leaves while its call runs (issue 26; docs/once-only.md §2, docs/native.md): a frame that navigates
//! itself to another document and one its parent removes, of the parent's origin and of another; one of the
//! parent's origin that the parent navigates; and a popup that closes. The tool waits for its signal; its abort and
//! `toolcancel` where it runs are what the cases wait for. A caller that reloads keeps its call (the once-only cases
//! `once::caller_reload_*` show it runs once and reaches the new page).

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::{Ctx, E2eResult, check_eq};
use serde_json::json;

use super::pages::{
    Page, check_bridge_never_posts_to_star, embed, js, list, open_top, peer_path, register, wait_counter, wait_in,
};

/// How long a case waits for a stop that must not come (a browser without the Navigation API keeps the call).
const NO_STOP_WAIT: Duration = Duration::from_millis(1500);

/// How the caller's frame leaves.
#[derive(Clone, Copy, Debug)]
enum Leaving {
    /// Its page navigates itself to `about:blank`.
    Navigates,
    /// Its parent navigates the frame to `about:blank` (its `src`).
    IsNavigated,
    /// Its parent removes the frame.
    IsRemoved,
}

/// The shop at the top registers a tool that waits for its signal, exposed to the caller frame `#c` of `caller`;
/// the frame calls it; once it runs, the frame leaves as `leaving` says. The tool's signal aborts (the shop's
/// counter `<tool>.aborted`) and `toolcancel` fires at the shop's `document.modelContext` with the tool's name, and
/// the tool ran once.
///
/// In an engine without the Navigation API (WebKitGTK), a frame that navigates, or is navigated, cannot tell that
/// from a reload: it keeps its call (docs/once-only.md §2, docs/engines.md) and the run goes on, unaborted, until
/// the frame is removed; then it stops as above, having run once.
async fn the_run_stops(t: &Ctx, caller: Site, leaving: Leaving) -> E2eResult<()> {
    let tool = format!("waits_{}_{leaving:?}", caller.name()).to_lowercase();
    open_top(t, Site::Shop, &peer_path("bridge", &[])).await?;
    let body = "await page.untilAborted(signal); return 'finished after the abort';";
    register(t, Page::Top, json!({ "name": tool, "body": body }), json!({ "exposedTo": [caller.name()] })).await?;
    embed(t, Page::Top, "c", caller, &peer_path("bridge", &[])).await?;
    let caller_frame = Page::Frame("c");
    list(t, caller_frame, json!({ "fromOrigins": ["shop"] })).await?;
    js(t, caller_frame, "return e2e.start(args[0], args[0]);", vec![json!(tool)]).await?;
    wait_counter(t, Site::Shop, &tool, 1).await?;
    match leaving {
        Leaving::Navigates => {
            js(t, caller_frame, "setTimeout(() => { location.href = 'about:blank'; }, 0); return true;", vec![])
                .await?;
        }
        Leaving::IsNavigated => {
            js(t, Page::Top, "document.getElementById('c').src = 'about:blank'; return true;", vec![]).await?;
        }
        Leaving::IsRemoved => {
            js(t, Page::Top, "return e2e.removeFrame('c');", vec![]).await?;
        }
    }
    let aborted = format!("{tool}.aborted");
    if !matches!(leaving, Leaving::IsRemoved) && !t.engine().has_navigation_api() {
        let has_it = js(t, Page::Top, "return 'navigation' in window;", vec![]).await?;
        check_eq(has_it, json!(false), &format!("whether {} has the Navigation API", t.engine()))?;
        tokio::time::sleep(NO_STOP_WAIT).await;
        check_eq(
            t.counter(Site::Shop, &aborted),
            0,
            "aborts after the caller left (without the Navigation API: none)",
        )?;
        check_eq(js(t, Page::Top, "return e2e.cancels;", vec![]).await?, json!([]), "the shop's toolcancel events")?;
        js(t, Page::Top, "return e2e.removeFrame('c');", vec![]).await?;
    }
    wait_counter(t, Site::Shop, &aborted, 1).await?;
    let condition = format!("e2e.cancels.includes({}) && e2e.cancels", json!(tool));
    check_eq(wait_in(t, Page::Top, &condition).await?, json!([tool]), "the shop's toolcancel events")?;
    check_eq(t.counter(Site::Shop, &tool), 1, "runs of the tool")?;
    js(t, Page::Top, "return e2e.removeFrame('c');", vec![]).await?;
    check_bridge_never_posts_to_star(t).await.map(drop)
}

/// A caller frame of the parent's origin navigates itself away mid-call: the parent's run stops.
pub async fn a_same_origin_caller_that_navigates_away_stops_the_run(t: Ctx) -> E2eResult<()> {
    the_run_stops(&t, Site::Shop, Leaving::Navigates).await
}

/// A caller frame of another origin navigates itself away mid-call: the parent's run stops.
pub async fn a_cross_origin_caller_that_navigates_away_stops_the_run(t: Ctx) -> E2eResult<()> {
    the_run_stops(&t, Site::Widget, Leaving::Navigates).await
}

/// The parent navigates a caller frame of its origin mid-call: the parent's run stops. (Not for a frame of another
/// origin: a navigation that a page of another origin starts fires no `navigate` in the frame's page, which goes as
/// if it reloaded, and its call runs on; docs/once-only.md §2.)
pub async fn a_same_origin_caller_navigated_by_its_parent_stops_the_run(t: Ctx) -> E2eResult<()> {
    the_run_stops(&t, Site::Shop, Leaving::IsNavigated).await
}

/// A caller frame of the parent's origin is removed mid-call: the parent's run stops.
pub async fn a_removed_same_origin_caller_stops_the_run(t: Ctx) -> E2eResult<()> {
    the_run_stops(&t, Site::Shop, Leaving::IsRemoved).await
}

/// A caller frame of another origin is removed mid-call: the parent's run stops.
pub async fn a_removed_cross_origin_caller_stops_the_run(t: Ctx) -> E2eResult<()> {
    the_run_stops(&t, Site::Widget, Leaving::IsRemoved).await
}

/// A popup of another origin calls its opener's tool and is closed while the tool runs: the opener's run stops, as
/// for a removed frame (the opener finds the caller's window closed).
pub async fn a_caller_popup_that_closes_stops_the_run(t: Ctx) -> E2eResult<()> {
    let tool = "waits_in_the_opener";
    open_top(&t, Site::Shop, &peer_path("bridge", &[])).await?;
    let body = "await page.untilAborted(signal); return 'finished after the abort';";
    register(&t, Page::Top, json!({ "name": tool, "body": body }), json!({ "exposedTo": ["widget"] })).await?;
    let url = format!("{}{}", t.origin(Site::Widget), peer_path("bridge", &[]));
    let state = js(&t, Page::Top, "return await e2e.openPopup(args[0]);", vec![json!(url)]).await?;
    check_eq(state, json!("ready"), "the popup's page")?;
    super::switch_to_window(&t, super::Window::Popup).await?;
    list(&t, Page::Top, json!({ "fromOrigins": ["shop"] })).await?;
    js(&t, Page::Top, "return e2e.start(args[0], args[0]);", vec![json!(tool)]).await?;
    wait_counter(&t, Site::Shop, tool, 1).await?;
    super::switch_to_window(&t, super::Window::Opener).await?;
    js(&t, Page::Top, "return e2e.closePopup();", vec![]).await?;
    wait_counter(&t, Site::Shop, &format!("{tool}.aborted"), 1).await?;
    let condition = format!("e2e.cancels.includes({}) && e2e.cancels", json!(tool));
    check_eq(wait_in(&t, Page::Top, &condition).await?, json!([tool]), "the opener's toolcancel events")?;
    check_eq(t.counter(Site::Shop, tool), 1, "runs of the tool")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}
