//! The victim shop with an attacker inside (`/attack/victim.html` on the shop's origin), and how the attack
//! cases drive its frames: the widget and pay frames of the real shop, the attacker frame (evil origin), and inside
//! it a window of the pay origin that nobody asked (the impostor) and a sandboxed frame (an opaque origin).

use interpane_demo_sites::Site;
use interpane_e2e::session::Session;
use interpane_e2e::spy::check_no_wildcard_posts;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

/// A window of the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The victim shop (the top document).
    Shop,
    /// The chat widget, the shop's only allowed caller.
    Widget,
    /// The pay provider, which the shop calls at checkout.
    Pay,
    /// The attacker's frame (evil origin).
    Evil,
    /// A window of the pay origin inside the attacker's frame.
    Impostor,
    /// A sandboxed frame inside the attacker's frame (origin `null`).
    Opaque,
}

impl Frame {
    /// The iframes to enter from the top, with the origin the last one must show.
    fn path(self) -> (&'static [&'static str], Option<Site>) {
        match self {
            Frame::Shop => (&[], None),
            Frame::Widget => (&["#widget-frame"], Some(Site::Widget)),
            Frame::Pay => (&["#pay-frame"], Some(Site::Pay)),
            Frame::Evil => (&["#evil-frame"], Some(Site::Evil)),
            Frame::Impostor => (&["#evil-frame", "#impostor-frame"], Some(Site::Pay)),
            Frame::Opaque => (&["#evil-frame", "#opaque-frame"], None),
        }
    }
}

/// Every frame below the shop, in the order they are checked for readiness.
pub const FRAMES: [Frame; 5] = [Frame::Widget, Frame::Pay, Frame::Evil, Frame::Impostor, Frame::Opaque];

/// Enters `frame` from the top.
pub async fn enter(session: &Session, frame: Frame) -> E2eResult<()> {
    session.to_top().await?;
    for css in frame.path().0 {
        session.enter_frame(css).await?;
    }
    Ok(())
}

/// Runs `body` (the body of an async function; `args` in scope) in `frame`.
pub async fn run_in(session: &Session, frame: Frame, body: &str, args: Vec<Value>) -> E2eResult<Value> {
    enter(session, frame).await?;
    session.execute_async(body, args).await
}

/// Opens the victim shop (payments take `pay_delay_ms`) and waits until it and every frame in it are ready.
pub async fn open_arena(t: &Ctx, pay_delay_ms: u64) -> E2eResult<()> {
    open_arena_in(t, &t.session, pay_delay_ms).await
}

/// [`open_arena`] in another session than the case's own.
pub async fn open_arena_in(t: &Ctx, session: &Session, pay_delay_ms: u64) -> E2eResult<()> {
    session.open(&t.url(Site::Shop, &format!("/attack/victim.html?payDelayMs={pay_delay_ms}"))).await?;
    check_eq(session.wait_page_settled().await?, "ready".to_owned(), "victim shop page state")?;
    for frame in FRAMES {
        let (path, site) = frame.path();
        session.to_top().await?;
        let (last, outer) = path.split_last().ok_or_else(|| E2eError::Check(format!("{frame:?} has no path")))?;
        for css in outer {
            session.enter_frame(css).await?;
        }
        let origin = site.map_or("null", |site| t.origin(site));
        session.enter_frame_of(last, origin).await?;
        check_eq(session.wait_page_settled().await?, "ready".to_owned(), &format!("{frame:?} page state"))?;
    }
    session.to_top().await
}

/// Runs a widget command (`add 1 margherita`, `cart`, `checkout`) and returns the final state of its chip.
pub async fn widget_command(session: &Session, command: &str) -> E2eResult<String> {
    let state =
        run_in(session, Frame::Widget, "return await window.__demo.run(args[0]);", vec![json!(command)]).await?;
    Ok(state.as_str().unwrap_or_default().to_owned())
}

/// The widget's chips: `[tool, state, detail text]`, in order.
pub async fn widget_chips(session: &Session) -> E2eResult<Value> {
    run_in(
        session,
        Frame::Widget,
        "return [...document.querySelectorAll('.chip')].map((chip) => [chip.dataset.tool, chip.dataset.state, \
         chip.closest('li').querySelector('.call-detail').textContent]);",
        vec![],
    )
    .await
}

/// The victim's bridge warnings (console.warn lines that start with `interpane:`), in order.
pub async fn bridge_warnings(session: &Session) -> E2eResult<Vec<String>> {
    let warnings = run_in(
        session,
        Frame::Shop,
        "return window.__victim.warnings.filter((line) => line.startsWith('interpane:'));",
        vec![],
    )
    .await?;
    serde_json::from_value(warnings).map_err(|error| E2eError::Check(format!("unreadable warnings: {error}")))
}

/// The tools of `site` that ran during this case, with how often, leaving out `allowed` ones.
pub fn unexpected_runs(t: &Ctx, site: Site, allowed: &[&str]) -> Vec<(String, u64)> {
    t.demo()
        .counters_of(site)
        .into_iter()
        .filter_map(|(name, runs)| name.strip_prefix(t.counter_prefix()).map(|tool| (tool.to_owned(), runs)))
        .filter(|(tool, _)| !allowed.contains(&tool.as_str()))
        .collect()
}

/// Nothing ran on the shop or pay besides the `allowed` tools.
pub fn check_nothing_else_ran(t: &Ctx, allowed: &[&str]) -> E2eResult<()> {
    for site in [Site::Shop, Site::Pay] {
        check_eq(unexpected_runs(t, site, allowed), vec![], &format!("{site} tools that ran for the attacker"))?;
    }
    Ok(())
}

/// The end of every arena case: nothing the attackers received revealed anything (late answers included); the
/// shop's bridge never posted to '*' or to an opaque origin (counted without a cap); no frame's spy saw '*'.
pub async fn check_arena_clean(session: &Session) -> E2eResult<()> {
    for frame in [Frame::Evil, Frame::Impostor, Frame::Opaque] {
        let leak = run_in(session, frame, "return window.__attack.firstLeak();", vec![]).await?;
        check_eq(leak, Value::Null, &format!("what the {frame:?} attacker received during the whole case"))?;
    }
    let posts = run_in(session, Frame::Shop, "return window.__victim.bridgePosts;", vec![]).await?;
    for target in ["*", "null"] {
        check(posts.get(target).is_none(), || format!("the shop's bridge posted to {target:?}: {posts}"))?;
    }
    check_no_wildcard_posts(session).await.map(drop)
}
