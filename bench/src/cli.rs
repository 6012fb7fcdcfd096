//! The command line of `interpane-bench`.

use std::path::PathBuf;

use crate::error::BenchError;
use crate::impls::Impl;

/// How much each measurement does.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Workload {
    /// Rounds; every figure reported is the median over them.
    pub rounds: usize,
    /// Sequential small calls measured per round.
    pub sequential: u32,
    /// Unmeasured sequential calls before them.
    pub warmup: u32,
    /// Calls issued at once.
    pub concurrent: u32,
    /// Sequential 64 KiB calls measured per round.
    pub big: u32,
    /// Characters of the large `text` argument.
    pub big_chars: u32,
    /// Characters of the small `text` argument.
    pub small_chars: u32,
}

impl Default for Workload {
    fn default() -> Self {
        Self { rounds: 3, sequential: 2000, warmup: 200, concurrent: 2000, big: 200, big_chars: 65536, small_chars: 5 }
    }
}

/// Everything the command line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The measurements' sizes.
    pub workload: Workload,
    /// The implementations to measure (all by default).
    pub impls: Vec<Impl>,
    /// Where results.json goes.
    pub out: PathBuf,
    /// The bridge package served at `/pkg/`.
    pub pkg_dir: PathBuf,
    /// `twiggy top -f csv` output of the named wasm, to group its bytes by crate.
    pub twiggy_csv: Option<PathBuf>,
    /// Serve the pages and wait (for a person with a browser) instead of running.
    pub serve_only: bool,
    /// Also record a CPU profile of the bridge's sequential calls in both frames.
    pub profile: bool,
    /// Print the report of this results.json (targets checked again) instead of running.
    pub report_of: Option<PathBuf>,
}

/// The text of `--help`.
pub const USAGE: &str = "\
interpane-bench: interpane against raw postMessage, a raw MessagePort, penpal and comlink, in headless Chromium.

usage: interpane-bench [options]      (scripts/bench.sh builds everything first and runs this)

  --rounds N        rounds, medians reported (default 3)
  --calls N         sequential calls measured per round (default 2000)
  --concurrent N    calls issued at once (default 2000)
  --big N           64 KiB calls measured per round (default 200)
  --text N          characters of the sequential and concurrent calls' text argument (default 5); with
                    --profile, --text 65536 --calls 200 profiles the large calls
  --only A,B        measure only these: port, window, penpal, comlink, bridge, bridge-window,
                    bridge-memory, port-journaled, port-write-ahead
  --out PATH        results JSON (default target/bench/results.json)
  --pkg-dir PATH    bridge package served at /pkg/ (default bridge/pkg)
  --twiggy-csv PATH twiggy top -f csv of the wasm, grouped by crate in the report
  --profile         also record CPU profiles of the bridge (target/bench/*.cpuprofile)
  --serve           only serve the pages, print their URLs, and wait for Ctrl-C
  --report PATH     only print the report of a results.json written by an earlier run

Environment: CHROMEDRIVER and CHROMIUM name the binaries (default /usr/bin/chromedriver, /usr/bin/chromium).";

impl Options {
    /// Reads `args` (without the program name); `Ok(None)` for `--help`.
    pub fn parse(root: &std::path::Path, args: impl IntoIterator<Item = String>) -> Result<Option<Self>, BenchError> {
        let mut options = Options {
            workload: Workload::default(),
            impls: Impl::ALL.to_vec(),
            out: root.join("target/bench/results.json"),
            pkg_dir: root.join("bridge/pkg"),
            twiggy_csv: None,
            serve_only: false,
            profile: false,
            report_of: None,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| BenchError::Usage(format!("{name} needs a value")));
            match arg.as_str() {
                "-h" | "--help" => return Ok(None),
                "--rounds" => options.workload.rounds = count(&arg, &value(&arg)?)? as usize,
                "--calls" => options.workload.sequential = count(&arg, &value(&arg)?)?,
                "--concurrent" => options.workload.concurrent = count(&arg, &value(&arg)?)?,
                "--big" => options.workload.big = count(&arg, &value(&arg)?)?,
                "--text" => options.workload.small_chars = count(&arg, &value(&arg)?)?,
                "--only" => {
                    options.impls = value(&arg)?
                        .split(',')
                        .map(|name| name.trim().parse::<Impl>().map_err(|e| BenchError::Usage(e.to_string())))
                        .collect::<Result<_, _>>()?;
                }
                "--out" => options.out = PathBuf::from(value(&arg)?),
                "--pkg-dir" => options.pkg_dir = PathBuf::from(value(&arg)?),
                "--twiggy-csv" => options.twiggy_csv = Some(PathBuf::from(value(&arg)?)),
                "--profile" => options.profile = true,
                "--serve" => options.serve_only = true,
                "--report" => options.report_of = Some(PathBuf::from(value(&arg)?)),
                other => return Err(BenchError::Usage(format!("unknown argument {other:?}"))),
            }
        }
        Ok(Some(options))
    }
}

fn count(name: &str, text: &str) -> Result<u32, BenchError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(BenchError::Usage(format!("{name} must be a whole number of at least 1, not {text:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Options>, BenchError> {
        Options::parse(Path::new("/w"), args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn defaults_are_the_issues_workload() {
        let options = parse(&[]).unwrap().unwrap();
        assert_eq!(options.workload, Workload::default());
        assert_eq!(options.workload.rounds, 3);
        assert_eq!(options.impls, Impl::ALL.to_vec());
        assert_eq!(options.out, Path::new("/w/target/bench/results.json"));
        assert_eq!(options.pkg_dir, Path::new("/w/bridge/pkg"));
    }

    #[test]
    fn arguments_set_their_option() {
        let options =
            parse(&["--rounds", "5", "--only", "port, bridge", "--concurrent", "1000", "--profile", "--text", "64"])
                .unwrap()
                .unwrap();
        assert_eq!(options.workload.small_chars, 64);
        assert_eq!(options.workload.rounds, 5);
        assert_eq!(options.workload.concurrent, 1000);
        assert_eq!(options.impls, vec![Impl::Port, Impl::Bridge]);
        assert!(options.profile);
        assert_eq!(options.report_of, None);
        let options = parse(&["--report", "r.json"]).unwrap().unwrap();
        assert_eq!(options.report_of.as_deref(), Some(Path::new("r.json")));
        assert!(parse(&["--help"]).unwrap().is_none());
    }

    #[test]
    fn bad_arguments_say_what_to_write() {
        let cases: [(&[&str], &str); 4] = [
            (
                &["--rounds", "0"],
                "--rounds must be a whole number of at least 1, not \"0\" (see interpane-bench --help)",
            ),
            (&["--rounds"], "--rounds needs a value (see interpane-bench --help)"),
            (&["--fast"], "unknown argument \"--fast\" (see interpane-bench --help)"),
            (
                &["--only", "port,grpc"],
                "unknown implementation \"grpc\": use one of port, window, penpal, comlink, bridge, bridge-window, \
                 bridge-memory, port-journaled, port-write-ahead (see interpane-bench --help)",
            ),
        ];
        for (args, message) in cases {
            assert_eq!(parse(args).unwrap_err().to_string(), message, "{args:?}");
        }
    }
}
