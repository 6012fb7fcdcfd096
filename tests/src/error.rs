//! Errors of the end-to-end harness.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// What went wrong while setting up or running an end-to-end test.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum E2eError {
    /// A WebDriver server could not be started.
    #[error(
        "cannot start the {engine} WebDriver server at {path}: {source} (scripts/setup.sh installs it; \
         CHROMEDRIVER, GECKODRIVER or WEBKIT_WEBDRIVER names another)"
    )]
    SpawnDriver {
        /// The engine whose server it is.
        engine: &'static str,
        /// The binary that was run.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A WebDriver server started but did not listen in time.
    #[error(
        "the WebDriver server did not accept connections on port {port} within {waited:?}: is it the right binary?"
    )]
    DriverNotReady {
        /// The port it was told to use.
        port: u16,
        /// How long the harness waited.
        waited: Duration,
    },
    /// A free port for a WebDriver server could not be found.
    #[error("cannot find a free loopback port for a WebDriver server: {0}")]
    NoFreePort(io::Error),
    /// The temporary folder (or the log file) of a WebDriver server and its browsers could not be made.
    #[error("cannot make a temporary folder or log file for a WebDriver server: {0}")]
    Scratch(io::Error),
    /// A browser session could not be opened.
    #[error(
        "cannot open a {engine} session (binary {binary}): {message} (CHROMIUM, FIREFOX or MINIBROWSER names \
         another binary{display})",
        display = if *engine == "webkit" { "; WebKitGTK needs a display: run under xvfb-run -a" } else { "" }
    )]
    NewSession {
        /// The engine asked for.
        engine: &'static str,
        /// The browser binary asked for.
        binary: String,
        /// What the WebDriver server said.
        message: String,
    },
    /// `E2E_ENGINE` names no engine the suites know.
    #[error("E2E_ENGINE={0:?} is not an engine of the suites: use chromium, firefox or webkit")]
    UnknownEngine(String),
    /// Native WebMCP was asked of an engine that has none.
    #[error("E2E_NATIVE=1 needs Chromium (native WebMCP is Chromium's), but E2E_ENGINE is {0}")]
    NativeNeedsChromium(&'static str),
    /// A WebDriver command failed.
    #[error("webdriver command failed while {doing}: {source}")]
    Command {
        /// What the harness was doing.
        doing: String,
        /// What the WebDriver server said.
        source: fantoccini::error::CmdError,
    },
    /// Page JavaScript threw or rejected.
    #[error("script failed while {doing}: {message}")]
    Script {
        /// What the harness was doing.
        doing: String,
        /// The error as the page reported it.
        message: String,
    },
    /// A condition did not hold before its deadline.
    #[error("timed out after {waited:?} waiting for {what}; last value: {last}")]
    Timeout {
        /// The condition.
        what: String,
        /// How long the harness waited.
        waited: Duration,
        /// The condition's last value, as JSON.
        last: String,
    },
    /// A check of the test failed.
    #[error("{0}")]
    Check(String),
    /// The demo server failed.
    #[error("demo server: {0}")]
    Demo(#[from] interpane_demo_sites::DemoError),
    /// The async runtime could not be built.
    #[error("cannot build the tokio runtime: {0}")]
    Runtime(io::Error),
}

/// Result of the harness.
pub type E2eResult<T> = Result<T, E2eError>;

/// Adds what the harness was doing to a WebDriver error.
pub trait Doing<T> {
    /// Wraps the error with `doing`.
    fn doing(self, doing: impl Into<String>) -> E2eResult<T>;
}

impl<T> Doing<T> for Result<T, fantoccini::error::CmdError> {
    fn doing(self, doing: impl Into<String>) -> E2eResult<T> {
        self.map_err(|source| E2eError::Command { doing: doing.into(), source })
    }
}

/// Fails the test with `message` unless `condition` holds.
pub fn check(condition: bool, message: impl FnOnce() -> String) -> E2eResult<()> {
    if condition { Ok(()) } else { Err(E2eError::Check(message())) }
}

/// Fails the test unless `actual == expected`, showing both.
pub fn check_eq<T: PartialEq + std::fmt::Debug>(actual: T, expected: T, what: &str) -> E2eResult<()> {
    check(actual == expected, || format!("{what}: expected {expected:?}, got {actual:?}"))
}
