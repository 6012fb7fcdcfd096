//! What the pages measure (deserialized from their JSON) and the medians over rounds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::impls::Impl;

/// Calls made one after another (`pages/lib/measure.js`, `sequential`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SequentialRun {
    /// Measured calls.
    pub count: u32,
    /// Characters of the `text` argument echoed.
    pub text_length: u32,
    /// Median round trip, µs.
    pub p50_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Fastest round trip, µs.
    pub min_us: f64,
    /// Time of the whole loop, ms.
    pub total_ms: f64,
    /// `count` over the whole loop's time.
    pub calls_per_second: f64,
}

/// Calls issued in one task and awaited together (`pages/lib/measure.js`, `concurrent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConcurrentRun {
    /// Calls issued.
    pub count: u32,
    /// Calls that rejected or came back wrong.
    pub failed: u32,
    /// The first failure's message.
    pub first_error: Option<String>,
    /// From the first call to the last answer, ms.
    pub total_ms: f64,
    /// `count` over `total_ms`.
    pub calls_per_second: f64,
}

/// A cold page: from importing the library to ready (`pages/cold.js`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColdRun {
    /// `performance.now()` when the import started (time since the page's navigation began), ms.
    pub started_at_ms: f64,
    /// The module import, ms.
    pub import_ms: f64,
    /// The bridge's `init()`: fetching, compiling and instantiating the wasm, ms.
    #[serde(default)]
    pub init_ms: Option<f64>,
    /// The bridge's `install()`, ms.
    #[serde(default)]
    pub install_ms: Option<f64>,
    /// From `install()` to `modelContext.ready`, ms.
    #[serde(default)]
    pub ready_ms: Option<f64>,
    /// From the import to ready, ms.
    pub total_ms: f64,
}

/// Everything measured for one implementation in one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImplRun {
    /// The implementation.
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// Setting up the connection with the ready iframe, ms (`getTools` for the bridge, the handshake for penpal
    /// and the port floor); `None` where there is nothing to set up.
    pub connect_ms: Option<f64>,
    /// Small echo calls one after another.
    pub sequential: SequentialRun,
    /// Small echo calls all at once.
    pub concurrent: ConcurrentRun,
    /// 64 KiB echo calls one after another.
    pub big: SequentialRun,
    /// The cold page, where measured.
    pub cold: Option<ColdRun>,
}

/// One round: every implementation once, in `order`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 0-based.
    pub index: usize,
    /// Which implementation ran when.
    pub order: Vec<Impl>,
    /// The runs, in `order`.
    pub runs: Vec<ImplRun>,
}

/// The medians over rounds of one implementation's figures (each figure's median on its own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median round trip of small calls, µs.
    pub p50_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Sequential calls per second.
    pub sequential_calls_per_second: f64,
    /// Calls issued at once.
    pub concurrent_count: u32,
    /// Time for all of them, ms.
    pub concurrent_total_ms: f64,
    /// Their calls per second.
    pub concurrent_calls_per_second: f64,
    /// The most calls that failed in any round (0 for a sound figure).
    pub concurrent_failed_max: u32,
    /// A failure message, when some failed.
    pub concurrent_error: Option<String>,
    /// Median round trip of 64 KiB calls, µs.
    pub big_p50_us: f64,
    /// Connection set-up, ms.
    pub connect_ms: Option<f64>,
    /// Cold start: import to ready, ms.
    pub cold_ms: Option<f64>,
    /// Cold start steps of the bridge (import, init, install, ready), ms.
    pub cold_steps_ms: Option<[f64; 4]>,
}

/// The median of `values` (the mean of the two middle ones for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 })
}

fn median_of(runs: &[&ImplRun], figure: impl Fn(&ImplRun) -> f64) -> f64 {
    median(&runs.iter().map(|r| figure(r)).collect::<Vec<_>>()).unwrap_or(f64::NAN)
}

fn median_some(runs: &[&ImplRun], figure: impl Fn(&ImplRun) -> Option<f64>) -> Option<f64> {
    median(&runs.iter().filter_map(|r| figure(r)).collect::<Vec<_>>())
}

/// The medians of every implementation that ran in `rounds`.
pub fn summarize(rounds: &[Round]) -> BTreeMap<Impl, Summary> {
    let mut by_impl: BTreeMap<Impl, Vec<&ImplRun>> = BTreeMap::new();
    for run in rounds.iter().flat_map(|r| &r.runs) {
        by_impl.entry(run.implementation).or_default().push(run);
    }
    by_impl
        .into_iter()
        .map(|(implementation, runs)| {
            let steps = [
                median_some(&runs, |r| r.cold.as_ref().map(|c| c.import_ms)),
                median_some(&runs, |r| r.cold.as_ref().and_then(|c| c.init_ms)),
                median_some(&runs, |r| r.cold.as_ref().and_then(|c| c.install_ms)),
                median_some(&runs, |r| r.cold.as_ref().and_then(|c| c.ready_ms)),
            ];
            let cold_steps_ms = match steps {
                [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
                _ => None,
            };
            let summary = Summary {
                p50_us: median_of(&runs, |r| r.sequential.p50_us),
                p90_us: median_of(&runs, |r| r.sequential.p90_us),
                p99_us: median_of(&runs, |r| r.sequential.p99_us),
                sequential_calls_per_second: median_of(&runs, |r| r.sequential.calls_per_second),
                concurrent_count: runs.iter().map(|r| r.concurrent.count).max().unwrap_or(0),
                concurrent_total_ms: median_of(&runs, |r| r.concurrent.total_ms),
                concurrent_calls_per_second: median_of(&runs, |r| r.concurrent.calls_per_second),
                concurrent_failed_max: runs.iter().map(|r| r.concurrent.failed).max().unwrap_or(0),
                concurrent_error: runs.iter().find_map(|r| r.concurrent.first_error.clone()),
                big_p50_us: median_of(&runs, |r| r.big.p50_us),
                connect_ms: median_some(&runs, |r| r.connect_ms),
                cold_ms: median_some(&runs, |r| r.cold.as_ref().map(|c| c.total_ms)),
                cold_steps_ms,
            };
            (implementation, summary)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_takes_the_middle_or_the_mean_of_the_two_middles() {
        let cases: [(&[f64], Option<f64>); 6] = [
            (&[], None),
            (&[4.0], Some(4.0)),
            (&[9.0, 1.0, 5.0], Some(5.0)),
            (&[4.0, 1.0, 3.0, 2.0], Some(2.5)),
            (&[f64::NAN, 7.0], Some(7.0)),
            (&[f64::NAN], None),
        ];
        for (values, expected) in cases {
            assert_eq!(median(values), expected, "{values:?}");
        }
    }

    fn sequential(p50: f64, per_second: f64) -> SequentialRun {
        SequentialRun {
            count: 2000,
            text_length: 5,
            p50_us: p50,
            p90_us: p50 * 2.0,
            p99_us: p50 * 3.0,
            min_us: p50 / 2.0,
            total_ms: 1.0,
            calls_per_second: per_second,
        }
    }

    fn run(implementation: Impl, p50: f64, failed: u32, cold: Option<f64>) -> ImplRun {
        ImplRun {
            implementation,
            connect_ms: cold.map(|c| c / 10.0),
            sequential: sequential(p50, 1_000_000.0 / p50),
            concurrent: ConcurrentRun {
                count: 2000,
                failed,
                first_error: (failed > 0).then(|| "refused".to_owned()),
                total_ms: p50,
                calls_per_second: 2_000_000.0 / p50,
            },
            big: sequential(p50 * 4.0, 1.0),
            cold: cold.map(|total_ms| ColdRun {
                started_at_ms: 1.0,
                import_ms: total_ms / 2.0,
                init_ms: Some(total_ms / 4.0),
                install_ms: Some(1.0),
                ready_ms: Some(2.0),
                total_ms,
            }),
        }
    }

    #[test]
    fn summaries_take_each_figures_median_over_rounds() {
        let rounds = vec![
            Round { index: 0, order: vec![Impl::Port], runs: vec![run(Impl::Port, 300.0, 0, None)] },
            Round {
                index: 1,
                order: vec![Impl::Bridge, Impl::Port],
                runs: vec![run(Impl::Bridge, 500.0, 3, Some(40.0)), run(Impl::Port, 100.0, 0, None)],
            },
            Round { index: 2, order: vec![Impl::Port], runs: vec![run(Impl::Port, 200.0, 0, None)] },
        ];
        let summary = summarize(&rounds);
        let port = &summary[&Impl::Port];
        assert_eq!(port.p50_us, 200.0);
        assert_eq!(port.p99_us, 600.0);
        assert_eq!(port.big_p50_us, 800.0);
        assert_eq!(port.sequential_calls_per_second, 5000.0);
        assert_eq!(port.concurrent_failed_max, 0);
        assert_eq!(port.cold_ms, None);
        assert_eq!(port.connect_ms, None);
        let bridge = &summary[&Impl::Bridge];
        assert_eq!(bridge.concurrent_failed_max, 3);
        assert_eq!(bridge.concurrent_error.as_deref(), Some("refused"));
        assert_eq!(bridge.cold_ms, Some(40.0));
        assert_eq!(bridge.cold_steps_ms, Some([20.0, 10.0, 1.0, 2.0]));
        assert_eq!(bridge.connect_ms, Some(4.0));
    }

    #[test]
    fn page_json_reads_into_the_runs() {
        let json = r#"{"count":2000,"textLength":5,"p50Us":265.1,"p90Us":300,"p99Us":410,"minUs":200,
            "totalMs":560.5,"callsPerSecond":3568}"#;
        let run: SequentialRun = serde_json::from_str(json).unwrap();
        assert_eq!(run.p50_us, 265.1);
        assert_eq!(run.calls_per_second, 3568.0);
        let cold: ColdRun = serde_json::from_str(r#"{"startedAtMs":12,"importMs":3,"totalMs":3}"#).unwrap();
        assert_eq!(cold.init_ms, None);
        let concurrent: ConcurrentRun =
            serde_json::from_str(r#"{"count":2000,"failed":0,"firstError":null,"totalMs":130,"callsPerSecond":15384}"#)
                .unwrap();
        assert_eq!(concurrent.first_error, None);
    }
}
