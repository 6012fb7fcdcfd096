//! One browser session on the running demo, with a counter prefix of its own, and the widget's commands.

use std::sync::Arc;
use std::time::Duration;

use interpane_demo_sites::{RunningDemo, Site};
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{E2eError, E2eResult, Session, check_eq};
use serde::Deserialize;
use serde_json::{Value, json};

/// A browser session and the counter prefix of the pages it opens (so two visits never share counters).
#[derive(Clone, Debug)]
pub struct Visit {
    /// The browser session.
    pub session: Session,
    demo: Arc<RunningDemo>,
    prefix: String,
}

/// A chip of the widget's transcript, as its data attributes and text show it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Chip {
    /// The tool called.
    pub tool: String,
    /// `running`, `completed`, `failed`, `stopped` or `interrupted`.
    pub state: String,
    /// The error's status, on failures.
    pub status: Option<String>,
    /// The error's retryAfter, on failures.
    #[serde(rename = "retryAfter")]
    pub retry_after: Option<String>,
    /// `"true"` when the call settled in a later page than the one that started it.
    pub recovered: Option<String>,
    /// The line under the chip: the result's text, or the error described.
    pub detail: String,
    /// The path the call took, as the chip shows it: `bridge` (the bridge's protocol) or `native`.
    pub path: Option<String>,
}

/// Reads every chip of the widget (the current frame must be the widget).
const READ_CHIPS: &str = "return [...document.querySelectorAll('.chip')].map((chip) => ({ \
    tool: chip.dataset.tool, state: chip.dataset.state, status: chip.dataset.status ?? null, \
    retryAfter: chip.dataset.retryAfter ?? null, recovered: chip.dataset.recovered ?? null, \
    path: chip.dataset.path ?? null, \
    detail: chip.closest('.message')?.querySelector('.call-detail')?.textContent ?? '' }));";

impl Visit {
    /// A visit whose pages count their tools' runs under `prefix` (e.g. `main.`).
    pub fn new(session: Session, demo: Arc<RunningDemo>, prefix: &str) -> Self {
        Visit { session, demo, prefix: prefix.to_owned() }
    }

    /// The running demo.
    pub fn demo(&self) -> &RunningDemo {
        &self.demo
    }

    /// The counter prefix of this visit.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The URL of `path` on `site`, with this visit's `counterPrefix`.
    pub fn url(&self, site: Site, path: &str) -> String {
        let separator = if path.contains('?') { '&' } else { '?' };
        format!("{}{path}{separator}counterPrefix={}", self.demo.origin(site), self.prefix)
    }

    /// How many times `site`'s pages of this visit ran `tool`, as the server counted.
    pub fn counter(&self, site: Site, tool: &str) -> u64 {
        self.demo.counter(site, &format!("{}{tool}", self.prefix))
    }

    /// Waits until the server has counted `at_least` runs of `site`'s `tool` (the pages count a run first).
    pub async fn wait_counter(&self, site: Site, tool: &str, at_least: u64, timeout: Duration) -> E2eResult<()> {
        let started = std::time::Instant::now();
        while self.counter(site, tool) < at_least {
            if started.elapsed() >= timeout {
                return Err(E2eError::Timeout {
                    what: format!("{site}'s {tool} to run {at_least} time(s)"),
                    waited: timeout,
                    last: self.counter(site, tool).to_string(),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(())
    }

    /// Opens the shop at `path` (e.g. `/?payDelayMs=100`), waits until it is ready, and enters the widget
    /// once the widget is ready too.
    pub async fn open_shop(&self, path: &str) -> E2eResult<()> {
        self.session.open(&self.url(Site::Shop, path)).await?;
        self.expect_settled("shop", "ready").await?;
        self.enter_widget().await
    }

    /// From anywhere in the session: enters the shop's widget frame and waits until it is ready.
    pub async fn enter_widget(&self) -> E2eResult<()> {
        self.session.to_top().await?;
        self.session.enter_frame_of("#widget-frame", self.demo.origin(Site::Widget)).await?;
        self.expect_settled("widget", "ready").await
    }

    /// Waits until the current page settles and checks that it settled as `expected`; the frames' states are
    /// part of the error otherwise.
    pub async fn expect_settled(&self, page: &str, expected: &str) -> E2eResult<()> {
        let state = match self.session.wait_page_settled().await {
            Ok(state) => state,
            Err(error) => return Err(self.with_frames(error).await),
        };
        if state == expected {
            return Ok(());
        }
        let error = E2eError::Check(format!("the {page} page settled as {state:?}, not {expected:?}"));
        Err(self.with_frames(error).await)
    }

    /// Adds every frame's state to `error` (what a failed wait should show).
    pub async fn with_frames(&self, error: E2eError) -> E2eError {
        match self.session.describe_frames().await {
            Ok(frames) => E2eError::Check(format!("{error}\nframes:\n{frames}")),
            Err(_) => error,
        }
    }

    /// Runs a widget command (the current frame must be the widget); resolves to its chip's final state.
    pub async fn run(&self, command: &str) -> E2eResult<String> {
        let state =
            self.session.execute_async("return await window.__demo.run(args[0]);", vec![json!(command)]).await?;
        Ok(state.as_str().unwrap_or_default().to_owned())
    }

    /// Runs a widget command and checks that its chip ended as `expected`.
    pub async fn run_expecting(&self, command: &str, expected: &str) -> E2eResult<()> {
        check_eq(self.run(command).await?.as_str(), expected, &format!("the chip of `{command}`"))
    }

    /// Every chip of the widget, in order (the current frame must be the widget).
    pub async fn chips(&self) -> E2eResult<Vec<Chip>> {
        let raw = self.session.execute(READ_CHIPS, vec![]).await?;
        serde_json::from_value(raw).map_err(|error| E2eError::Check(format!("unreadable chips: {error}")))
    }

    /// The widget's last chip.
    pub async fn last_chip(&self) -> E2eResult<Chip> {
        self.chips().await?.pop().ok_or_else(|| E2eError::Check("the widget shows no chip".into()))
    }

    /// The text of the first element matching `css` in the top document ("" when there is none).
    pub async fn top_text(&self, css: &str) -> E2eResult<String> {
        self.session.to_top().await?;
        let text = self
            .session
            .execute("return document.querySelector(arguments[0])?.textContent ?? '';", vec![json!(css)])
            .await?;
        Ok(text.as_str().unwrap_or_default().trim().to_owned())
    }
}

/// The names in a JSON array of strings, sorted.
pub fn sorted_names(value: &Value) -> Vec<String> {
    let mut names: Vec<String> =
        value.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
    names.sort();
    names
}

/// How long to wait for something a page does after a reload.
pub const RELOAD_WAIT: Duration = Duration::from_secs(20);

/// Re-exported so the checks can wait with the harness default.
pub const WAIT: Duration = DEFAULT_WAIT;
