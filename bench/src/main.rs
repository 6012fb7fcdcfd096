//! `interpane-bench`: see `interpane-bench --help` and docs/performance.md.

use std::process::ExitCode;

use interpane_bench::cli::{Options, USAGE};
use interpane_bench::{BenchError, report, workspace_root};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("interpane-bench: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), BenchError> {
    let root = workspace_root();
    let Some(options) = Options::parse(&root, std::env::args().skip(1))? else {
        println!("{USAGE}");
        return Ok(());
    };
    if options.serve_only {
        return interpane_bench::serve(&root, &options);
    }
    if let Some(path) = &options.report_of {
        println!("{}", report::render(&interpane_bench::results::Results::read(path)?));
        return Ok(());
    }
    let results = interpane_bench::run(&root, &options)?;
    results.write(&options.out)?;
    let text = report::render(&results);
    let report_path = options.out.with_file_name("report.md");
    std::fs::write(&report_path, &text).map_err(|source| BenchError::Write { path: report_path.clone(), source })?;
    println!("{text}");
    eprintln!("[bench] wrote {} and {}", options.out.display(), report_path.display());
    Ok(())
}
