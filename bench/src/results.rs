//! The results document (`target/bench/results.json`) and the machine it was measured on.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cli::Workload;
use crate::error::BenchError;
use crate::figures::{Round, Summary};
use crate::impls::Impl;
use crate::profile::FrameProfile;
use crate::sizes::Sizes;
use crate::targets::Verdict;

/// Where the figures were measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// The CPU model (`/proc/cpuinfo`).
    pub cpu: String,
    /// Cores the process may use.
    pub cores: usize,
    /// The operating system (`/etc/os-release`) and kernel.
    pub os: String,
    /// The browser's user agent.
    pub browser: String,
    /// The 1-minute load average when the run started and when it ended (other work on the machine).
    pub load_average: (f64, f64),
    /// Whether the parent page was cross-origin isolated (5 µs timers instead of 100 µs).
    pub cross_origin_isolated: bool,
    /// The commit measured, and whether `bridge/` or `policy/` had uncommitted changes then.
    #[serde(default)]
    pub source: String,
}

impl Machine {
    /// What can be read from `/proc` and `/etc` (the browser and the end load are filled in later).
    pub fn read() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".into());
        let os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|name| name.trim_matches('"').to_owned())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_owned());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
            os: format!("{os}, Linux {}", kernel.trim()),
            browser: String::new(),
            load_average: (load_average(), 0.0),
            cross_origin_isolated: false,
            source: String::new(),
        }
    }
}

/// `git describe`-like words for the bridge measured: the commit of `root`, and `with uncommitted changes in
/// bridge/ or policy/` when there are some (the package may then hold code no commit has).
pub fn source_revision(root: &Path) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let Some(commit) = git(&["rev-parse", "--short", "HEAD"]) else { return "unknown (not a git checkout)".into() };
    match git(&["status", "--porcelain", "--", "bridge", "policy"]) {
        Some(changes) if !changes.is_empty() => format!("{commit} with uncommitted changes in bridge/ or policy/"),
        _ => commit,
    }
}

/// The 1-minute load average, or 0 where `/proc/loadavg` is missing.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0.0)
}

/// A figure over the same figure of the port floor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    /// p50 / floor p50 (lower is better).
    pub p50: f64,
    /// Sequential calls per second / floor's (higher is better).
    pub sequential_calls_per_second: f64,
    /// Concurrent calls per second / floor's (higher is better).
    pub concurrent_calls_per_second: f64,
    /// 64 KiB p50 / floor's (lower is better).
    pub big_p50: f64,
}

/// Each implementation's ratios to [`Impl::FLOOR`]; empty when the floor did not run.
pub fn ratios(summary: &BTreeMap<Impl, Summary>) -> BTreeMap<Impl, Ratios> {
    let Some(floor) = summary.get(&Impl::FLOOR) else { return BTreeMap::new() };
    summary
        .iter()
        .map(|(&implementation, s)| {
            (
                implementation,
                Ratios {
                    p50: s.p50_us / floor.p50_us,
                    sequential_calls_per_second: s.sequential_calls_per_second / floor.sequential_calls_per_second,
                    concurrent_calls_per_second: s.concurrent_calls_per_second / floor.concurrent_calls_per_second,
                    big_p50: s.big_p50_us / floor.big_p50_us,
                },
            )
        })
        .collect()
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The machine.
    pub machine: Machine,
    /// The workload.
    pub workload: Workload,
    /// Every round, as measured.
    pub rounds: Vec<Round>,
    /// The medians over rounds.
    pub summary: BTreeMap<Impl, Summary>,
    /// The medians over the port floor's.
    pub ratios: BTreeMap<Impl, Ratios>,
    /// Download sizes.
    pub sizes: Sizes,
    /// The bridge's wasm bytes by crate (from twiggy), when given.
    pub wasm_by_crate: Option<BTreeMap<String, u64>>,
    /// The targets.
    pub targets: Vec<Verdict>,
    /// CPU profiles, with `--profile`.
    pub profiles: Option<Vec<FrameProfile>>,
}

impl Results {
    /// Reads a document written by [`Results::write`], with its targets checked again (by this version's rules).
    pub fn read(path: &Path) -> Result<Self, BenchError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| BenchError::Read { path: path.to_path_buf(), source })?;
        let mut results: Results = serde_json::from_str(&text).map_err(|e| BenchError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })?;
        results.targets = crate::targets::check(&results.summary, results.sizes.bridge_download());
        Ok(results)
    }

    /// Writes the document as pretty JSON to `path`, creating its folder.
    pub fn write(&self, path: &Path) -> Result<(), BenchError> {
        let write_error = |source| BenchError::Write { path: path.to_path_buf(), source };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_error)?;
        }
        let json = serde_json::to_string_pretty(self).map_err(|e| write_error(std::io::Error::other(e)))?;
        std::fs::write(path, json + "\n").map_err(write_error)
    }
}
