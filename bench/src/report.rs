//! The report: Markdown tables of the medians with their ratio to the port floor, the sizes, and the targets.

use std::fmt::Write as _;

use crate::figures::Summary;
use crate::impls::Impl;
use crate::profile::FrameProfile;
use crate::results::{Ratios, Results};
use crate::sizes::{Sizes, Weighed};

/// `1234567.8` as `1,234,568`.
pub fn thousands(value: f64) -> String {
    if !value.is_finite() {
        return "—".to_owned();
    }
    let digits = format!("{:.0}", value.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if value < 0.0 && digits != "0" { format!("-{out}") } else { out }
}

fn with_ratio(value: f64, ratio: Option<f64>) -> String {
    match ratio {
        Some(r) if r.is_finite() => format!("{} ({r:.2}x)", thousands(value)),
        _ => thousands(value),
    }
}

fn ms(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| if v < 10.0 { format!("{v:.2}") } else { format!("{v:.1}") })
}

/// The download of `implementation` as the main table shows it: min+gzip for the JavaScript libraries, wasm and
/// glue with gzip -9 for the bridge.
pub fn download(sizes: &Sizes, implementation: Impl) -> Option<u64> {
    match implementation {
        Impl::Penpal => sizes.penpal.as_ref().and_then(|w| w.min_gzip_bytes),
        Impl::Comlink => sizes.comlink.as_ref().and_then(|w| w.min_gzip_bytes),
        Impl::Bridge | Impl::BridgeWindow | Impl::BridgeMemory => sizes.bridge_download(),
        Impl::Port | Impl::Window | Impl::PortJournaled | Impl::PortWriteAhead => None,
    }
}

/// The main table: one row per implementation, floor first.
pub fn figures_table(results: &Results) -> String {
    let concurrent = results.workload.concurrent;
    let mut out = format!(
        "| implementation | p50 µs | p90 µs | p99 µs | seq calls/s | {concurrent} at once: ms | at once: calls/s \
         | 64 KiB p50 µs | connect ms | cold start ms | download bytes |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    let floor = results.summary.get(&Impl::FLOOR);
    let mut notes = Vec::new();
    for implementation in Impl::ALL {
        let Some(s) = results.summary.get(&implementation) else { continue };
        let r = results.ratios.get(&implementation);
        let pick = |f: fn(&Ratios) -> f64| r.map(f);
        let tail = |f: fn(&Summary) -> f64| floor.map(|fl| f(s) / f(fl));
        let failed = if s.concurrent_failed_max > 0 {
            notes.push(format!(
                "{}: up to {} of {} calls at once failed: {}",
                implementation.name(),
                s.concurrent_failed_max,
                s.concurrent_count,
                s.concurrent_error.as_deref().unwrap_or("no message")
            ));
            " ⚠"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {}{failed} | {}{failed} | {} | {} | {} | {} |",
            implementation.label(),
            with_ratio(s.p50_us, pick(|r| r.p50)),
            with_ratio(s.p90_us, tail(|s| s.p90_us)),
            with_ratio(s.p99_us, tail(|s| s.p99_us)),
            with_ratio(s.sequential_calls_per_second, pick(|r| r.sequential_calls_per_second)),
            ms(Some(s.concurrent_total_ms)),
            with_ratio(s.concurrent_calls_per_second, pick(|r| r.concurrent_calls_per_second)),
            with_ratio(s.big_p50_us, pick(|r| r.big_p50)),
            ms(s.connect_ms),
            ms(s.cold_ms),
            download(&results.sizes, implementation).map_or_else(|| "—".to_owned(), |b| thousands(b as f64)),
        );
    }
    for note in notes {
        let _ = writeln!(out, "\n⚠ {note}");
    }
    out
}

fn size_row(out: &mut String, name: &str, weighed: Option<&Weighed>) {
    if let Some(w) = weighed {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            w.files.join(", "),
            thousands(w.raw_bytes as f64),
            thousands(w.gzip_bytes as f64),
            w.min_gzip_bytes.map_or_else(|| "—".to_owned(), |b| thousands(b as f64))
        );
    }
}

/// The sizes table, the bridge's total, and what could not be weighed.
pub fn sizes_table(sizes: &Sizes) -> String {
    let mut out = "| download | files | as served | gzip -9 | minified + gzip -9 |\n|---|---|---|---|---|\n".to_owned();
    size_row(&mut out, "penpal", sizes.penpal.as_ref());
    size_row(&mut out, "comlink", sizes.comlink.as_ref());
    size_row(&mut out, "interpane wasm", sizes.bridge_wasm.as_ref());
    size_row(&mut out, "interpane JS glue", sizes.bridge_glue.as_ref());
    if let Some(total) = sizes.bridge_download() {
        let _ = writeln!(
            out,
            "\ninterpane download (wasm + JS glue, gzip -9): {} bytes ({:.1} KiB)",
            thousands(total as f64),
            total as f64 / 1024.0
        );
    }
    for problem in &sizes.problems {
        let _ = writeln!(out, "\nnot weighed: {problem}");
    }
    out
}

/// The wasm's bytes by crate, largest first (the first `limit` groups, then the rest together).
pub fn crates_table(groups: &std::collections::BTreeMap<String, u64>, limit: usize) -> String {
    let total: u64 = groups.values().sum();
    let mut sorted: Vec<(&String, &u64)> = groups.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut out = "| crate or part | bytes | share |\n|---|---|---|\n".to_owned();
    let share = |bytes: u64| if total == 0 { 0.0 } else { bytes as f64 * 100.0 / total as f64 };
    for &(name, &bytes) in sorted.iter().take(limit) {
        let _ = writeln!(out, "| {name} | {} | {:.1}% |", thousands(bytes as f64), share(bytes));
    }
    let rest: u64 = sorted.iter().skip(limit).map(|&(_, &b)| b).sum();
    if rest > 0 {
        let _ = writeln!(out, "| (everything else) | {} | {:.1}% |", thousands(rest as f64), share(rest));
    }
    let _ = writeln!(out, "| total | {} | 100% |", thousands(total as f64));
    out
}

/// The targets with their verdicts.
pub fn targets_table(results: &Results) -> String {
    let mut out = "| target (interpane on its port) | measured | verdict |\n|---|---|---|\n".to_owned();
    for verdict in &results.targets {
        let said = match verdict.met {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "not measured",
        };
        let _ = writeln!(out, "| {} | {} | {said} |", verdict.target, verdict.measured);
    }
    out
}

const KINDS: [(&str, &str); 7] = [
    ("bridge wasm", "wasm"),
    ("bridge JS glue", "bridge JS"),
    ("library JS", "library JS"),
    ("benchmark page JS", "page JS"),
    ("native functions", "native fns"),
    ("browser work outside JS (messaging, IPC, event dispatch)", "outside JS"),
    ("garbage collection", "GC"),
];

/// CPU time per call by kind of code, for every profiled frame, then each bridge frame's top functions.
pub fn profiles_table(profiles: &[FrameProfile], top: usize) -> String {
    let mut out = "| implementation | frame | busy µs/call |".to_owned();
    for (_, short) in KINDS {
        out.push_str(&format!(" {short} |"));
    }
    out.push_str("\n|---|---|---|");
    out.push_str(&"---|".repeat(KINDS.len()));
    out.push('\n');
    for p in profiles {
        let _ = write!(out, "| {} | {} | {:.1} |", p.implementation.name(), p.frame, p.busy_us_per_call);
        for (kind, _) in KINDS {
            let _ = write!(out, " {:.1} |", p.by_kind_us_per_call.get(kind).copied().unwrap_or(0.0));
        }
        out.push('\n');
    }
    for p in profiles.iter().filter(|p| matches!(p.implementation, Impl::Bridge | Impl::BridgeMemory)) {
        let _ = write!(
            out,
            "\nTop self time, {} {} ({}), µs per call:\n\n| function | where | µs/call |\n|---|---|---|\n",
            p.implementation.name(),
            p.frame,
            p.file
        );
        for (name, place, us) in p.top.iter().take(top) {
            let name: String = name.chars().take(100).collect();
            let _ = writeln!(out, "| `{name}` | {place} | {us:.2} |");
        }
    }
    out
}

/// The whole report.
pub fn render(results: &Results) -> String {
    let m = &results.machine;
    let w = &results.workload;
    let mut out = format!(
        "## Medians of {} rounds (ratio to the MessagePort floor in parentheses)\n\n\
         {} sequential calls after {} warm-up calls; {} calls at once; {} calls of {} characters for 64 KiB.\n\n",
        w.rounds, w.sequential, w.warmup, w.concurrent, w.big, w.big_chars
    );
    out.push_str(&figures_table(results));
    if let Some([import, init, install, ready]) = results.summary.get(&Impl::Bridge).and_then(|b| b.cold_steps_ms) {
        let _ = writeln!(
            out,
            "\nBridge cold start: import of the package entry (with the JS glue) {import:.1} ms, init (fetch, compile \
             and instantiate the wasm) {init:.1} ms, install {install:.2} ms, until `modelContext.ready` {ready:.1} ms."
        );
    }
    out.push_str("\n## Download sizes\n\n");
    out.push_str(&sizes_table(&results.sizes));
    if let Some(groups) = &results.wasm_by_crate {
        out.push_str("\n## What the wasm is made of (twiggy, by crate)\n\n");
        out.push_str(&crates_table(groups, 15));
    }
    if let Some(profiles) = &results.profiles {
        let _ = write!(
            out,
            "\n## Where the time goes (CPU profiles of {} sequential calls, sampled every {} µs)\n\n",
            profiles.first().map_or(0, |p| p.calls),
            crate::profile::SAMPLING_INTERVAL_US
        );
        out.push_str(&profiles_table(profiles, 15));
    }
    out.push_str("\n## Targets\n\n");
    out.push_str(&targets_table(results));
    let _ = writeln!(
        out,
        "\nMachine: {}, {} cores, {}; {}; load average {:.2} at the start, {:.2} at the end; cross-origin isolated \
         pages: {}. Bridge measured: {}.",
        m.cpu, m.cores, m.os, m.browser, m.load_average.0, m.load_average.1, m.cross_origin_isolated, m.source
    );
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn thousands_groups_digits() {
        let cases = [
            (0.0, "0"),
            (999.4, "999"),
            (1650.0, "1,650"),
            (15578.2, "15,578"),
            (1234567.0, "1,234,567"),
            (-4200.0, "-4,200"),
            (f64::NAN, "—"),
        ];
        for (value, text) in cases {
            assert_eq!(thousands(value), text, "{value}");
        }
    }

    #[test]
    fn crates_are_listed_largest_first_with_the_rest_together() {
        let groups: BTreeMap<String, u64> = [
            ("core".to_owned(), 300),
            ("serde_json".to_owned(), 500),
            ("url".to_owned(), 100),
            ("idna".to_owned(), 100),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            crates_table(&groups, 2),
            "| crate or part | bytes | share |\n|---|---|---|\n\
             | serde_json | 500 | 50.0% |\n| core | 300 | 30.0% |\n| (everything else) | 200 | 20.0% |\n\
             | total | 1,000 | 100% |\n"
        );
    }
}
