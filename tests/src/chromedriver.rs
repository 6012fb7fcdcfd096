//! One chromedriver process for the whole run, killed by its own PID when the guard drops, with a temporary folder
//! of its own removed after it.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{E2eError, E2eResult};

/// Default chromedriver binary; the `CHROMEDRIVER` environment variable overrides it.
pub const DEFAULT_CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long chromedriver gets to start listening.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// A running chromedriver. Dropping it kills exactly that process (by the PID it was started with), reaps it, and
/// removes its temporary folder.
#[derive(Debug)]
pub struct ChromeDriver {
    child: Child,
    port: u16,
    /// chromedriver's and its Chromiums' `TMPDIR`: chromedriver makes each session's profile there and Chromium its
    /// singleton folder, and neither removes them every time (a closed session left two folders behind, 2 MB).
    scratch: Option<tempfile::TempDir>,
}

impl ChromeDriver {
    /// The binary from `CHROMEDRIVER`, or [`DEFAULT_CHROMEDRIVER`].
    pub fn binary_from_env() -> PathBuf {
        std::env::var_os("CHROMEDRIVER").map_or_else(|| PathBuf::from(DEFAULT_CHROMEDRIVER), PathBuf::from)
    }

    /// Starts `binary` on a free loopback port and waits until it accepts connections.
    /// Its log goes to the file named by `E2E_CHROMEDRIVER_LOG`, when set.
    pub fn start(binary: &Path) -> E2eResult<ChromeDriver> {
        let port = free_port()?;
        let scratch =
            tempfile::Builder::new().prefix("interpane-chromedriver-").tempdir().map_err(E2eError::Scratch)?;
        let mut command = Command::new(binary);
        command
            .env("TMPDIR", scratch.path())
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(log) = std::env::var_os("E2E_CHROMEDRIVER_LOG") {
            let mut flag = std::ffi::OsString::from("--log-path=");
            flag.push(log);
            command.arg(flag).arg("--verbose");
        }
        let child = command.spawn().map_err(|source| E2eError::SpawnDriver { path: binary.to_path_buf(), source })?;
        // From here on, the guard owns the process: an early return below still kills it.
        let driver = ChromeDriver { child, port, scratch: Some(scratch) };
        driver.wait_until_listening()?;
        Ok(driver)
    }

    /// The WebDriver URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The process id of chromedriver.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn wait_until_listening(&self) -> E2eResult<()> {
        let started = Instant::now();
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        while started.elapsed() < READY_TIMEOUT {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Err(E2eError::DriverNotReady { port: self.port, waited: READY_TIMEOUT })
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // Child::kill signals exactly this PID; wait reaps it so no zombie stays behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
        // After the process. A Chromium whose session was not closed outlives its chromedriver for a moment and may
        // still write its profile there: the removal is tried again for up to two seconds.
        if let Some(scratch) = self.scratch.take() {
            let folder = scratch.keep();
            for _ in 0..20 {
                if std::fs::remove_dir_all(&folder).is_ok() || !folder.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// A port that was free a moment ago (chromedriver needs a number, not a socket).
fn free_port() -> E2eResult<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(E2eError::NoFreePort)?;
    Ok(listener.local_addr().map_err(E2eError::NoFreePort)?.port())
}
