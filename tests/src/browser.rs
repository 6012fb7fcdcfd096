//! Opening Chromium sessions through chromedriver.

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::chromedriver::ChromeDriver;
use crate::error::{E2eError, E2eResult};
use crate::session::Session;

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

/// The flag that turns the browser's own WebMCP on in Debian's Chromium 156 (docs/native.md).
pub const NATIVE_WEBMCP_ARG: &str = "--enable-features=WebMCP";

/// The environment variable that runs the end-to-end suite in native mode: every session's Chromium gets
/// [`NATIVE_WEBMCP_ARG`] when it is `1` (scripts/test.sh's step `e2e-native`).
pub const NATIVE_ENV: &str = "E2E_NATIVE";

/// How long one `execute_async` script may run.
pub const SCRIPT_TIMEOUT_MS: u64 = 30_000;

/// The Chromium binary from `CHROMIUM`, or [`DEFAULT_CHROMIUM`].
pub fn chromium_from_env() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| DEFAULT_CHROMIUM.to_owned())
}

/// Whether this run is in native mode: `E2E_NATIVE=1` (anything else, or nothing, is the bridge-only mode).
pub fn native_mode() -> bool {
    std::env::var(NATIVE_ENV).is_ok_and(|value| value == "1")
}

/// The run's mode, as the suite prints it.
pub fn mode_description() -> &'static str {
    if native_mode() {
        "native: Chromium with --enable-features=WebMCP (E2E_NATIVE=1)"
    } else {
        "bridge only: Chromium without native WebMCP (E2E_NATIVE=1 runs the native mode)"
    }
}

/// Chromium's flags in this run's mode: [`CHROMIUM_ARGS`], and [`NATIVE_WEBMCP_ARG`] in native mode.
pub fn chromium_args() -> Vec<&'static str> {
    let mut args = CHROMIUM_ARGS.to_vec();
    if native_mode() {
        args.push(NATIVE_WEBMCP_ARG);
    }
    args
}

/// The WebDriver capabilities of a session, in this run's mode (see [`native_mode`]).
pub fn capabilities(chromium: &str) -> Capabilities {
    let mut capabilities = Capabilities::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert("pageLoadStrategy".into(), json!("normal"));
    capabilities.insert("timeouts".into(), json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 30_000 }));
    capabilities.insert("goog:chromeOptions".into(), json!({ "binary": chromium, "args": chromium_args() }));
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

/// A chromedriver and a Chromium of a case's own, with `extra_args` after this run's flags (for a case that needs
/// another Chromium than the suite's, e.g. precise memory figures or native WebMCP). Dropping the chromedriver
/// guard ends it by its PID: close the session first.
pub async fn own_chromium(extra_args: &[&str]) -> E2eResult<(ChromeDriver, Session)> {
    let driver = tokio::task::spawn_blocking(|| ChromeDriver::start(&ChromeDriver::binary_from_env()))
        .await
        .map_err(|error| E2eError::Check(format!("starting chromedriver: {error}")))??;
    let chromium = chromium_from_env();
    let mut wanted = capabilities(&chromium);
    let args = wanted
        .get_mut("goog:chromeOptions")
        .and_then(|options| options.get_mut("args"))
        .and_then(serde_json::Value::as_array_mut)
        .ok_or_else(|| E2eError::Check("the harness's capabilities have no Chromium args".into()))?;
    args.extend(extra_args.iter().map(|arg| json!(arg)));
    let client =
        ClientBuilder::new(HttpConnector::new()).capabilities(wanted).connect(&driver.url()).await.map_err(
            |error| E2eError::NewSession { binary: chromium, message: format!("with {extra_args:?}: {error}") },
        )?;
    Ok((driver, Session::new(client)))
}
