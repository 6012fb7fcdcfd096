//! Drives the pages through one browser session: every round opens each implementation's parent page (which
//! opens its cross-origin iframe), runs the measurements there, then opens its cold-start page.

use std::time::Duration;

use interpane_e2e::Session;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::cli::Workload;
use crate::error::BenchError;
use crate::figures::{ColdRun, ConcurrentRun, ImplRun, Round, SequentialRun};
use crate::impls::{Impl, round_order};
use crate::server::BenchServer;

/// How long a page may take to load and connect (the bridge's wasm compiles on a busy machine too).
const PAGE_READY: Duration = Duration::from_secs(60);

/// Runs every round of `impls` and returns them.
pub async fn run_rounds(
    session: &Session,
    server: &BenchServer,
    workload: &Workload,
    impls: &[Impl],
    mut progress: impl FnMut(&str),
) -> Result<Vec<Round>, BenchError> {
    let mut rounds = Vec::with_capacity(workload.rounds);
    for index in 0..workload.rounds {
        let order = round_order(impls, index);
        let mut runs = Vec::with_capacity(order.len());
        for &implementation in &order {
            let run = measure(session, server, workload, implementation).await?;
            progress(&format!(
                "round {}/{} {:<13} p50 {:>7.1} µs  at once {:>8.0} calls/s{}  64 KiB p50 {:>7.1} µs",
                index + 1,
                workload.rounds,
                implementation.name(),
                run.sequential.p50_us,
                run.concurrent.calls_per_second,
                if run.concurrent.failed > 0 { format!(" ({} failed)", run.concurrent.failed) } else { String::new() },
                run.big.p50_us
            ));
            runs.push(run);
        }
        rounds.push(Round { index, order, runs });
    }
    Ok(rounds)
}

/// Every measurement of one implementation, on fresh pages.
pub async fn measure(
    session: &Session,
    server: &BenchServer,
    workload: &Workload,
    implementation: Impl,
) -> Result<ImplRun, BenchError> {
    let page = ParentPage::open(session, server, implementation).await?;
    let sequential: SequentialRun = page
        .run(
            "sequential",
            json!({ "count": workload.sequential, "warmup": workload.warmup, "textLength": workload.small_chars }),
        )
        .await?;
    let concurrent: ConcurrentRun = page
        .run(
            "concurrent",
            json!({ "count": workload.concurrent, "warmup": workload.warmup, "textLength": workload.small_chars }),
        )
        .await?;
    let big: SequentialRun = page
        .run(
            "sequential",
            json!({ "count": workload.big, "warmup": (workload.big / 10).max(1), "textLength": workload.big_chars }),
        )
        .await?;
    let connect_ms = page.connect_ms;
    let cold =
        if implementation.has_cold_start() { Some(cold_start(session, server, implementation).await?) } else { None };
    Ok(ImplRun { implementation, connect_ms, sequential, concurrent, big, cold })
}

/// A parent page whose implementation is connected to its iframe.
pub struct ParentPage<'a> {
    session: &'a Session,
    implementation: Impl,
    /// Connection set-up as the page measured it, ms.
    pub connect_ms: Option<f64>,
}

impl<'a> ParentPage<'a> {
    /// Opens `/parent.html?impl=…` and waits until it is connected.
    pub async fn open(session: &'a Session, server: &BenchServer, implementation: Impl) -> Result<Self, BenchError> {
        let url = server.parent_url(&format!("/parent.html?impl={}", implementation.name()));
        wait_for_page(session, &url, implementation, "ready").await?;
        let connect = session.execute("return window.bench.connectMs;", vec![]).await?;
        Ok(ParentPage { session, implementation, connect_ms: connect.as_f64() })
    }

    /// Runs `window.bench.run(kind, options)` and reads its answer.
    pub async fn run<T: DeserializeOwned>(&self, kind: &str, options: Value) -> Result<T, BenchError> {
        let answer = self
            .session
            .execute_async("return window.bench.run(args[0], args[1]);", vec![json!(kind), options])
            .await
            .map_err(|error| BenchError::Page {
                implementation: self.implementation,
                doing: format!("measuring {kind}"),
                message: error.to_string(),
            })?;
        read(self.implementation, kind, answer)
    }

    /// Runs any async script body in the parent page (`args` holds `arguments`).
    pub async fn script(&self, body: &str, args: Vec<Value>) -> Result<Value, BenchError> {
        Ok(self.session.execute_async(body, args).await?)
    }
}

/// Opens `/cold.html?impl=…` in the (already used) window and reads what it measured.
async fn cold_start(session: &Session, server: &BenchServer, implementation: Impl) -> Result<ColdRun, BenchError> {
    let url = server.parent_url(&format!("/cold.html?impl={}", implementation.name()));
    wait_for_page(session, &url, implementation, "done").await?;
    let result = session.execute("return window.bench.result;", vec![]).await?;
    read(implementation, "the cold start", result)
}

/// Opens `url` and waits until `window.bench.state` leaves `loading`; fails unless it is `expected`.
async fn wait_for_page(session: &Session, url: &str, implementation: Impl, expected: &str) -> Result<(), BenchError> {
    session.open(url).await?;
    let state =
        session.wait_for("window.bench && window.bench.state !== 'loading' && window.bench.state", PAGE_READY).await?;
    if state.as_str() == Some(expected) {
        return Ok(());
    }
    let error = session.execute("return String(window.bench.error);", vec![]).await?;
    Err(BenchError::Page {
        implementation,
        doing: format!("opening {url}"),
        message: error.as_str().unwrap_or("no error message").to_owned(),
    })
}

fn read<T: DeserializeOwned>(implementation: Impl, what: &str, answer: Value) -> Result<T, BenchError> {
    serde_json::from_value(answer.clone()).map_err(|source| BenchError::PageJson {
        implementation,
        what: what.to_owned(),
        source,
        json: answer.to_string().chars().take(300).collect(),
    })
}
