//! The browser engines the suites run in, each driven through its own WebDriver server: Chromium (chromedriver),
//! Firefox ESR (geckodriver) and WebKitGTK's MiniBrowser (WebKitWebDriver), the engine of Safari.
//!
//! `E2E_ENGINE` picks the engine of a run (`chromium`, the default, `firefox` or `webkit`); scripts/test.sh runs
//! the suite once per engine (steps `e2e`, `e2e-native`, `e2e-firefox`, `e2e-webkit`). The binaries can be named
//! by environment variables: `CHROMEDRIVER`/`CHROMIUM`, `GECKODRIVER`/`FIREFOX`, `WEBKIT_WEBDRIVER`/`MINIBROWSER`.

use std::fmt;
use std::path::PathBuf;

use fantoccini::wd::Capabilities;
use serde_json::json;

use crate::browser::{SCRIPT_TIMEOUT_MS, chromium_capabilities, chromium_from_env, native_mode};
use crate::error::{E2eError, E2eResult};

/// The environment variable that picks a run's engine.
pub const ENGINE_ENV: &str = "E2E_ENGINE";

/// A browser engine the suites run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Chromium, through chromedriver (with or without native WebMCP: [`native_mode`]).
    Chromium,
    /// Firefox ESR, through geckodriver, headless.
    Firefox,
    /// WebKitGTK's MiniBrowser, through WebKitWebDriver. It has no headless mode: it needs a display (Xvfb).
    WebKit,
}

/// What a run needs to know to start an engine's WebDriver server.
#[derive(Clone, Debug)]
pub struct DriverCommand {
    /// The server's binary.
    pub binary: PathBuf,
    /// Its arguments, given the port it is to listen on and a second free port (geckodriver's WebSocket port, so
    /// that two Firefoxes never ask for the same one).
    pub args: fn(port: u16, spare_port: u16) -> Vec<String>,
}

impl Engine {
    /// Every engine, in the order the test command runs them.
    pub const ALL: [Engine; 3] = [Engine::Chromium, Engine::Firefox, Engine::WebKit];

    /// The name `E2E_ENGINE` and `--engine` take.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::WebKit => "webkit",
        }
    }

    /// The engine called `name` (see [`Engine::name`]).
    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|engine| engine.name() == name)
    }

    /// The engine named by `E2E_ENGINE` (Chromium when unset). Fails for an unknown name, and for native WebMCP
    /// (`E2E_NATIVE=1`) asked of an engine that has none.
    pub fn from_env() -> E2eResult<Engine> {
        let engine = match std::env::var(ENGINE_ENV) {
            Ok(name) if !name.is_empty() => Engine::parse(&name).ok_or(E2eError::UnknownEngine(name))?,
            _ => Engine::Chromium,
        };
        if native_mode() && engine != Engine::Chromium {
            return Err(E2eError::NativeNeedsChromium(engine.name()));
        }
        Ok(engine)
    }

    /// The browser binary: from the engine's environment variable, or Debian's path.
    pub fn browser_binary(self) -> String {
        match self {
            Engine::Chromium => chromium_from_env(),
            Engine::Firefox => env_or("FIREFOX", "/usr/bin/firefox-esr"),
            Engine::WebKit => env_or("MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"),
        }
    }

    /// How to start the engine's WebDriver server.
    pub fn driver(self) -> DriverCommand {
        match self {
            Engine::Chromium => DriverCommand {
                binary: env_or("CHROMEDRIVER", "/usr/bin/chromedriver").into(),
                args: |port, _| vec![format!("--port={port}")],
            },
            Engine::Firefox => DriverCommand {
                binary: std::env::var_os("GECKODRIVER").map_or_else(default_geckodriver, PathBuf::from),
                args: |port, spare| {
                    vec![
                        "--host=127.0.0.1".into(),
                        format!("--port={port}"),
                        format!("--websocket-port={spare}"),
                        "--log=warn".into(),
                    ]
                },
            },
            Engine::WebKit => DriverCommand {
                binary: env_or("WEBKIT_WEBDRIVER", "/usr/bin/WebKitWebDriver").into(),
                args: |port, _| vec![format!("--port={port}")],
            },
        }
    }

    /// The WebDriver capabilities of a new session of this engine, in this run's mode.
    pub fn capabilities(self) -> Capabilities {
        let binary = self.browser_binary();
        let mut capabilities = Capabilities::new();
        capabilities.insert("pageLoadStrategy".into(), json!("normal"));
        capabilities.insert("timeouts".into(), json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 30_000 }));
        match self {
            Engine::Chromium => return chromium_capabilities(&binary),
            Engine::Firefox => {
                capabilities.insert("browserName".into(), json!("firefox"));
                capabilities.insert(
                    "moz:firefoxOptions".into(),
                    json!({ "binary": binary, "args": ["-headless", "-width=1280", "-height=900"], "prefs": firefox_prefs() }),
                );
            }
            Engine::WebKit => {
                capabilities.insert("browserName".into(), json!("MiniBrowser"));
                capabilities
                    .insert("webkitgtk:browserOptions".into(), json!({ "binary": binary, "args": MINIBROWSER_ARGS }));
            }
        }
        capabilities
    }

    /// Whether the engine has the Navigation API (`window.navigation` and its `navigate` event), by which a caller's
    /// page tells a navigation away from a reload (docs/once-only.md §2). WebKitGTK 2.50 has none.
    pub fn has_navigation_api(self) -> bool {
        self != Engine::WebKit
    }

    /// Whether a window that `window.open` opens on a page's own address gets a copy of the sessionStorage of the
    /// page's cross-site frames, as it gets the page's own (a duplicated tab's state). Chromium and WebKitGTK copy
    /// the frames' partitions too; Firefox ESR 153 copies the top-level page's storage only, so the copy's
    /// cross-site frames start empty.
    pub fn copies_frame_storage_into_opened_windows(self) -> bool {
        self != Engine::Firefox
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// MiniBrowser's arguments: driven by WebKitWebDriver, and popups opened without a click, as chromedriver and
/// geckodriver allow them (the popup cases).
const MINIBROWSER_ARGS: [&str; 2] = ["--automation", "--javascript-can-open-windows-automatically=true"];

/// Firefox preferences of every session: no connection that is not the test's own (the machines have no network
/// but loopback: a background request fails slowly). Third-party storage partitioning keeps its default (on).
fn firefox_prefs() -> serde_json::Value {
    json!({
        "network.captive-portal-service.enabled": false,
        "network.connectivity-service.enabled": false,
        "browser.safebrowsing.malware.enabled": false,
        "browser.safebrowsing.phishing.enabled": false,
        "browser.safebrowsing.downloads.enabled": false,
        "browser.safebrowsing.blockedURIs.enabled": false,
        "datareporting.policy.dataSubmissionEnabled": false,
        "toolkit.telemetry.enabled": false,
        "app.normandy.enabled": false,
        "extensions.update.enabled": false,
        "browser.region.network.url": "",
        "dom.disable_open_during_load": false,
    })
}

fn env_or(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_owned())
}

/// `cargo install geckodriver` puts it in Cargo's bin folder, which need not be on `PATH`.
fn default_geckodriver() -> PathBuf {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    match cargo_home.map(|home| home.join("bin/geckodriver")) {
        Some(path) if path.is_file() => path,
        _ => PathBuf::from("geckodriver"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_parse_from_their_names_only() {
        for engine in Engine::ALL {
            assert_eq!(Engine::parse(engine.name()), Some(engine));
        }
        assert_eq!(Engine::parse("Firefox"), None);
        assert_eq!(Engine::parse("safari"), None);
        assert_eq!(Engine::parse(""), None);
    }

    #[test]
    fn each_engine_asks_for_its_own_browser() {
        let firefox = Engine::Firefox.capabilities();
        assert_eq!(firefox["browserName"], "firefox");
        assert_eq!(firefox["moz:firefoxOptions"]["args"][0], "-headless");
        let webkit = Engine::WebKit.capabilities();
        assert_eq!(webkit["webkitgtk:browserOptions"]["args"][0], "--automation");
        let geckodriver = (Engine::Firefox.driver().args)(4444, 4445);
        assert!(geckodriver.contains(&"--websocket-port=4445".to_owned()), "{geckodriver:?}");
    }
}
