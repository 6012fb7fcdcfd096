//! `demo-check` (what `scripts/demo.sh --check` runs): starts the demo server in-process on free loopback ports
//! and two WebDriver servers of the engine `E2E_ENGINE` names (stopped by their PIDs), drives the browser through
//! the demo scenario, prints a table of checks, and exits 0 only when every check passed. `--screenshot PATH` also
//! saves a PNG of the shop.

#[path = "../demo_check/mod.rs"]
mod demo_check;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use demo_check::Setup;
use demo_check::args::{Args, USAGE};
use interpane_demo_sites::{DemoConfig, DemoServer, Site};
use interpane_e2e::Engine;
use interpane_e2e::browser::mode_description;
use interpane_e2e::driver::Driver;

/// Exit status when the run could not start (bad arguments, no bridge package, no WebDriver server).
const CANNOT_START: u8 = 2;

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(error) => return cannot_start(&error),
    };
    if args.help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let engine = match Engine::from_env() {
        Ok(engine) => engine,
        Err(error) => return cannot_start(&error),
    };
    let mut config = DemoConfig::for_tests();
    if let Some(pkg_dir) = std::env::var_os("E2E_PKG_DIR") {
        config.pkg_dir = pkg_dir.into();
    }
    if !config.pkg_dir.join("interpane.js").is_file() {
        return cannot_start(&format!(
            "no bridge package in {}: build it with scripts/build-pkg.sh (scripts/demo.sh --check does)",
            config.pkg_dir.display()
        ));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return cannot_start(&format!("cannot build the tokio runtime: {error}")),
    };
    let started = Instant::now();
    let demo = match runtime.block_on(DemoServer::start(config)) {
        Ok(demo) => Arc::new(demo),
        Err(error) => return cannot_start(&error),
    };
    // Dropped at the end of main (also on an early return): that kills exactly these servers' PIDs.
    let drivers = match (Driver::start(engine), Driver::start(engine)) {
        (Ok(shop), Ok(attacker)) => [shop, attacker],
        (Err(error), _) | (_, Err(error)) => return cannot_start(&error),
    };
    println!(
        "interpane demo check: shop {}, widget {}, pay {}, evil {}; {engine} WebDriver pids {} and {}\nmode: {}\n",
        demo.origin(Site::Shop),
        demo.origin(Site::Widget),
        demo.origin(Site::Pay),
        demo.origin(Site::Evil),
        drivers[0].pid(),
        drivers[1].pid(),
        mode_description(engine)
    );
    let setup = Setup {
        demo: demo.clone(),
        engine,
        driver_urls: [drivers[0].url(), drivers[1].url()],
        screenshot: args.screenshot,
    };
    let report = runtime.block_on(demo_check::run(&setup));
    drop(setup);
    drop(drivers);
    if let Some(demo) = Arc::into_inner(demo)
        && let Err(error) = runtime.block_on(demo.shutdown())
    {
        eprintln!("demo-check: {error}");
    }
    print!("{}", report.render());
    println!("(in {:.1} s)", started.elapsed().as_secs_f64());
    if report.all_passed() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn cannot_start(why: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("demo-check: {why}");
    ExitCode::from(CANNOT_START)
}
