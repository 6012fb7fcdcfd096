//! The replay test: what a page's session received in a real browser, replayed into a new session natively, gives
//! the same answers, effects, deadlines and storage writes in the same order (interpane_policy::session::tape).
//!
//! It needs the recording package: `scripts/build-pkg.sh --record`, then
//! `E2E_PKG_DIR=bridge/pkg-record cargo test -p interpane-e2e --test replay` (scripts/test.sh's step `e2e-replay`;
//! with `E2E_NATIVE=1` in a browser with native WebMCP). Against a package that does not record, it fails and says
//! so.

#[path = "e2e/cross_origin/pages.rs"]
#[allow(dead_code, reason = "the pages' helpers are shared with the e2e suite, which uses the rest")]
mod pages;

use std::process::ExitCode;

use interpane_e2e::{Ctx, E2eError, E2eResult, case, check, check_eq};
use interpane_policy::session::tape::{ReplayReport, replay};
use serde_json::{Value, json};

use pages::{BOTH_DIRECTIONS, Page, call, js, list, open_pair, register, wait_counter};

fn main() -> ExitCode {
    interpane_e2e::run_cases(vec![case!(
        "replay::each_pages_inputs_replay_natively_to_the_same_effects",
        each_pages_inputs_replay_natively_to_the_same_effects
    )])
}

/// A host page and its cross-origin iframe list and call each other's tools in both directions: a call that
/// returns, one that throws, one refused for its arguments, one aborted while it runs, then a tool unregistered.
/// Each page's tape (its journals opened from sessionStorage, ports, private-port batches, entropy, timers) replays
/// natively without a difference.
async fn each_pages_inputs_replay_natively_to_the_same_effects(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let echo = dir.tool("echo");
        let fails = dir.tool("fails");
        let waits = dir.tool("waits");
        let schema = json!({ "type": "object", "properties": { "n": { "type": "number" } }, "required": ["n"] });
        register(
            &t,
            dir.provider,
            json!({ "name": echo, "body": "return { echoed: args };", "inputSchema": schema }),
            json!({}),
        )
        .await?;
        let throws = "const e = new RangeError('out of stock'); e.status = 409; throw e;";
        register(&t, dir.provider, json!({ "name": fails, "body": throws }), json!({})).await?;
        let body = "await page.untilAborted(signal); return 'finished after the abort';";
        register(&t, dir.provider, json!({ "name": waits, "body": body }), json!({})).await?;
        list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;

        let outcome = call(&t, dir.consumer, &echo, json!({ "n": 2 })).await?;
        check_eq(outcome["ok"].clone(), json!(true), &format!("{echo}: the call returned"))?;
        let refused = call(&t, dir.consumer, &echo, json!({ "n": "two" })).await?;
        check(refused["ok"] != json!(true), || format!("{echo}: a call with a string for n is refused: {refused}"))?;
        let thrown = call(&t, dir.consumer, &fails, json!({})).await?;
        check_eq(thrown["name"].clone(), json!("RangeError"), &format!("{fails}: the error's name"))?;
        js(&t, dir.consumer, "return e2e.start(args[0], args[0], {});", vec![json!(waits)]).await?;
        wait_counter(&t, dir.provider_site, &waits, 1).await?;
        js(&t, dir.consumer, "return await e2e.abort(args[0]);", vec![json!(waits)]).await?;
        wait_counter(&t, dir.provider_site, &format!("{waits}.aborted"), 1).await?;
        js(&t, dir.provider, "return e2e.unregister(args[0]);", vec![json!(echo)]).await?;
    }
    for (page, what) in [(Page::Top, "the host page"), (Page::Frame("w"), "the iframe")] {
        let report = replay_page(&t, page, what).await?;
        eprintln!(
            "replay: {what}: {} inputs, {} effects, {} storage calls, {} entropy draws, the same",
            report.inputs, report.effects, report.store_calls, report.entropy_draws
        );
        check(report.inputs >= 20 && report.effects >= 20, || {
            format!("{what}: a tape of a whole scenario: {report:?}")
        })?;
        check(report.store_calls > 0, || format!("{what}: its journals were read and written: {report:?}"))?;
        check(report.entropy_draws > 0, || format!("{what}: it drew entropy: {report:?}"))?;
    }
    Ok(())
}

/// The tape of `page`'s session, replayed natively.
async fn replay_page(t: &Ctx, page: Page, what: &str) -> E2eResult<ReplayReport> {
    let body = "const bridge = await import('/pkg/interpane.js'); \
                return typeof bridge.recordedTape === 'function' ? (bridge.recordedTape() ?? 'not installed') : null;";
    let tape = js(t, page, body, vec![]).await?;
    let tape = match tape {
        Value::String(tape) if tape != "not installed" => tape,
        Value::Null => {
            return Err(E2eError::Check(format!(
                "{what}: the package does not record: build it with scripts/build-pkg.sh --record and serve it \
                 with E2E_PKG_DIR=bridge/pkg-record"
            )));
        }
        other => return Err(E2eError::Check(format!("{what}: no tape ({other})"))),
    };
    let report = replay(&tape).map_err(|error| {
        E2eError::Check(format!("{what}: the replay of its {} bytes of tape differs: {error}", tape.len()))
    })?;
    // The comparison is not vacuous: the same tape with one effect missing does not replay.
    let mut tampered: Value = serde_json::from_str(&tape).map_err(|e| E2eError::Check(e.to_string()))?;
    if let Some(steps) = tampered["steps"].as_array_mut()
        && let Some(at) = steps.iter().rposition(|step| step.get("effect").is_some())
    {
        steps.remove(at);
    }
    check(replay(&tampered.to_string()).is_err(), || format!("{what}: a tape without its last effect replays"))?;
    Ok(report)
}
