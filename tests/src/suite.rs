//! The shared fixture of a run (demo server, chromedriver, runtime) and the runner of test cases.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use interpane_demo_sites::{DemoConfig, DemoServer, RunningDemo, Site};
use libtest_mimic::{Arguments, Failed, Trial};
use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

use crate::browser::{chromium_from_env, mode_description, new_session};
use crate::chromedriver::ChromeDriver;
use crate::error::{E2eError, E2eResult};
use crate::session::Session;

/// At most this many browser sessions run at once (the machines have two cores).
pub const MAX_SESSIONS: usize = 2;

/// The future of one test case.
pub type CaseFuture = Pin<Box<dyn Future<Output = E2eResult<()>> + Send>>;

/// One end-to-end test: a name (`area::what_it_shows`) and its body.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The name filters match.
    pub name: &'static str,
    /// The body, given a fresh browser session.
    pub run: fn(Ctx) -> CaseFuture,
}

/// `case!("area::name", async_fn)` makes a [`Case`] of an `async fn(Ctx) -> E2eResult<()>`.
#[macro_export]
macro_rules! case {
    ($name:expr, $body:path) => {
        $crate::Case { name: $name, run: |ctx| -> $crate::CaseFuture { ::std::boxed::Box::pin($body(ctx)) } }
    };
}

/// What a test case gets: its own browser session, the running demo, and a counter prefix of its own.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The case's browser session.
    pub session: Session,
    demo: Arc<RunningDemo>,
    prefix: String,
}

impl Ctx {
    /// The running demo (origins, counters).
    pub fn demo(&self) -> &RunningDemo {
        &self.demo
    }

    /// The origin of `site`.
    pub fn origin(&self, site: Site) -> &str {
        self.demo.origin(site)
    }

    /// The URL of `path` on `site`, with this case's counter prefix added as `counterPrefix`, so that the
    /// tools of the pages it opens count under names no other case uses.
    pub fn url(&self, site: Site, path: &str) -> String {
        let separator = if path.contains('?') { '&' } else { '?' };
        format!("{}{path}{separator}counterPrefix={}", self.demo.origin(site), self.prefix)
    }

    /// Opens `path` of `site` (see [`Ctx::url`]) at the top level and waits for its document to load.
    pub async fn open(&self, site: Site, path: &str) -> E2eResult<()> {
        self.session.open(&self.url(site, path)).await
    }

    /// This case's counter prefix, e.g. `t3.`.
    pub fn counter_prefix(&self) -> &str {
        &self.prefix
    }

    /// How many times `site`'s pages opened by this case ran `tool`, as the server counted.
    pub fn counter(&self, site: Site, tool: &str) -> u64 {
        self.demo.counter(site, &format!("{}{tool}", self.prefix))
    }

    /// Forgets the counters of this case (other cases' counters stay).
    pub fn reset_counters(&self) {
        self.demo.reset_counters_with_prefix(&self.prefix);
    }
}

/// Everything a run shares. Built on first use, so `--list` starts nothing.
struct Suite {
    runtime: Runtime,
    demo: Option<Arc<RunningDemo>>,
    driver: ChromeDriver,
    chromium: String,
    sessions: Semaphore,
    next_case: AtomicUsize,
}

impl Suite {
    fn start() -> E2eResult<Suite> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(E2eError::Runtime)?;
        let mut config = DemoConfig::for_tests();
        if let Some(pkg_dir) = std::env::var_os("E2E_PKG_DIR") {
            config.pkg_dir = pkg_dir.into();
        }
        let demo = runtime.block_on(DemoServer::start(config))?;
        let driver = ChromeDriver::start(&ChromeDriver::binary_from_env())?;
        eprintln!("e2e: mode {}", mode_description());
        eprintln!(
            "e2e: shop {} widget {} pay {} evil {}; chromedriver pid {} at {}",
            demo.origin(Site::Shop),
            demo.origin(Site::Widget),
            demo.origin(Site::Pay),
            demo.origin(Site::Evil),
            driver.pid(),
            driver.url()
        );
        Ok(Suite {
            runtime,
            demo: Some(Arc::new(demo)),
            driver,
            chromium: chromium_from_env(),
            sessions: Semaphore::new(MAX_SESSIONS),
            next_case: AtomicUsize::new(1),
        })
    }

    fn run_case(&self, case: &Case) -> Result<(), Failed> {
        let demo = self.demo.clone().ok_or_else(|| Failed::from("the demo server is stopped"))?;
        let prefix = format!("t{}.", self.next_case.fetch_add(1, Ordering::Relaxed));
        self.runtime.block_on(async {
            let _permit = self.sessions.acquire().await.map_err(|error| Failed::from(error.to_string()))?;
            let client =
                new_session(&self.driver.url(), &self.chromium).await.map_err(|e| Failed::from(e.to_string()))?;
            let session = Session::new(client);
            let ctx = Ctx { session: session.clone(), demo: demo.clone(), prefix: prefix.clone() };
            // Spawned, so that a panicking case still lets the session close below.
            let outcome = tokio::spawn((case.run)(ctx)).await;
            let closed = session.close().await;
            // The server keeps a bounded number of counters and gates (a flood guard): a finished case frees its
            // own (a failure has already quoted its counters).
            demo.reset_counters_with_prefix(&prefix);
            demo.gates().reset_prefix(&prefix);
            match outcome {
                Ok(Ok(())) => closed.map_err(|error| Failed::from(error.to_string())),
                Ok(Err(error)) => Err(Failed::from(error.to_string())),
                Err(join_error) => Err(Failed::from(format!("the case panicked: {join_error}"))),
            }
        })
    }

    /// Stops the demo server, then chromedriver (by its PID, when `driver` drops).
    fn stop(mut self) {
        if let Some(demo) = self.demo.take().and_then(|demo| Arc::try_unwrap(demo).ok())
            && let Err(error) = self.runtime.block_on(demo.shutdown())
        {
            eprintln!("e2e: {error}");
        }
    }
}

/// Runs `cases` as a libtest-style test binary (filters, `--list`, `--test-threads`, summary) and returns
/// its exit code. At most [`MAX_SESSIONS`] cases run at once.
pub fn run_cases(cases: Vec<Case>) -> ExitCode {
    let mut args = Arguments::from_args();
    args.test_threads = Some(args.test_threads.unwrap_or(MAX_SESSIONS).clamp(1, MAX_SESSIONS));
    let suite: Arc<OnceLock<Result<Suite, String>>> = Arc::new(OnceLock::new());
    let trials = cases
        .into_iter()
        .map(|case| {
            let suite = suite.clone();
            Trial::test(case.name, move || match suite.get_or_init(|| Suite::start().map_err(|e| e.to_string())) {
                Ok(suite) => suite.run_case(&case),
                Err(message) => Err(Failed::from(format!("the suite could not start: {message}"))),
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    if let Some(Ok(suite)) = Arc::try_unwrap(suite).ok().and_then(OnceLock::into_inner) {
        suite.stop();
    }
    conclusion.exit_code()
}
