#![cfg(all(feature = "record", not(target_arch = "wasm32")))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "a failed expectation is a failed test")]
//! A session's tape replays to what the session did, and a replay notices every kind of difference: another
//! input, other entropy, another storage reply, an effect missing. (The simulator, `session_sim`, replays every
//! page it ran; the end-to-end test `replay::…` replays a page of a real browser.)

mod session_support;

use interpane_policy::session::tape::{ReplayError, replay};
use interpane_policy::session::{CallRequest, CallTarget, Input, PeerId, RunId, RunResult, WaiterId};
use serde_json::Value;
use session_support::{Page, name, tool};

const SHOP: &str = "https://shop.example";

/// A page that opens its journals, registers a tool, calls it twice (one run returns, one throws) and stops a
/// third call: entropy for the call ids, journal writes, runs, settlements, `toolresult`s.
fn recorded_page() -> String {
    let mut page = Page::new(SHOP, "https://widget.example");
    page.open();
    let mut spec = tool("add");
    let schema = r#"{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}"#;
    spec.input_schema = Some(session_support::json(schema));
    spec.checker = Some(interpane_policy::ArgSchema::compile(&serde_json::from_str(schema).unwrap()).unwrap());
    page.register(spec);
    let call = |waiter: u64, args: &str| {
        Input::Execute(CallRequest {
            waiter: WaiterId(waiter),
            target: CallTarget::Listed(PeerId::SELF),
            tool: name("add"),
            args: Some(args.to_owned()),
            call_id: None,
            timeout_ms: None,
        })
    };
    page.task(call(1, r#"{"n":1}"#));
    page.task(Input::ToolSettled { run: RunId(1), result: RunResult::Returned("2".into()) });
    page.task(call(2, r#"{"n":"one"}"#));
    page.task(call(3, r#"{"n":3}"#));
    page.now += 10;
    page.task(Input::Stop(WaiterId(3)));
    page.advance_to(page.now + 5_000);
    page.session.tape_json()
}

/// The tape with `change` made to the first step for which `pick` says yes.
fn tampered(tape: &str, pick: impl Fn(&Value) -> bool, change: impl FnOnce(&mut Value)) -> String {
    let mut tape: Value = serde_json::from_str(tape).unwrap();
    let steps = tape["steps"].as_array_mut().unwrap();
    let step = steps.iter_mut().find(|s| pick(s)).expect("the tape has such a step");
    change(step);
    tape.to_string()
}

fn diverged_at(result: Result<interpane_policy::session::tape::ReplayReport, ReplayError>) -> usize {
    match result {
        Err(ReplayError::Diverged { step, .. }) => step,
        other => panic!("the replay should differ, it gave {other:?}"),
    }
}

#[test]
fn a_tape_replays_to_the_same_answers_effects_and_storage_writes() {
    let tape = recorded_page();
    let report = replay(&tape).unwrap();
    assert!(report.inputs >= 10, "{report:?}");
    assert!(report.effects >= 10, "{report:?}");
    assert!(report.entropy_draws >= 1, "{report:?}");
    assert!(report.store_calls >= 4, "{report:?}");
}

#[test]
fn other_arguments_make_a_replay_differ() {
    let tape = recorded_page();
    let changed = tampered(
        &tape,
        |s| s["input"]["input"]["Execute"]["args"] == r#"{"n":1}"#,
        |s| s["input"]["input"]["Execute"]["args"] = Value::from(r#"{"n":"1"}"#),
    );
    diverged_at(replay(&changed));
}

#[test]
fn other_entropy_makes_a_replay_differ() {
    let tape = recorded_page();
    let changed = tampered(
        &tape,
        |s| s.get("entropy").is_some(),
        |s| s["entropy"][0] = Value::from(255 - s["entropy"][0].as_u64().unwrap()),
    );
    diverged_at(replay(&changed));
}

#[test]
fn another_storage_reply_makes_a_replay_differ() {
    let tape = recorded_page();
    let changed = tampered(
        &tape,
        |s| s["store"].get("put").is_some(),
        |s| s["store"]["put"]["refused"] = serde_json::json!("full"),
    );
    diverged_at(replay(&changed));
}

#[test]
fn a_missing_effect_makes_a_replay_differ() {
    let tape = recorded_page();
    let mut value: Value = serde_json::from_str(&tape).unwrap();
    let steps = value["steps"].as_array_mut().unwrap();
    let at = steps.iter().position(|s| s["effect"].as_str().is_some_and(|e| e.starts_with("RunTool"))).unwrap();
    steps.remove(at);
    diverged_at(replay(&value.to_string()));
}

#[test]
fn a_tape_that_is_not_one_is_refused() {
    assert!(matches!(replay("{\"steps\": []}"), Err(ReplayError::Unreadable(_))));
    let tape = recorded_page();
    let changed = tampered(&tape, |s| s.get("input").is_some(), |s| s["input"]["now"] = Value::from("soon"));
    assert!(matches!(replay(&changed), Err(ReplayError::Unreadable(_))));
}
