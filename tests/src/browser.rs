//! Opening Chromium sessions through chromedriver.

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::error::{E2eError, E2eResult};

/// Default Chromium binary; the `CHROMIUM` environment variable overrides it.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// Chromium's flags. Third-party storage partitioning keeps its default (on): nothing here disables it.
pub const CHROMIUM_ARGS: [&str; 9] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
];

/// How long one `execute_async` script may run.
pub const SCRIPT_TIMEOUT_MS: u64 = 30_000;

/// The Chromium binary from `CHROMIUM`, or [`DEFAULT_CHROMIUM`].
pub fn chromium_from_env() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| DEFAULT_CHROMIUM.to_owned())
}

/// The WebDriver capabilities of a session.
pub fn capabilities(chromium: &str) -> Capabilities {
    let mut capabilities = Capabilities::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert("pageLoadStrategy".into(), json!("normal"));
    capabilities.insert("timeouts".into(), json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 30_000 }));
    capabilities.insert("goog:chromeOptions".into(), json!({ "binary": chromium, "args": CHROMIUM_ARGS }));
    capabilities
}

/// Opens a new Chromium session on the chromedriver at `driver_url` (plain HTTP on loopback).
pub async fn new_session(driver_url: &str, chromium: &str) -> E2eResult<Client> {
    ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities(chromium))
        .connect(driver_url)
        .await
        .map_err(|error| E2eError::NewSession { binary: chromium.to_owned(), message: error.to_string() })
}
