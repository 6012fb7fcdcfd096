//! Runs named checks one after another, timing each, and collects their rows.

use std::future::Future;
use std::time::{Duration, Instant};

use interpane_e2e::E2eResult;

use super::report::{CheckRow, Report};

/// No single check may take longer than this (the attacker pages need about 20 s on a loaded machine).
const CHECK_TIMEOUT: Duration = Duration::from_secs(120);

/// The checks of one browser session, in the order they ran.
#[derive(Debug, Default)]
pub struct Checks {
    report: Report,
}

impl Checks {
    /// Runs `check`, which resolves to what it saw, and records it under `name`. Returns whether it passed.
    pub async fn run(&mut self, name: &str, check: impl Future<Output = E2eResult<String>>) -> bool {
        let started = Instant::now();
        let outcome = match tokio::time::timeout(CHECK_TIMEOUT, check).await {
            Ok(outcome) => outcome.map_err(|error| error.to_string()),
            Err(_elapsed) => Err(format!("did not finish within {CHECK_TIMEOUT:?}")),
        };
        self.record(name, outcome, started.elapsed())
    }

    /// Records a check that was decided without running anything (e.g. one that could not start).
    pub fn record(&mut self, name: &str, outcome: Result<String, String>, took: Duration) -> bool {
        let passed = outcome.is_ok();
        let first_line = match &outcome {
            Ok(detail) | Err(detail) => detail.lines().next().unwrap_or_default().to_owned(),
        };
        eprintln!(
            "[demo-check] {} {name} ({:.1} s): {first_line}",
            if passed { "ok  " } else { "FAIL" },
            took.as_secs_f64()
        );
        self.report.push(CheckRow { name: name.to_owned(), outcome, took });
        passed
    }

    /// The rows recorded so far.
    pub fn into_report(self) -> Report {
        self.report
    }
}
