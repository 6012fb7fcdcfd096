//! Runs the WebMCP web-platform-tests (`webmcp/imperative/*.https.html`, `webmcp/declarative/*.https.html`) of a
//! local web-platform-tests checkout in headless Chromium, on pages where the bridge is installed, and prints how
//! many subtests pass, per file and in total. Nothing of wpt is in this repository: the folder is an argument.
//!
//! ```text
//! wpt-webmcp <wpt-dir> [--native] [--no-bridge] [--only <part of a file name>]
//! ```
//! `--native` gives Chromium `--enable-features=WebMCP`; `--no-bridge` serves the pages as they are (with
//! `--native`: the browser's own WebMCP alone, the baseline). The bridge package is `bridge/pkg`
//! (`./scripts/build-pkg.sh`), or the folder in `E2E_PKG_DIR`. scripts/wpt.sh runs it.

mod page;
mod server;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use fantoccini::ClientBuilder;
use hyper_util::client::legacy::connect::HttpConnector;
use interpane_e2e::Engine;
use interpane_e2e::browser::{NATIVE_WEBMCP_ARG, chromium_capabilities, chromium_from_env};
use interpane_e2e::driver::Driver;
use serde::Deserialize;
use serde_json::{Value, json};

/// How long one file may take from navigation to testharness's completion (its own "long" timeout is 60 s).
const FILE_DEADLINE: Duration = Duration::from_secs(90);

/// testharness's subtest statuses, by number.
const STATUS: [&str; 5] = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
/// testharness's harness statuses, by number.
const HARNESS: [&str; 4] = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];

struct Args {
    wpt: PathBuf,
    native: bool,
    bridge: bool,
    only: Option<String>,
}

#[derive(Deserialize)]
struct Results {
    harness: usize,
    message: Option<String>,
    tests: Vec<Subtest>,
}

#[derive(Deserialize)]
struct Subtest {
    name: String,
    status: usize,
    message: Option<String>,
}

/// One file's outcome: its results, or why there are none.
struct FileRun {
    file: String,
    results: Result<Results, String>,
    bridge_error: Option<String>,
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("wpt-webmcp: {message}\nusage: wpt-webmcp <wpt-dir> [--native] [--no-bridge] [--only <text>]");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("wpt-webmcp: no tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(runs) => {
            print_report(&args, &runs);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("wpt-webmcp: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args { wpt: PathBuf::new(), native: false, bridge: true, only: None };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--native" => parsed.native = true,
            "--no-bridge" => parsed.bridge = false,
            "--only" => parsed.only = Some(args.next().ok_or("--only needs a text")?),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            dir if parsed.wpt.as_os_str().is_empty() => parsed.wpt = PathBuf::from(dir),
            extra => return Err(format!("one wpt folder only (also given {extra})")),
        }
    }
    if parsed.wpt.as_os_str().is_empty() {
        return Err("no wpt folder given".into());
    }
    if !parsed.wpt.join("webmcp").is_dir() || !parsed.wpt.join("resources/testharness.js").is_file() {
        return Err(format!("{} has no webmcp/ or no resources/testharness.js", parsed.wpt.display()));
    }
    Ok(parsed)
}

/// The test files, as paths under `webmcp/`: imperative first, each folder sorted.
fn test_files(wpt: &Path, only: Option<&str>) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for folder in ["imperative", "declarative"] {
        let dir = wpt.join("webmcp").join(folder);
        let entries = std::fs::read_dir(&dir).map_err(|error| format!("reading {}: {error}", dir.display()))?;
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.ends_with(".https.html"))
            .filter(|name| only.is_none_or(|only| name.contains(only)))
            .map(|name| format!("{folder}/{name}"))
            .collect();
        names.sort();
        files.extend(names);
    }
    Ok(files)
}

async fn run(args: &Args) -> Result<Vec<FileRun>, String> {
    let files = test_files(&args.wpt, args.only.as_deref())?;
    let pkg = std::env::var_os("E2E_PKG_DIR").map_or_else(interpane_demo_sites::default_pkg_dir, PathBuf::from);
    if args.bridge && !pkg.join("index.js").is_file() {
        return Err(format!("no bridge package in {} (run ./scripts/build-pkg.sh)", pkg.display()));
    }
    let wpt = args.wpt.canonicalize().map_err(|error| format!("{}: {error}", args.wpt.display()))?;
    let origins = server::serve(wpt, pkg, args.bridge).await.map_err(|error| format!("serving: {error}"))?;
    let driver =
        Driver::start_async(Engine::Chromium).await.map_err(|error| format!("starting chromedriver: {error}"))?;
    let mut runs = Vec::new();
    for file in files {
        let url = format!("{}/webmcp/{file}", origins.main);
        eprintln!("wpt-webmcp: {file}");
        runs.push(run_file(&driver, args.native, file, &url).await);
    }
    Ok(runs)
}

/// One file in a Chromium of its own (nothing a file registers can reach the next one).
async fn run_file(driver: &Driver, native: bool, file: String, url: &str) -> FileRun {
    let chromium = chromium_from_env();
    let mut wanted = chromium_capabilities(&chromium);
    if let Some(flags) =
        wanted.get_mut("goog:chromeOptions").and_then(|options| options.get_mut("args")).and_then(Value::as_array_mut)
    {
        flags.retain(|flag| flag != NATIVE_WEBMCP_ARG);
        if native {
            flags.push(json!(NATIVE_WEBMCP_ARG));
        }
    }
    let client = match ClientBuilder::new(HttpConnector::new()).capabilities(wanted).connect(&driver.url()).await {
        Ok(client) => client,
        Err(error) => {
            return FileRun { file, results: Err(format!("no Chromium session: {error}")), bridge_error: None };
        }
    };
    let mut outcome = FileRun { file, results: Err("not opened".into()), bridge_error: None };
    match client.goto(url).await {
        Err(error) => outcome.results = Err(format!("opening {url}: {error}")),
        Ok(()) => {
            let started = Instant::now();
            outcome.results = Err(format!("no result within {} s", FILE_DEADLINE.as_secs()));
            while started.elapsed() < FILE_DEADLINE {
                let read = "return [window.__wptWebmcpResults || null, window.__wptWebmcpBridgeError || null];";
                if let Ok(Value::Array(found)) = client.execute(read, vec![]).await {
                    outcome.bridge_error = found.get(1).and_then(Value::as_str).map(str::to_owned);
                    if let Some(results) = found.first().filter(|value| !value.is_null()) {
                        outcome.results = serde_json::from_value(results.clone())
                            .map_err(|error| format!("unreadable results: {error}"));
                        break;
                    }
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
    }
    let _ = client.close().await;
    outcome
}

fn print_report(args: &Args, runs: &[FileRun]) {
    let mode = match (args.bridge, args.native) {
        (true, false) => "the bridge, Chromium without native WebMCP",
        (true, true) => "the bridge, Chromium with native WebMCP (--enable-features=WebMCP)",
        (false, true) => "native WebMCP alone (no bridge), Chromium with --enable-features=WebMCP",
        (false, false) => "no bridge, Chromium without native WebMCP",
    };
    println!("\nWebMCP web-platform-tests from {}: {mode}\n", args.wpt.display());
    println!("{:<58} {:>7}  harness", "file", "passed");
    let (mut passed, mut total) = (0, 0);
    for run in runs {
        let name = run.file.trim_end_matches(".https.html");
        match &run.results {
            Ok(results) => {
                let ok = results.tests.iter().filter(|test| test.status == 0).count();
                passed += ok;
                total += results.tests.len();
                let harness = HARNESS.get(results.harness).copied().unwrap_or("?");
                let fraction = format!("{ok}/{}", results.tests.len());
                let note = results.message.as_deref().map(|m| format!(" ({})", one_line(m))).unwrap_or_default();
                println!("{name:<58} {fraction:>7}  {harness}{note}");
            }
            Err(why) => println!("{name:<58} {:>7}  {why}", "-"),
        }
    }
    println!("{:<58} {:>7}", "total", format!("{passed}/{total}"));
    println!("\nsubtests that did not pass:");
    for run in runs {
        if let Some(error) = &run.bridge_error {
            println!("  {}: the bridge did not install: {}", run.file, one_line(error));
        }
        let Ok(results) = &run.results else { continue };
        for test in results.tests.iter().filter(|test| test.status != 0) {
            let status = STATUS.get(test.status).copied().unwrap_or("?");
            let message = test.message.as_deref().map(one_line).unwrap_or_default();
            println!("  {} | {} | {status}: {message}", run.file.trim_end_matches(".https.html"), test.name);
        }
    }
    println!("\n{passed} passed, {} failed", total - passed);
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 220 { format!("{}…", line.chars().take(220).collect::<String>()) } else { line }
}
