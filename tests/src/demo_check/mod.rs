//! The checks of `demo-check` (`scripts/demo.sh --check`): the demo scenario in a browser (headless Chromium by
//! default, Firefox or WebKit with `--engine`), as a table.
//!
//! Two browser sessions at most run at once (the machines have two cores): one goes through the shop, the
//! widget and pay, then the two reloads in fresh sessions; the other opens the two attacker pages. Every visit
//! has its own counter prefix, so each count the server reports belongs to one check.

pub mod args;
mod attacker;
mod reload;
pub mod report;
mod runner;
mod scenario;
mod screenshot;
mod spy_tally;
mod visit;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use interpane_demo_sites::RunningDemo;
use interpane_e2e::browser::new_session;
use interpane_e2e::{Engine, Session};

use self::reload::Reloaded;
use self::report::Report;
use self::runner::Checks;
use self::spy_tally::PageSpy;
use self::visit::Visit;

/// What the checks need: the running demo, the engine's WebDriver servers, and where a screenshot goes.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The demo server, running in this process.
    pub demo: Arc<RunningDemo>,
    /// The engine the checks run in.
    pub engine: Engine,
    /// The WebDriver URLs of two servers, one per group of checks (the shop's, the attacker's): geckodriver and
    /// WebKitWebDriver drive one session each.
    pub driver_urls: [String; 2],
    /// Where to write the screenshot, when asked.
    pub screenshot: Option<PathBuf>,
}

/// Runs every check and returns the table.
pub async fn run(setup: &Setup) -> Report {
    let ((mut report, mut spies), (attacker_report, attacker_spies)) =
        tokio::join!(shop_group(setup), attacker_group(setup));
    report.extend(attacker_report);
    spies.extend(attacker_spies);
    let mut spy_check = Checks::default();
    spy_check.record("no bridge post to '*' (spy)", spy_tally::verdict(&spies), Duration::ZERO);
    report.extend(spy_check.into_report());
    report
}

/// The main scenario, then a reload of the widget and one of the shop mid-checkout, then the screenshot when
/// asked, each in a fresh session.
async fn shop_group(setup: &Setup) -> (Report, Vec<PageSpy>) {
    let mut checks = Checks::default();
    let mut spies = Vec::new();
    if let Some(session) = open_session(setup, SHOP_GROUP, &mut checks).await {
        let visit = Visit::new(session.clone(), setup.demo.clone(), "main.");
        spies.push(scenario::run(&visit, &mut checks).await);
        close(session).await;
    }
    for (reloaded, prefix) in [(Reloaded::Widget, "reload-widget."), (Reloaded::Shop, "reload-shop.")] {
        if let Some(session) = open_session(setup, SHOP_GROUP, &mut checks).await {
            let visit = Visit::new(session.clone(), setup.demo.clone(), prefix);
            spies.push(reload::run(&visit, &mut checks, reloaded).await);
            close(session).await;
        }
    }
    if let Some(path) = &setup.screenshot
        && let Some(session) = open_session(setup, SHOP_GROUP, &mut checks).await
    {
        let visit = Visit::new(session.clone(), setup.demo.clone(), "screenshot.");
        spies.push(screenshot::run(&visit, &mut checks, path).await);
        close(session).await;
    }
    (checks.into_report(), spies)
}

/// The attacker page, then the sandboxed attacker page, in one session.
async fn attacker_group(setup: &Setup) -> (Report, Vec<PageSpy>) {
    let mut checks = Checks::default();
    let mut spies = Vec::new();
    if let Some(session) = open_session(setup, ATTACKER_GROUP, &mut checks).await {
        let evil = Visit::new(session.clone(), setup.demo.clone(), "evil.");
        spies.push(attacker::run(&evil, &mut checks, "evil page gets nothing", "/").await);
        let sandboxed = Visit::new(session.clone(), setup.demo.clone(), "sandboxed.");
        spies.push(attacker::run(&sandboxed, &mut checks, "sandboxed page gets nothing", "/opaque.html").await);
        close(session).await;
    }
    (checks.into_report(), spies)
}

/// The index of the shop group's WebDriver server in [`Setup::driver_urls`].
const SHOP_GROUP: usize = 0;
/// The index of the attacker group's WebDriver server in [`Setup::driver_urls`].
const ATTACKER_GROUP: usize = 1;

/// A new session on the group's server, or a failed row that says why there is none.
async fn open_session(setup: &Setup, group: usize, checks: &mut Checks) -> Option<Session> {
    match new_session(&setup.driver_urls[group], setup.engine).await {
        Ok(client) => Some(Session::new(client)),
        Err(error) => {
            checks.record(&format!("open a {} session", setup.engine), Err(error.to_string()), Duration::ZERO);
            None
        }
    }
}

async fn close(session: Session) {
    if let Err(error) = session.close().await {
        eprintln!("[demo-check] {error}");
    }
}
