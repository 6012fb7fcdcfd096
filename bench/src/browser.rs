//! The Chromium session of a run: the end-to-end harness's flags, plus precise memory figures, and a script
//! timeout long enough for a whole measurement.

use fantoccini::ClientBuilder;
use fantoccini::wd::Capabilities;
use hyper_util::client::legacy::connect::HttpConnector;
use interpane_e2e::browser::CHROMIUM_ARGS;
use interpane_e2e::{E2eError, Session};
use serde_json::json;

/// Flags added to the harness's: `performance.memory` without the coarse bucketing.
pub const EXTRA_ARGS: [&str; 1] = ["--enable-precise-memory-info"];

/// How long one measurement script may run, ms.
pub const SCRIPT_TIMEOUT_MS: u64 = 600_000;

/// The capabilities of the benchmark's session.
pub fn capabilities(chromium: &str) -> Capabilities {
    let args: Vec<&str> = CHROMIUM_ARGS.iter().chain(EXTRA_ARGS.iter()).copied().collect();
    let mut capabilities = Capabilities::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert("pageLoadStrategy".into(), json!("normal"));
    capabilities.insert("timeouts".into(), json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 60_000 }));
    capabilities.insert("goog:chromeOptions".into(), json!({ "binary": chromium, "args": args }));
    capabilities
}

/// Opens a Chromium session on the chromedriver at `driver_url`.
pub async fn open(driver_url: &str, chromium: &str) -> Result<Session, E2eError> {
    let client = ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities(chromium))
        .connect(driver_url)
        .await
        .map_err(|error| E2eError::NewSession {
            engine: "chromium",
            binary: chromium.to_owned(),
            message: error.to_string(),
        })?;
    Ok(Session::new(client))
}
