//! Opening browser sessions through an engine's WebDriver server, and Chromium's flags and modes.

use fantoccini::wd::Capabilities;
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::driver::Driver;
use crate::engine::Engine;
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

/// The run's engine and mode, as the suites print them.
pub fn mode_description(engine: Engine) -> String {
    match engine {
        Engine::Chromium if native_mode() => "native: Chromium with --enable-features=WebMCP (E2E_NATIVE=1)".into(),
        Engine::Chromium => "bridge only: Chromium without native WebMCP (E2E_NATIVE=1 runs the native mode)".into(),
        other => format!("bridge only: {other} ({}), which has no native WebMCP", other.browser_binary()),
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

/// The WebDriver capabilities of a Chromium session, in this run's mode (see [`native_mode`]).
pub fn chromium_capabilities(chromium: &str) -> Capabilities {
    let mut capabilities = Capabilities::new();
    capabilities.insert("browserName".into(), json!("chrome"));
    capabilities.insert("pageLoadStrategy".into(), json!("normal"));
    capabilities.insert("timeouts".into(), json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 30_000 }));
    capabilities.insert("goog:chromeOptions".into(), json!({ "binary": chromium, "args": chromium_args() }));
    capabilities
}

/// Opens a new session of `engine` on its WebDriver server at `driver_url` (plain HTTP on loopback).
pub async fn new_session(driver_url: &str, engine: Engine) -> E2eResult<Client> {
    connect(driver_url, engine, engine.capabilities()).await
}

/// Opens a session of `engine` with `capabilities` on the WebDriver server at `driver_url`.
pub async fn connect(driver_url: &str, engine: Engine, capabilities: Capabilities) -> E2eResult<Client> {
    ClientBuilder::new(HttpConnector::new()).capabilities(capabilities).connect(driver_url).await.map_err(|error| {
        E2eError::NewSession { engine: engine.name(), binary: engine.browser_binary(), message: error.to_string() }
    })
}

/// A chromedriver and a Chromium of a case's own, with `extra_args` after this run's flags (for a case that needs
/// another Chromium than the suite's, e.g. precise memory figures or native WebMCP). Dropping the chromedriver
/// guard ends it by its PID: close the session first. Only for a case that runs in Chromium ([`crate::Case::only_in`]).
pub async fn own_chromium(extra_args: &[&str]) -> E2eResult<(Driver, Session)> {
    let driver = Driver::start_async(Engine::Chromium).await?;
    let mut wanted = chromium_capabilities(&chromium_from_env());
    let args = wanted
        .get_mut("goog:chromeOptions")
        .and_then(|options| options.get_mut("args"))
        .and_then(serde_json::Value::as_array_mut)
        .ok_or_else(|| E2eError::Check("the harness's capabilities have no Chromium args".into()))?;
    args.extend(extra_args.iter().map(|arg| json!(arg)));
    let client = connect(&driver.url(), Engine::Chromium, wanted).await?;
    Ok((driver, Session::new(client)))
}
