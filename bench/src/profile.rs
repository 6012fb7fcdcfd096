//! CPU profiles of sequential calls, in the parent page and in the cross-origin iframe at once (each runs in its
//! own renderer process): where each call's time goes, for the bridge and for the port floor.
//!
//! The profiles are written as `.cpuprofile` files (open them in Chromium's DevTools, Performance panel) and
//! summarized: CPU time per call by kind of code, and the functions with the most self time.

use std::collections::BTreeMap;
use std::path::Path;

use interpane_e2e::Session;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::cli::Workload;
use crate::devtools::{self, Connection, Target};
use crate::error::BenchError;
use crate::figures::SequentialRun;
use crate::impls::Impl;
use crate::runner::ParentPage;
use crate::server::BenchServer;

/// The sampling interval, µs.
pub const SAMPLING_INTERVAL_US: u32 = 100;

/// The implementations profiled: the floor, the bridge on its port (with its journals in sessionStorage, then in
/// memory), and penpal (also on a port) for contrast.
pub const PROFILED: [Impl; 4] = [Impl::Port, Impl::Bridge, Impl::BridgeMemory, Impl::Penpal];

/// How many functions each summary lists.
const TOP_FUNCTIONS: usize = 25;

/// What one frame's profile says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameProfile {
    /// The implementation.
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// `parent` or `iframe`.
    pub frame: String,
    /// Calls made while profiling.
    pub calls: u32,
    /// Sampled time that was not idle, µs per call.
    pub busy_us_per_call: f64,
    /// Busy time by kind of code, µs per call.
    pub by_kind_us_per_call: BTreeMap<String, f64>,
    /// The functions with the most self time: name, where, µs per call.
    pub top: Vec<(String, String, f64)>,
    /// The `.cpuprofile` file.
    pub file: String,
}

/// Profiles [`PROFILED`] in the current session; the browser must have been opened by chromedriver (whose
/// capabilities name its DevTools address).
pub async fn record(
    session: &Session,
    server: &BenchServer,
    workload: &Workload,
    dir: &Path,
    mut progress: impl FnMut(&str),
) -> Result<Vec<FrameProfile>, BenchError> {
    progress("profile: reading the DevTools address");
    let address = session
        .client()
        .capabilities()
        .and_then(|c| c.get("goog:chromeOptions"))
        .and_then(|o| o.get("debuggerAddress"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| BenchError::Tool {
            tool: "chromedriver".into(),
            message: "the session did not report goog:chromeOptions.debuggerAddress".into(),
        })?;
    std::fs::create_dir_all(dir).map_err(|source| BenchError::Write { path: dir.to_path_buf(), source })?;
    let mut summaries = Vec::new();
    for implementation in PROFILED {
        progress(&format!("profile {}: opening the page", implementation.name()));
        let page = ParentPage::open(session, server, implementation).await?;
        progress(&format!("profile {}: warming up", implementation.name()));
        let options =
            |count: u32| json!({ "count": count, "warmup": workload.warmup, "textLength": workload.small_chars });
        let _: SequentialRun = page.run("sequential", options(workload.sequential)).await?;
        progress(&format!("profile {}: listing the DevTools targets at {address}", implementation.name()));
        let targets = devtools::targets(&address).await?;
        let parent_url = server.parent_url(&format!("/parent.html?impl={}", implementation.name()));
        let child_url = format!("{}/child.html?impl={}", server.origins().child, implementation.name());
        let mut frames = Vec::new();
        for (frame, kind, url) in [("parent", "page", &parent_url), ("iframe", "iframe", &child_url)] {
            let target = find_target(&targets, kind, url)?;
            progress(&format!("profile {}: connecting to the {frame}", implementation.name()));
            let mut connection = Connection::open(target).await?;
            connection.call("Profiler.enable", json!({})).await?;
            connection.call("Profiler.setSamplingInterval", json!({ "interval": SAMPLING_INTERVAL_US })).await?;
            frames.push((frame, connection));
        }
        for (_, connection) in &mut frames {
            connection.call("Profiler.start", json!({})).await?;
        }
        let run: SequentialRun = page.run("sequential", options(workload.sequential * 2)).await?;
        // The warm-up calls of the run are profiled too.
        let calls = workload.sequential * 2 + workload.warmup;
        for (frame, connection) in &mut frames {
            let stopped = connection.call("Profiler.stop", json!({})).await?;
            let profile = stopped.get("profile").cloned().unwrap_or(Value::Null);
            let file = dir.join(format!("profile-{}-{frame}.cpuprofile", implementation.name()));
            std::fs::write(&file, profile.to_string())
                .map_err(|source| BenchError::Write { path: file.clone(), source })?;
            let summary = summarize(&profile, implementation, frame, calls, &file.display().to_string());
            progress(&format!(
                "profile {:<8} {:<6} {:>6.1} µs busy per call (p50 {:.0} µs while profiling)",
                implementation.name(),
                frame,
                summary.busy_us_per_call,
                run.p50_us
            ));
            summaries.push(summary);
        }
    }
    Ok(summaries)
}

fn find_target<'t>(targets: &'t [Target], kind: &str, url: &str) -> Result<&'t Target, BenchError> {
    targets.iter().find(|t| t.kind == kind && t.url == url).ok_or_else(|| BenchError::Tool {
        tool: "the DevTools protocol".into(),
        message: format!(
            "no {kind} target at {url}; the browser has: {}",
            targets.iter().map(|t| format!("{} {}", t.kind, t.url)).collect::<Vec<_>>().join(", ")
        ),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallFrame {
    function_name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    line_number: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Node {
    id: u64,
    call_frame: CallFrame,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Profile {
    nodes: Vec<Node>,
    #[serde(default)]
    samples: Vec<u64>,
    #[serde(default)]
    time_deltas: Vec<i64>,
}

/// The kind of code a profile node is.
pub fn kind_of(function: &str, url: &str) -> &'static str {
    match function {
        "(idle)" => return "idle",
        "(program)" => return "browser work outside JS (messaging, IPC, event dispatch)",
        "(garbage collector)" => return "garbage collection",
        "(root)" => return "root",
        _ => {}
    }
    if url.starts_with("wasm://") || url.ends_with(".wasm") {
        "bridge wasm"
    } else if url.contains("/pkg/") {
        "bridge JS glue"
    } else if url.contains("/npm/") {
        "library JS"
    } else if url.is_empty() {
        "native functions"
    } else {
        "benchmark page JS"
    }
}

/// Summarizes a `Profiler.stop` profile of `calls` calls. A sample's time is the delta to the next sample.
pub fn summarize(profile: &Value, implementation: Impl, frame: &str, calls: u32, file: &str) -> FrameProfile {
    let parsed: Profile = serde_json::from_value(profile.clone()).unwrap_or(Profile {
        nodes: Vec::new(),
        samples: Vec::new(),
        time_deltas: Vec::new(),
    });
    let nodes: BTreeMap<u64, &CallFrame> = parsed.nodes.iter().map(|n| (n.id, &n.call_frame)).collect();
    let mut self_us: BTreeMap<u64, f64> = BTreeMap::new();
    for (i, sample) in parsed.samples.iter().enumerate() {
        let delta = parsed.time_deltas.get(i + 1).copied().unwrap_or(0).max(0) as f64;
        *self_us.entry(*sample).or_default() += delta;
    }
    let per_call = |us: f64| if calls == 0 { 0.0 } else { us / f64::from(calls) };
    let mut by_kind: BTreeMap<String, f64> = BTreeMap::new();
    let mut by_function: BTreeMap<(String, String), f64> = BTreeMap::new();
    for (id, us) in &self_us {
        let Some(frame) = nodes.get(id) else { continue };
        let kind = kind_of(&frame.function_name, &frame.url);
        if kind == "idle" || kind == "root" {
            continue;
        }
        *by_kind.entry(kind.to_owned()).or_default() += us;
        let name = if frame.function_name.is_empty() { "(anonymous)".to_owned() } else { frame.function_name.clone() };
        let place = short_place(&frame.url, frame.line_number);
        *by_function.entry((name, place)).or_default() += us;
    }
    let busy: f64 = by_kind.values().sum();
    let mut top: Vec<(String, String, f64)> =
        by_function.into_iter().map(|((name, place), us)| (name, place, per_call(us))).collect();
    top.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    top.truncate(TOP_FUNCTIONS);
    FrameProfile {
        implementation,
        frame: frame.to_owned(),
        calls,
        busy_us_per_call: per_call(busy),
        by_kind_us_per_call: by_kind.into_iter().map(|(k, us)| (k, per_call(us))).collect(),
        top,
        file: file.to_owned(),
    }
}

/// `http://host:port/impls/port.js` line 12 as `/impls/port.js:13`; a wasm module as `wasm`.
fn short_place(url: &str, line: i64) -> String {
    if url.is_empty() {
        return String::new();
    }
    if url.starts_with("wasm://") || url.ends_with(".wasm") {
        return "wasm".to_owned();
    }
    let path = url.split_once("://").map_or(url, |(_, rest)| rest.find('/').map_or(rest, |i| &rest[i..]));
    format!("{path}:{}", line + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_sorted_into_kinds() {
        let cases = [
            ("(idle)", "", "idle"),
            ("(program)", "", "browser work outside JS (messaging, IPC, event dispatch)"),
            ("(garbage collector)", "", "garbage collection"),
            ("interpane_policy::envelope::decode", "wasm://wasm/1a2b", "bridge wasm"),
            ("dlmalloc::malloc", "http://127.0.0.1:1/pkg/interpane_bg.wasm", "bridge wasm"),
            ("postToWindow", "http://127.0.0.1:1/pkg/snippets/x/js/windows.js", "bridge JS glue"),
            ("connect", "http://127.0.0.1:1/npm/penpal/dist/penpal.mjs", "library JS"),
            ("call", "http://127.0.0.1:1/impls/port.js", "benchmark page JS"),
            ("stringify", "", "native functions"),
        ];
        for (function, url, kind) in cases {
            assert_eq!(kind_of(function, url), kind, "{function} {url}");
        }
    }

    #[test]
    fn self_time_is_the_delta_to_the_next_sample_per_call() {
        let profile = json!({
            "nodes": [
                { "id": 1, "callFrame": { "functionName": "(root)", "url": "" } },
                { "id": 2, "callFrame": { "functionName": "(idle)", "url": "" } },
                { "id": 3, "callFrame": { "functionName": "decode", "url": "wasm://wasm/ab", "lineNumber": 0 } },
                { "id": 4, "callFrame": { "functionName": "", "url": "http://h:1/impls/port.js", "lineNumber": 9 } }
            ],
            "samples": [3, 4, 2, 3],
            "timeDeltas": [0, 100, 50, 1000]
        });
        let summary = summarize(&profile, Impl::Port, "parent", 10, "f");
        // Samples: decode 100 µs, the anonymous function 50 µs, idle 1000 µs, decode 0 µs (the last has no next).
        assert_eq!(summary.busy_us_per_call, 15.0);
        assert_eq!(summary.by_kind_us_per_call.get("bridge wasm"), Some(&10.0));
        assert_eq!(summary.by_kind_us_per_call.get("benchmark page JS"), Some(&5.0));
        assert_eq!(
            summary.top,
            vec![
                ("decode".to_owned(), "wasm".to_owned(), 10.0),
                ("(anonymous)".to_owned(), "/impls/port.js:10".to_owned(), 5.0)
            ]
        );
    }
}
