//! interpane-bench: measures interpane side by side with a hand-written `window.postMessage` ping-pong, a
//! hand-written `MessagePort` ping-pong (the floor), penpal and comlink, in one headless Chromium session with a
//! parent page and a cross-origin iframe on two loopback origins (issue 7, `docs/performance.md`).
//!
//! ```no_run
//! use interpane_bench::{cli::Options, run};
//!
//! # fn main() -> Result<(), interpane_bench::BenchError> {
//! let root = interpane_bench::workspace_root();
//! if let Some(options) = Options::parse(&root, ["--rounds".to_owned(), "1".to_owned()])? {
//!     let results = run(&root, &options)?;
//!     println!("{}", interpane_bench::report::render(&results));
//! }
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod browser;
pub mod cli;
pub mod devtools;
mod error;
pub mod figures;
pub mod impls;
pub mod profile;
pub mod report;
pub mod results;
pub mod runner;
pub mod server;
pub mod sizes;
pub mod targets;

use std::path::{Path, PathBuf};

pub use error::BenchError;

use crate::cli::Options;
use crate::results::{Machine, Results};
use crate::server::{BenchServer, ServeDirs};

/// The workspace this crate was built in.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The folders served for `options`.
pub fn serve_dirs(root: &Path, options: &Options) -> ServeDirs {
    ServeDirs { pages: root.join("bench/pages"), pkg: options.pkg_dir.clone(), npm: root.join("bench/node_modules") }
}

/// Runs the whole benchmark: serves the pages, drives Chromium through every round, weighs the downloads and
/// checks the targets. Progress goes to stderr.
pub fn run(root: &Path, options: &Options) -> Result<Results, BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(BenchError::Runtime)?;
    let mut machine = Machine::read();
    machine.source = results::source_revision(root);
    let (rounds, profiles) = runtime.block_on(async {
        let server = BenchServer::start(serve_dirs(root, options), (0, 0)).await?;
        eprintln!("[bench] parent {}  iframe {}", server.origins().parent, server.origins().child);
        let driver = interpane_e2e::driver::Driver::start(interpane_e2e::Engine::Chromium)?;
        let session = browser::open(&driver.url(), &interpane_e2e::browser::chromium_from_env()).await?;
        let outcome = async {
            session.open(&server.parent_url("/cold.html?impl=none")).await?;
            let isolated = session.execute("return self.crossOriginIsolated;", vec![]).await?;
            machine.cross_origin_isolated = isolated.as_bool() == Some(true);
            let capabilities = session.client().capabilities();
            let field = |name: &str| {
                capabilities.and_then(|c| c.get(name)).and_then(|v| v.as_str()).unwrap_or("unknown").to_owned()
            };
            machine.browser = format!("{} {} (headless)", field("browserName"), field("browserVersion"));
            let rounds = runner::run_rounds(&session, &server, &options.workload, &options.impls, |line| {
                eprintln!("[bench] {line}");
            })
            .await?;
            let profiles = if options.profile {
                let dir = options.out.parent().map_or_else(|| root.join("target/bench"), Path::to_path_buf);
                Some(
                    profile::record(&session, &server, &options.workload, &dir, |line| eprintln!("[bench] {line}"))
                        .await?,
                )
            } else {
                None
            };
            Ok::<_, BenchError>((rounds, profiles))
        }
        .await;
        let _ = session.close().await;
        drop(driver);
        outcome
    })?;
    machine.load_average.1 = results::load_average();
    let sizes = sizes::measure(&sizes::SizeInputs {
        root: root.to_path_buf(),
        pkg_dir: options.pkg_dir.clone(),
        npm_dir: root.join("bench/node_modules"),
    });
    let wasm_by_crate = match &options.twiggy_csv {
        Some(path) => {
            let csv =
                std::fs::read_to_string(path).map_err(|source| BenchError::Read { path: path.clone(), source })?;
            Some(sizes::group_twiggy_csv(&csv))
        }
        None => None,
    };
    let summary = figures::summarize(&rounds);
    let ratios = results::ratios(&summary);
    let targets = targets::check(&summary, sizes.bridge_download());
    Ok(Results {
        machine,
        workload: options.workload.clone(),
        rounds,
        summary,
        ratios,
        sizes,
        wasm_by_crate,
        targets,
        profiles,
    })
}

/// Serves the pages until Ctrl-C, for a person with a browser.
pub fn serve(root: &Path, options: &Options) -> Result<(), BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(BenchError::Runtime)?;
    runtime.block_on(async {
        let server = BenchServer::start(serve_dirs(root, options), (0, 0)).await?;
        for implementation in &options.impls {
            println!("{}", server.parent_url(&format!("/parent.html?impl={implementation}")));
        }
        let _ = tokio::signal::ctrl_c().await;
        Ok(())
    })
}
