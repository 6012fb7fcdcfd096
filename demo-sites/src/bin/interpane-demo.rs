//! `interpane-demo`: serves the four demo origins until Ctrl-C.

use std::process::ExitCode;

use interpane_demo_sites::cli::{CliArgs, USAGE};
use interpane_demo_sites::{DemoConfig, DemoServer, RunningDemo, Site};

#[tokio::main]
async fn main() -> ExitCode {
    let args = match CliArgs::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            eprintln!("interpane-demo: {error}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.check {
        // The check drives Chromium through chromedriver, which lives in the end-to-end crate, not here.
        let screenshot = args.screenshot.map(|path| format!(" --screenshot {}", path.display())).unwrap_or_default();
        eprintln!(
            "interpane-demo: the demo check is its own program: run `scripts/demo.sh --check{screenshot}` \
             (or `cargo run --release -p interpane-e2e --bin demo-check --{screenshot}`)"
        );
        return ExitCode::from(2);
    }
    let defaults = DemoConfig::default();
    let config = DemoConfig {
        ports: args.ports,
        static_dir: args.static_dir.unwrap_or(defaults.static_dir),
        pkg_dir: args.pkg_dir.unwrap_or(defaults.pkg_dir),
        test_mode: args.test_mode,
    };
    if !config.pkg_dir.join("interpane.js").is_file() {
        eprintln!(
            "interpane-demo: warning: no bridge package in {} (build it with scripts/build-pkg.sh); \
             the pages will say the bridge is missing",
            config.pkg_dir.display()
        );
    }
    let demo = match DemoServer::start(config).await {
        Ok(demo) => demo,
        Err(error) => {
            eprintln!("interpane-demo: {error}");
            return ExitCode::FAILURE;
        }
    };
    print_urls(&demo);
    if let Err(error) = tokio::signal::ctrl_c().await {
        eprintln!("interpane-demo: cannot wait for Ctrl-C ({error}); stopping");
    }
    println!("\nstopping…");
    match demo.shutdown().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("interpane-demo: {error}");
            ExitCode::FAILURE
        }
    }
}

fn print_urls(demo: &RunningDemo) {
    println!("interpane demo: open the shop first.\n");
    for site in Site::ALL {
        println!("  {:<7} {}/", site.name(), demo.origin(site));
        println!("          {}\n", site.demonstrates());
    }
    println!("  the same attacks from a sandboxed (opaque-origin) frame: {}", demo.url(Site::Evil, "/opaque.html"));
    println!("\nServing until Ctrl-C.");
}
