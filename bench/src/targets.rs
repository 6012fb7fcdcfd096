//! The targets of issues 25 (speed) and 24 (weight), checked against the medians of one run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::figures::Summary;
use crate::impls::Impl;

/// The most the bridge's download (wasm and JS glue, each file `gzip -9`) may weigh: 150 KiB (issue 24; 80 KiB is
/// where it is meant to go after that).
pub const MAX_DOWNLOAD_BYTES: u64 = 150 * 1024;

/// The longest cold start (import of the entry to `ready`) of issue 24, ms.
pub const MAX_COLD_START_MS: f64 = 20.0;

/// One target and how the run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// What is wanted, in words.
    pub target: String,
    /// What was measured, in words.
    pub measured: String,
    /// Met, missed, or `None` when a figure is missing from the run.
    pub met: Option<bool>,
}

fn verdict(target: impl Into<String>, measured: Option<(String, bool)>) -> Verdict {
    match measured {
        Some((measured, met)) => Verdict { target: target.into(), measured, met: Some(met) },
        None => Verdict { target: target.into(), measured: "not measured in this run".into(), met: None },
    }
}

/// The ratio `bridge / floor`, when both are known and the floor is not 0.
fn ratio(bridge: f64, floor: f64) -> Option<f64> {
    (floor > 0.0 && bridge.is_finite() && floor.is_finite()).then(|| bridge / floor)
}

/// Every target of the issues, for the bridge on its port ([`Impl::Bridge`]).
pub fn check(summary: &BTreeMap<Impl, Summary>, bridge_download: Option<u64>) -> Vec<Verdict> {
    let bridge = summary.get(&Impl::Bridge);
    let floor = summary.get(&Impl::FLOOR);
    let both = bridge.zip(floor);
    let sound = |s: &Summary| s.concurrent_failed_max == 0;
    let penpal = bridge.zip(summary.get(&Impl::Penpal));
    vec![
        verdict(
            "p50 round trip <= 1.3x the port floor",
            both.and_then(|(b, f)| ratio(b.p50_us, f.p50_us)).map(|r| (format!("{r:.2}x"), r <= 1.3)),
        ),
        verdict(
            "2000 calls at once >= 0.9x the port floor's throughput, every call answered",
            both.and_then(|(b, f)| {
                let r = ratio(b.concurrent_calls_per_second, f.concurrent_calls_per_second)?;
                let failed = b.concurrent_failed_max;
                let text = if failed > 0 { format!("{r:.2}x, but {failed} calls failed") } else { format!("{r:.2}x") };
                Some((text, r >= 0.9 && sound(b)))
            }),
        ),
        verdict(
            "64 KiB p50 <= 1.5x the port floor",
            both.and_then(|(b, f)| ratio(b.big_p50_us, f.big_p50_us)).map(|r| (format!("{r:.2}x"), r <= 1.5)),
        ),
        verdict(
            "faster than penpal on p50 or on throughput",
            penpal.map(|(b, r)| {
                let mut text = format!(
                    "p50 {:.0} µs vs {:.0} µs; {:.0} vs {:.0} calls/s",
                    b.p50_us, r.p50_us, b.concurrent_calls_per_second, r.concurrent_calls_per_second
                );
                if !sound(b) {
                    text.push_str(&format!(", but {} bridge calls failed", b.concurrent_failed_max));
                }
                let faster = b.p50_us < r.p50_us || b.concurrent_calls_per_second > r.concurrent_calls_per_second;
                (text, faster && sound(b))
            }),
        ),
        verdict(
            "cold start (import of the entry to ready) <= 20 ms",
            bridge.and_then(|b| b.cold_ms).map(|ms| (format!("{ms:.1} ms"), ms <= MAX_COLD_START_MS)),
        ),
        verdict(
            "download (wasm + JS glue, gzip -9) <= 150 KiB",
            bridge_download.map(|bytes| {
                (format!("{bytes} bytes ({:.1} KiB)", bytes as f64 / 1024.0), bytes <= MAX_DOWNLOAD_BYTES)
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(p50: f64, concurrent: f64, big: f64, failed: u32) -> Summary {
        Summary {
            p50_us: p50,
            p90_us: p50,
            p99_us: p50,
            sequential_calls_per_second: 1.0,
            concurrent_count: 2000,
            concurrent_total_ms: 1.0,
            concurrent_calls_per_second: concurrent,
            concurrent_failed_max: failed,
            concurrent_error: None,
            big_p50_us: big,
            connect_ms: None,
            cold_ms: None,
            cold_steps_ms: None,
        }
    }

    fn met(verdicts: &[Verdict]) -> Vec<Option<bool>> {
        verdicts.iter().map(|v| v.met).collect()
    }

    #[test]
    fn a_bridge_at_the_limits_meets_every_target() {
        let bridge = Summary { cold_ms: Some(MAX_COLD_START_MS), ..summary(130.0, 9_000.0, 750.0, 0) };
        let runs: BTreeMap<Impl, Summary> = [
            (Impl::Port, summary(100.0, 10_000.0, 500.0, 0)),
            (Impl::Bridge, bridge),
            (Impl::Penpal, summary(129.0, 8_999.0, 1.0, 0)),
        ]
        .into_iter()
        .collect();
        let verdicts = check(&runs, Some(MAX_DOWNLOAD_BYTES));
        assert_eq!(met(&verdicts), vec![Some(true); 6]);
        assert_eq!(verdicts[0].measured, "1.30x");
        assert_eq!(verdicts[1].measured, "0.90x");
        assert_eq!(verdicts[4].measured, "20.0 ms");
        assert_eq!(verdicts[5].measured, "153600 bytes (150.0 KiB)");
    }

    #[test]
    fn misses_and_missing_figures_are_told_apart() {
        let runs: BTreeMap<Impl, Summary> = [
            (Impl::Port, summary(100.0, 10_000.0, 500.0, 0)),
            (Impl::Bridge, Summary { cold_ms: Some(20.1), ..summary(131.0, 9_500.0, 751.0, 2) }),
            (Impl::Penpal, summary(120.0, 8_000.0, 1.0, 0)),
        ]
        .into_iter()
        .collect();
        let verdicts = check(&runs, Some(MAX_DOWNLOAD_BYTES + 1));
        assert_eq!(met(&verdicts), vec![Some(false); 6]);
        assert_eq!(verdicts[1].measured, "0.95x, but 2 calls failed");
        assert_eq!(verdicts[3].measured, "p50 131 µs vs 120 µs; 9500 vs 8000 calls/s, but 2 bridge calls failed");

        let without_rival: BTreeMap<Impl, Summary> =
            [(Impl::Port, summary(100.0, 10_000.0, 500.0, 0)), (Impl::Bridge, summary(120.0, 9_500.0, 700.0, 0))]
                .into_iter()
                .collect();
        let verdicts = check(&without_rival, None);
        assert_eq!(met(&verdicts), vec![Some(true), Some(true), Some(true), None, None, None]);
        assert_eq!(verdicts[3].measured, "not measured in this run");
    }

    #[test]
    fn penpal_is_beaten_on_either_figure() {
        let runs = |p50: f64, concurrent: f64| -> BTreeMap<Impl, Summary> {
            [(Impl::Bridge, summary(p50, concurrent, 1.0, 0)), (Impl::Penpal, summary(200.0, 5_000.0, 1.0, 0))]
                .into_iter()
                .collect()
        };
        assert_eq!(check(&runs(199.0, 1_000.0), None)[3].met, Some(true));
        assert_eq!(check(&runs(900.0, 5_001.0), None)[3].met, Some(true));
        assert_eq!(check(&runs(200.0, 5_000.0), None)[3].met, Some(false));
    }
}
