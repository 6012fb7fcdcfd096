//! The flood of issue 8: the attacker frame posts 10,000 messages to the shop as fast as it can (tool list requests,
//! calls of tools it may not see, malformed, oversized and nearly 1 MiB ones, extension messages, forged results)
//! while the widget keeps calling the shop. The case prints the widget's call latency before, during and after the
//! flood and the shop's memory; it asserts only that every call completed, that nothing ran for the attacker, that
//! the console got a handful of warnings, and a generous memory bound.
//!
//! It runs in a Chromium of its own, started with `--enable-precise-memory-info` (without it
//! `performance.memory` is rounded and refreshed every 20 minutes) and `--js-flags=--expose-gc` (so that both
//! readings follow a full collection).

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::browser::own_chromium;
use interpane_e2e::driver::Driver;
use interpane_e2e::session::Session;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::arena::{Frame, check_arena_clean, check_nothing_else_ran, open_arena_in, run_in};

/// Messages in the flood.
const FLOOD: u64 = 10_000;
/// Widget calls before and after the flood.
const CALLS_OUTSIDE: u64 = 15;
/// How long the shop may take to get through the flood.
const FLOOD_WAIT: Duration = Duration::from_secs(180);
/// The memory bound: growth of the shop's JS heap, and of the bridge's wasm memory, in bytes.
const MAX_GROWTH: u64 = 50 * 1024 * 1024;
/// At most this many console warnings for the whole flood (one per kind of refusal in it).
const MAX_WARNINGS: usize = 10;

const EXTRA_ARGS: [&str; 2] = ["--enable-precise-memory-info", "--js-flags=--expose-gc"];

/// A chromedriver and a Chromium of this case's own, with [`EXTRA_ARGS`].
pub(super) async fn precise_memory_session() -> E2eResult<(Driver, Session)> {
    own_chromium(&EXTRA_ARGS).await
}

/// `count` sequential widget calls of `cart`; their latencies in milliseconds.
pub(super) const CALLS: &str = "const out = []; for (let i = 0; i < args[0]; i += 1) { const start = performance.now(); \
    const state = await window.__demo.run('cart'); out.push({ ms: performance.now() - start, state }); } return out;";

/// In the widget: tells the attacker to go, then every 50 ms starts a call (without waiting for the previous one,
/// but with at most [`MAX_IN_FLIGHT`] running: the shop refuses an origin's 65th running call) until the attacker
/// says the shop got through the whole flood (its round trip came back); the calls' latencies land in
/// `window.__floodRun` once all of them settled.
const DURING: &str = "const evil = parent.frames[2]; const run = { during: [], report: null, done: false, error: null }; \
    window.__floodRun = run; let started; const go = new Promise((resolve) => { started = resolve; }); \
    addEventListener('message', (event) => { if (event.source !== evil || event.origin !== args[0]) return; \
      if (event.data?.type === 'e2e-flood-started') started(); \
      if (event.data?.type === 'e2e-flood-finished') run.report = event.data; }); \
    (async () => { evil.postMessage({ type: 'e2e-flood-go' }, args[0]); await go; const calls = []; let inFlight = 0; \
      while (!run.report) { if (inFlight < args[1]) { const start = performance.now(); inFlight += 1; \
          calls.push(window.__demo.run('cart').then((state) => { inFlight -= 1; \
            run.during.push({ ms: performance.now() - start, state }); })); } \
        await new Promise((resolve) => setTimeout(resolve, 50)); } \
      await Promise.all(calls); })() \
      .catch((error) => { run.error = String(error); }).finally(() => { run.done = true; }); return true;";

/// Calls the widget keeps running at once during the flood: below the shop's limit per origin (64).
const MAX_IN_FLIGHT: u64 = 40;

/// The widget's failed chips (tool, code, detail), to say why a call failed.
const FAILED_CHIPS: &str = "return [...document.querySelectorAll('.chip[data-state=\"failed\"]')].slice(0, 3)\
    .map((chip) => [chip.dataset.tool, chip.dataset.code, chip.closest('li').querySelector('.call-detail').textContent]);";

/// (p50, max) of the `ms` fields, and whether every call completed.
pub(super) fn latencies(calls: &Value) -> (f64, f64, usize, bool) {
    let calls = calls.as_array().cloned().unwrap_or_default();
    let mut ms: Vec<f64> = calls.iter().filter_map(|call| call["ms"].as_f64()).collect();
    ms.sort_by(f64::total_cmp);
    let p50 = ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN);
    let max = ms.last().copied().unwrap_or(f64::NAN);
    let completed = !calls.is_empty() && calls.iter().all(|call| call["state"] == "completed");
    (p50, max, calls.len(), completed)
}

pub(super) async fn memory(session: &Session) -> E2eResult<Value> {
    run_in(session, Frame::Shop, "return await window.__victim.memory();", vec![]).await
}

pub(super) fn mib(bytes: &Value) -> String {
    bytes.as_f64().map_or_else(|| "n/a".to_owned(), |b| format!("{:.1} MiB", b / 1024.0 / 1024.0))
}

pub(super) fn growth(before: &Value, after: &Value, field: &str) -> i64 {
    after[field].as_i64().unwrap_or(0) - before[field].as_i64().unwrap_or(0)
}

async fn flood_in(t: &Ctx, session: &Session) -> E2eResult<()> {
    open_arena_in(t, session, 100).await?;
    let before = memory(session).await?;
    let baseline = run_in(session, Frame::Widget, CALLS, vec![json!(CALLS_OUTSIDE)]).await?;

    run_in(session, Frame::Evil, "return window.__flood.arm(args[0]);", vec![json!(FLOOD)]).await?;
    run_in(session, Frame::Widget, DURING, vec![json!(t.origin(Site::Evil)), json!(MAX_IN_FLIGHT)]).await?;
    let run = session.wait_for("window.__floodRun.done && window.__floodRun", FLOOD_WAIT).await?;
    check_eq(run["error"].clone(), Value::Null, "the widget's calls during the flood")?;
    let after_calls = run_in(session, Frame::Widget, CALLS, vec![json!(CALLS_OUTSIDE)]).await?;
    let after = memory(session).await?;

    let report = &run["report"];
    let rows = [("before", &baseline), ("during", &run["during"]), ("after", &after_calls)];
    eprintln!(
        "flood: {FLOOD} messages posted in {:.0} ms, handled by the shop in {:.0} ms ({:.0} messages/s)",
        report["postedMs"].as_f64().unwrap_or(f64::NAN),
        report["handledMs"].as_f64().unwrap_or(f64::NAN),
        FLOOD as f64 / report["handledMs"].as_f64().unwrap_or(f64::NAN) * 1000.0
    );
    for (when, calls) in rows {
        let (p50, max, count, _) = latencies(calls);
        eprintln!("flood: widget call latency {when} the flood: p50 {p50:.1} ms, max {max:.1} ms ({count} calls)");
    }
    eprintln!(
        "flood: shop memory before -> after: JS heap {} -> {}, wasm {} -> {}, sessionStorage {} -> {} chars (precise heap: gc {})",
        mib(&before["jsHeapBytes"]),
        mib(&after["jsHeapBytes"]),
        mib(&before["wasmBytes"]),
        mib(&after["wasmBytes"]),
        before["storageChars"],
        after["storageChars"],
        after["gc"]
    );
    let tally = run_in(session, Frame::Evil, "return window.__attack.tally();", vec![]).await?;
    eprintln!("flood: what the attacker got back: {tally}");
    let warnings = run_in(
        session,
        Frame::Shop,
        "return window.__victim.warnings.filter((line) => line.startsWith('interpane:'));",
        vec![],
    )
    .await?;
    let warnings: Vec<String> = serde_json::from_value(warnings).unwrap_or_default();
    eprintln!("flood: {} console warnings in the shop: {warnings:#?}", warnings.len());
    let posts = run_in(
        session,
        Frame::Shop,
        "return { byTarget: window.__victim.bridgePosts, spyDropped: window.__postMessageLogDropped };",
        vec![],
    )
    .await?;
    eprintln!("flood: the shop's bridge posted (by target origin) {posts}");

    for (when, calls) in rows {
        let (_, _, count, completed) = latencies(calls);
        if !completed {
            let why = run_in(session, Frame::Widget, FAILED_CHIPS, vec![]).await?;
            return Err(E2eError::Check(format!(
                "the widget's calls {when} the flood did not all complete ({count} calls; failed chips: {why}): {calls}"
            )));
        }
    }
    check(warnings.len() <= MAX_WARNINGS, || format!("{} warnings for one flood: {warnings:?}", warnings.len()))?;
    for field in ["jsHeapBytes", "wasmBytes"] {
        let grew = growth(&before, &after, field);
        check(grew < MAX_GROWTH as i64, || format!("the shop's {field} grew by {grew} bytes during the flood"))?;
    }
    let calls = 2 * CALLS_OUTSIDE + latencies(&run["during"]).2 as u64;
    check_eq(t.counter(Site::Shop, "get_cart"), calls, "runs of get_cart (the widget's calls, none for the attacker)")?;
    check_nothing_else_ran(t, &["get_cart"])?;
    let tools = run_in(session, Frame::Widget, "return (await window.__demo.refreshTools()).sort();", vec![]).await?;
    let expected = json!(["add_to_cart", "checkout", "get_cart", "request_demo", "search_products"]);
    check_eq(tools, expected, "the tools the widget lists after the flood")?;
    check_arena_clean(session).await
}

/// The widget's calls complete during a 10,000-message flood; latency and memory are printed; nothing runs for
/// the attacker; the console gets at most a handful of warnings; memory stays within a generous bound.
pub async fn a_flood_does_not_stall_the_widget(t: Ctx) -> E2eResult<()> {
    let (driver, session) = precise_memory_session().await?;
    let outcome = flood_in(&t, &session).await;
    close_precise_memory_session(driver, session, outcome).await
}

/// Closes a session of [`precise_memory_session`], then ends its chromedriver, and returns the case's outcome.
pub(super) async fn close_precise_memory_session(
    driver: Driver,
    session: Session,
    outcome: E2eResult<()>,
) -> E2eResult<()> {
    let closed = session.close().await;
    // Only now, with its session closed: dropping the guard kills this chromedriver by its PID.
    drop(driver);
    outcome.and(closed)
}
