//! A WebDriver server process (chromedriver, geckodriver or WebKitWebDriver: [`Engine::driver`]), killed by its own
//! PID when the guard drops, with a temporary folder of its own removed after it.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::engine::Engine;
use crate::error::{E2eError, E2eResult};

/// How long a WebDriver server gets to start listening.
const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// A running WebDriver server. Dropping it kills exactly that process (by the PID it was started with), reaps it,
/// and removes its temporary folder.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    port: u16,
    /// The server's and its browsers' `TMPDIR`: the servers make each session's profile there and Chromium its
    /// singleton folder, and none removes them every time (a closed session left two folders behind, 2 MB).
    scratch: Option<tempfile::TempDir>,
}

impl Driver {
    /// Starts `engine`'s WebDriver server on a free loopback port and waits until it accepts connections. Its
    /// output goes to the file named by `E2E_DRIVER_LOG`, when set (appended: several servers may share it).
    pub fn start(engine: Engine) -> E2eResult<Driver> {
        let command = engine.driver();
        let (port, spare_port) = (free_port()?, free_port()?);
        let scratch = tempfile::Builder::new().prefix("interpane-webdriver-").tempdir().map_err(E2eError::Scratch)?;
        let mut process = Command::new(&command.binary);
        process.env("TMPDIR", scratch.path()).args((command.args)(port, spare_port)).stdin(Stdio::null());
        match std::env::var_os("E2E_DRIVER_LOG") {
            Some(log) => {
                let file =
                    std::fs::OpenOptions::new().create(true).append(true).open(&log).map_err(E2eError::Scratch)?;
                let copy = file.try_clone().map_err(E2eError::Scratch)?;
                process.stdout(file).stderr(copy);
            }
            None => {
                process.stdout(Stdio::null()).stderr(Stdio::null());
            }
        }
        let child = process.spawn().map_err(|source| E2eError::SpawnDriver {
            engine: engine.name(),
            path: command.binary.clone(),
            source,
        })?;
        // From here on, the guard owns the process: an early return below still kills it.
        let driver = Driver { child, port, scratch: Some(scratch) };
        driver.wait_until_listening()?;
        Ok(driver)
    }

    /// Starts a WebDriver server in a blocking task (for async code): see [`Driver::start`].
    pub async fn start_async(engine: Engine) -> E2eResult<Driver> {
        tokio::task::spawn_blocking(move || Driver::start(engine))
            .await
            .map_err(|error| E2eError::Check(format!("starting the {engine} WebDriver server: {error}")))?
    }

    /// The WebDriver URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The process id of the server.
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

impl Drop for Driver {
    fn drop(&mut self) {
        // Child::kill signals exactly this PID; wait reaps it so no zombie stays behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
        // After the process. A browser whose session was not closed outlives its server for a moment and may
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

/// A port that was free a moment ago (the servers need a number, not a socket).
fn free_port() -> E2eResult<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(E2eError::NoFreePort)?;
    Ok(listener.local_addr().map_err(E2eError::NoFreePort)?.port())
}
