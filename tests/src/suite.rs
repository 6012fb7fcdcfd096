//! The shared fixture of a run (demo server, the engine's WebDriver servers, runtime) and the runner of test cases.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use interpane_demo_sites::{DemoConfig, DemoServer, RunningDemo, Site};
use libtest_mimic::{Arguments, Failed, Trial};
use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

use crate::browser::{mode_description, new_session};
use crate::driver::Driver;
use crate::engine::Engine;
use crate::error::{E2eError, E2eResult};
use crate::session::Session;

/// At most this many browser sessions run at once (the machines have two cores).
pub const MAX_SESSIONS: usize = 2;

/// How long a browser session may take to start (a WebDriver server launches its browser for it). A start that
/// takes longer is given up and tried once more: a WebKit MiniBrowser that never came up under Xvfb once held a
/// whole run until it was killed.
const SESSION_START_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// How long one case may run, and then its session take to close, before it fails as hung (the longest case takes
/// about 40 s on a loaded machine).
const CASE_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);
const SESSION_CLOSE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// The future of one test case.
pub type CaseFuture = Pin<Box<dyn Future<Output = E2eResult<()>> + Send>>;

/// One end-to-end test: a name (`area::what_it_shows`), its body, and the engines it runs in.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The name filters match.
    pub name: &'static str,
    /// The body, given a fresh browser session.
    pub run: fn(Ctx) -> CaseFuture,
    /// The engines the case runs in, and why only those; `None`: every engine.
    pub only: Option<OnlyIn>,
}

/// A case that is about an engine's own feature (native WebMCP, the DevTools protocol, a Chromium profile setting):
/// the engines it runs in, and why. In the others it is reported as ignored, and the run says why.
#[derive(Clone, Copy, Debug)]
pub struct OnlyIn {
    /// The engines it runs in.
    pub engines: &'static [Engine],
    /// Why only those: what it needs that the others do not have.
    pub why: &'static str,
}

impl Case {
    /// The same case, run only in `engines` because of `why`.
    pub const fn only_in(self, engines: &'static [Engine], why: &'static str) -> Case {
        Case { only: Some(OnlyIn { engines, why }), ..self }
    }

    /// Whether the case runs in `engine`.
    pub fn runs_in(&self, engine: Engine) -> bool {
        self.only.is_none_or(|only| only.engines.contains(&engine))
    }
}

/// `case!("area::name", async_fn)` makes a [`Case`] of an `async fn(Ctx) -> E2eResult<()>`, run in every engine.
#[macro_export]
macro_rules! case {
    ($name:expr, $body:path) => {
        $crate::Case {
            name: $name,
            run: |ctx| -> $crate::CaseFuture { ::std::boxed::Box::pin($body(ctx)) },
            only: None,
        }
    };
}

/// What a test case gets: its own browser session, the running demo, and a counter prefix of its own.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The case's browser session.
    pub session: Session,
    demo: Arc<RunningDemo>,
    prefix: String,
    engine: Engine,
}

impl Ctx {
    /// The engine of this run.
    pub fn engine(&self) -> Engine {
        self.engine
    }

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
    engine: Engine,
    /// One WebDriver server per session that may run at once: geckodriver and WebKitWebDriver drive one session
    /// each (chromedriver more, but one per slot keeps the engines alike).
    drivers: Vec<Driver>,
    /// The indexes of the servers no case is using; a case takes one after a permit of `sessions`.
    free_drivers: Mutex<Vec<usize>>,
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
        let engine = Engine::from_env()?;
        let demo = runtime.block_on(DemoServer::start(config))?;
        let drivers = (0..MAX_SESSIONS).map(|_| Driver::start(engine)).collect::<E2eResult<Vec<_>>>()?;
        let pids: Vec<String> = drivers.iter().map(|driver| format!("{} at {}", driver.pid(), driver.url())).collect();
        eprintln!("e2e: mode {}", mode_description(engine));
        eprintln!(
            "e2e: shop {} widget {} pay {} evil {}; {engine} WebDriver servers (pid at url): {}",
            demo.origin(Site::Shop),
            demo.origin(Site::Widget),
            demo.origin(Site::Pay),
            demo.origin(Site::Evil),
            pids.join(", ")
        );
        Ok(Suite {
            runtime,
            demo: Some(Arc::new(demo)),
            engine,
            free_drivers: Mutex::new((0..drivers.len()).collect()),
            drivers,
            sessions: Semaphore::new(MAX_SESSIONS),
            next_case: AtomicUsize::new(1),
        })
    }

    /// Takes a free WebDriver server's index (a permit of `sessions` is held: one is free).
    fn take_driver(&self) -> Result<usize, Failed> {
        let mut free = self.free_drivers.lock().map_err(|_| Failed::from("the driver pool's lock is poisoned"))?;
        free.pop().ok_or_else(|| Failed::from("no free WebDriver server although a session slot was free"))
    }

    fn give_back_driver(&self, index: usize) {
        if let Ok(mut free) = self.free_drivers.lock() {
            free.push(index);
        }
    }

    fn run_case(&self, case: &Case) -> Result<(), Failed> {
        let demo = self.demo.clone().ok_or_else(|| Failed::from("the demo server is stopped"))?;
        let prefix = format!("t{}.", self.next_case.fetch_add(1, Ordering::Relaxed));
        self.runtime.block_on(async {
            let _permit = self.sessions.acquire().await.map_err(|error| Failed::from(error.to_string()))?;
            let index = self.take_driver()?;
            let outcome = self.run_case_on(case, &self.drivers[index], demo, prefix).await;
            self.give_back_driver(index);
            outcome
        })
    }

    /// Runs `case` in a new session on `driver`, and closes the session after it, whatever the case did.
    async fn run_case_on(
        &self,
        case: &Case,
        driver: &Driver,
        demo: Arc<RunningDemo>,
        prefix: String,
    ) -> Result<(), Failed> {
        let client = start_session(&driver.url(), self.engine).await?;
        let session = Session::new(client);
        let ctx = Ctx { session: session.clone(), demo: demo.clone(), prefix: prefix.clone(), engine: self.engine };
        // Spawned, so that a panicking case still lets the session close below; and given up when it hangs.
        let task = tokio::spawn((case.run)(ctx));
        let abort = task.abort_handle();
        let Ok(outcome) = tokio::time::timeout(CASE_LIMIT, task).await else {
            abort.abort();
            let _ = tokio::time::timeout(SESSION_CLOSE_LIMIT, session.close()).await;
            return Err(Failed::from(format!("the case did not end within {} s", CASE_LIMIT.as_secs())));
        };
        let closed = match tokio::time::timeout(SESSION_CLOSE_LIMIT, session.close()).await {
            Ok(closed) => closed,
            Err(_) => {
                Err(E2eError::Check(format!("the session did not close within {} s", SESSION_CLOSE_LIMIT.as_secs())))
            }
        };
        // The server keeps a bounded number of counters and gates (a flood guard): a finished case frees its
        // own (a failure has already quoted its counters).
        demo.reset_counters_with_prefix(&prefix);
        demo.gates().reset_prefix(&prefix);
        match outcome {
            Ok(Ok(())) => closed.map_err(|error| Failed::from(error.to_string())),
            Ok(Err(error)) => Err(Failed::from(error.to_string())),
            Err(join_error) => Err(Failed::from(format!("the case panicked: {join_error}"))),
        }
    }

    /// Stops the demo server, then the WebDriver servers (by their PIDs, when `drivers` drop).
    fn stop(mut self) {
        if let Some(demo) = self.demo.take().and_then(|demo| Arc::try_unwrap(demo).ok())
            && let Err(error) = self.runtime.block_on(demo.shutdown())
        {
            eprintln!("e2e: {error}");
        }
    }
}

/// A new session on the WebDriver server at `driver_url`, tried a second time when the first does not start within
/// [`SESSION_START_LIMIT`].
async fn start_session(driver_url: &str, engine: Engine) -> Result<fantoccini::Client, Failed> {
    for _ in 0..2 {
        if let Ok(started) = tokio::time::timeout(SESSION_START_LIMIT, new_session(driver_url, engine)).await {
            return started.map_err(|e| Failed::from(e.to_string()));
        }
        eprintln!("e2e: a {engine} session did not start within {} s", SESSION_START_LIMIT.as_secs());
    }
    Err(Failed::from(format!("no {engine} session started within {} s, twice", SESSION_START_LIMIT.as_secs())))
}

/// Runs `cases` as a libtest-style test binary (filters, `--list`, `--test-threads`, summary) in the engine of
/// `E2E_ENGINE`, and returns its exit code. At most [`MAX_SESSIONS`] cases run at once. A case that does not run in
/// this engine ([`Case::only_in`]) is reported as ignored, and the run prints why before it starts.
pub fn run_cases(cases: Vec<Case>) -> ExitCode {
    let mut args = Arguments::from_args();
    args.test_threads = Some(args.test_threads.unwrap_or(MAX_SESSIONS).clamp(1, MAX_SESSIONS));
    let engine = match Engine::from_env() {
        Ok(engine) => engine,
        Err(error) => {
            eprintln!("e2e: {error}");
            return ExitCode::from(2);
        }
    };
    print_skips(engine, &cases);
    let suite: Arc<OnceLock<Result<Suite, String>>> = Arc::new(OnceLock::new());
    let trials = cases
        .into_iter()
        .map(|case| {
            let suite = suite.clone();
            let runs_here = case.runs_in(engine);
            Trial::test(case.name, move || match suite.get_or_init(|| Suite::start().map_err(|e| e.to_string())) {
                Ok(suite) => suite.run_case(&case),
                Err(message) => Err(Failed::from(format!("the suite could not start: {message}"))),
            })
            .with_ignored_flag(!runs_here)
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    if let Some(Ok(suite)) = Arc::try_unwrap(suite).ok().and_then(OnceLock::into_inner) {
        suite.stop();
    }
    conclusion.exit_code()
}

/// Prints, before the run, which cases do not run in `engine` and why (one line per reason).
fn print_skips(engine: Engine, cases: &[Case]) {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for case in cases.iter().filter(|case| !case.runs_in(engine)) {
        let why = case.only.map_or("", |only| only.why);
        match reasons.iter_mut().find(|(reason, _)| *reason == why) {
            Some((_, names)) => names.push(case.name),
            None => reasons.push((why, vec![case.name])),
        }
    }
    let skipped: usize = reasons.iter().map(|(_, names)| names.len()).sum();
    eprintln!("e2e: engine {engine}: {} cases run, {skipped} skipped (ignored) here", cases.len() - skipped);
    for (why, names) in reasons {
        eprintln!("e2e:   skipped {} ({why}): {}", names.len(), names.join(", "));
    }
}
