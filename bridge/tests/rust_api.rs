//! The Rust API in a real browser page: tools registered with a guard, listed and called as futures, typed errors
//! that keep `status` and `retryAfter`, a dropped call that stops its tool, idempotency keys, `toolresult`, and the
//! statuses that pages of one origin announce to each other (`toolstatus`, docs/once-only.md §5).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use interpane::{
    Bridge, BridgeOptions, CallError, CallOptions, CallStatus, ObservedCall, ObservedStatus, ToolDefinition,
};
use interpane_policy::{ErrorKind, OriginList, RetryAfter, ToolError};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
export function ownOrigin() { return location.origin; }
// Another page of this origin, as far as the bridge can tell: its own end of the calls channel. With `sayHello` it
// says that it listens, as a bridge does when it starts (docs/protocol.md); the bridge's answers are kept apart.
export function otherPage(sayHello) {
  const channel = new BroadcastChannel("interpane:calls");
  const heard = [];
  const answers = [];
  channel.onmessage = (event) => (event.data?.kind === "webmcp-call-watcher" ? answers : heard).push(event.data);
  if (sayHello) channel.postMessage({ kind: "webmcp-call-watcher", hello: true });
  return { heard, answers, post: (message) => channel.postMessage(message) };
}
export function heard(page) { return JSON.stringify(page.heard); }
export function answers(page) { return JSON.stringify(page.answers); }
export function post(page, text) { page.post(JSON.parse(text)); }
export function recordToolStatus(context) {
  const seen = [];
  context.addEventListener("toolstatus", (event) => seen.push(`${event.tab}/${event.callId}/${event.status}`));
  return seen;
}
export function seen(list) { return list.join(","); }
export function sessionItem(key) { return sessionStorage.getItem(key) ?? ""; }
"#)]
extern "C" {
    fn sleep(ms: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = ownOrigin)]
    fn own_origin() -> String;
    #[wasm_bindgen(js_name = otherPage)]
    fn other_page(say_hello: bool) -> JsValue;
    fn heard(page: &JsValue) -> String;
    fn answers(page: &JsValue) -> String;
    fn post(page: &JsValue, text: &str);
    #[wasm_bindgen(js_name = recordToolStatus)]
    fn record_tool_status(context: &JsValue) -> JsValue;
    fn seen(list: &JsValue) -> String;
    #[wasm_bindgen(js_name = sessionItem)]
    fn session_item(key: &str) -> String;
}

async fn pause(ms: u32) {
    JsFuture::from(sleep(ms)).await.unwrap();
}

fn bridge() -> Bridge {
    Bridge::install(BridgeOptions::default()).unwrap()
}

fn no_other_origin() -> OriginList {
    OriginList::parse("").unwrap()
}

async fn own_tool(bridge: &Bridge, name: &str) -> interpane::RemoteTool {
    let tools = bridge.get_tools(no_other_origin()).await;
    tools.into_iter().find(|t| t.name() == name).unwrap_or_else(|| panic!("{name} is not listed"))
}

/// Waits up to two seconds for `done`.
async fn until(mut done: impl FnMut() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        pause(20).await;
    }
}

/// A tool that counts its runs and returns `{ "run": <its number> }`; the count.
fn counted_tool(name: &str) -> (ToolDefinition, Rc<Cell<u32>>) {
    let runs = Rc::new(Cell::new(0));
    let counter = runs.clone();
    let tool = ToolDefinition::new(name, "Counts its runs.", move |_args: Value, _signal| {
        let runs = counter.clone();
        async move {
            runs.set(runs.get() + 1);
            Ok::<Value, ToolError>(json!({ "run": runs.get() }))
        }
    });
    (tool, runs)
}

#[wasm_bindgen_test]
async fn a_registered_tool_is_listed_called_and_unregistered_when_its_guard_drops() {
    let bridge = bridge();
    let echo = ToolDefinition::new("rust_echo", "Echoes its arguments.", |args: Value, _signal| async move {
        Ok::<Value, ToolError>(json!({ "echo": args }))
    })
    .input_schema(json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }));
    let registration = bridge.register_tool(echo).unwrap();
    let tool = own_tool(&bridge, "rust_echo").await;
    assert_eq!(tool.origin(), own_origin());
    assert_eq!(tool.input_schema().unwrap()["required"], json!(["text"]));
    let result = bridge.execute_tool(&tool, json!({ "text": "hi" }), CallOptions::default()).await.unwrap();
    assert_eq!(result, json!({ "echo": { "text": "hi" } }));

    let refused = bridge.execute_tool(&tool, json!({ "text": 5 }), CallOptions::default()).await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidArgs, "{refused}");
    assert!(refused.to_string().contains("text"), "{refused}");

    drop(registration);
    let tools = bridge.get_tools(no_other_origin()).await;
    assert!(!tools.iter().any(|t| t.name() == "rust_echo"));
}

/// A Rust call whose arguments break the page's limits is refused by the same rules as a JavaScript call, at
/// once: before, nothing checked its size, and its caller waited until the liveness probe gave up.
#[wasm_bindgen_test]
async fn a_call_over_the_size_limit_is_refused_at_once_with_a_typed_error() {
    use interpane_policy::JsonError;
    use interpane_policy::call_args::CallArgsError;
    let bridge = bridge();
    let (tool, ran) = counted_tool("rust_sink");
    let _registration = bridge.register_tool(tool).unwrap();
    let tool = own_tool(&bridge, "rust_sink").await;
    let limit = interpane_policy::Limits::default().max_message_bytes;
    let mut call = bridge.execute_tool(&tool, json!({ "blob": "x".repeat(limit) }), CallOptions::default());
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(Err(error)) = std::pin::Pin::new(&mut call).poll(&mut context) else {
        panic!("the call was not refused on its first poll");
    };
    let CallError::Arguments(CallArgsError::Json(JsonError::TooLarge { bytes, limit: said })) = &error else {
        panic!("not a size refusal: {error:?}");
    };
    assert_eq!((*bytes, *said), (limit + 11, limit));
    assert_eq!(error.kind(), ErrorKind::InvalidArgs);
    assert!(error.to_string().starts_with("the arguments text is "), "{error}");

    let refused = bridge.execute_tool(&tool, json!({ "a": { "__proto__": 1 } }), CallOptions::default()).await;
    assert!(matches!(refused, Err(CallError::Arguments(CallArgsError::ProtoKey))), "{refused:?}");
    let refused = bridge.execute_tool(&tool, json!("text"), CallOptions::default()).await;
    assert!(matches!(refused, Err(CallError::Arguments(CallArgsError::NotAnObject))), "{refused:?}");
    pause(50).await;
    assert_eq!(ran.get(), 0, "a refused call ran its tool");
}

#[wasm_bindgen_test]
async fn a_tool_error_keeps_its_status_and_retry_after() {
    let bridge = bridge();
    let limited = ToolDefinition::new("rust_limited", "Always rate limited.", |_args: Value, _signal| async move {
        let mut error = ToolError::new(ErrorKind::ToolError, "too many searches");
        error.status = Some(429);
        error.retry_after = Some(RetryAfter::Seconds(30.0));
        Err::<Value, ToolError>(error)
    });
    let _registration = bridge.register_tool(limited).unwrap();
    let tool = own_tool(&bridge, "rust_limited").await;
    let error = bridge.execute_tool(&tool, json!({}), CallOptions::default()).await.unwrap_err();
    let CallError::Tool(error) = error else { panic!("not a tool error: {error:?}") };
    assert_eq!(error.kind, ErrorKind::ToolError);
    assert_eq!(error.message, "too many searches");
    assert_eq!(error.status, Some(429));
    assert_eq!(error.retry_after, Some(RetryAfter::Seconds(30.0)));
}

#[wasm_bindgen_test]
async fn dropping_a_call_stops_it_and_aborts_the_tools_signal() {
    let bridge = bridge();
    let started = Rc::new(Cell::new(false));
    let aborted = Rc::new(Cell::new(false));
    let (s, a) = (started.clone(), aborted.clone());
    let slow =
        ToolDefinition::new("rust_slow", "Runs until stopped.", move |_args: Value, signal: web_sys::AbortSignal| {
            let (started, aborted) = (s.clone(), a.clone());
            async move {
                started.set(true);
                while !signal.aborted() {
                    pause(10).await;
                }
                aborted.set(true);
                Err::<Value, ToolError>(ToolError::new(ErrorKind::Cancelled, "stopped"))
            }
        });
    let _registration = bridge.register_tool(slow).unwrap();
    let tool = own_tool(&bridge, "rust_slow").await;
    let call = bridge.execute_tool(&tool, json!({}), CallOptions::default().call_id("rust-dropped-1"));
    until(|| started.get()).await;
    assert!(started.get(), "the tool never started");
    drop(call);
    until(|| aborted.get()).await;
    assert!(aborted.get(), "the tool's signal did not abort when its call was dropped");

    // The stopped call is never run again under its key.
    let again = bridge.execute_tool(&tool, json!({}), CallOptions::default().call_id("rust-dropped-1")).await;
    assert_eq!(again.unwrap_err().kind(), ErrorKind::Cancelled);
}

#[wasm_bindgen_test]
async fn a_call_id_runs_its_tool_once_and_every_settled_call_is_reported() {
    let bridge = bridge();
    let (counted, runs) = counted_tool("rust_counted");
    let _registration = bridge.register_tool(counted).unwrap();
    let reported: Rc<RefCell<Vec<(String, CallStatus)>>> = Rc::default();
    let sink = reported.clone();
    let _listener = bridge.on_tool_result(move |result| {
        sink.borrow_mut().push((result.call_id.clone(), result.status()));
    });
    let tool = own_tool(&bridge, "rust_counted").await;
    let first = bridge.execute_tool(&tool, json!({}), CallOptions::default().call_id("rust-once-1")).await.unwrap();
    let second = bridge.execute_tool(&tool, json!({}), CallOptions::default().call_id("rust-once-1")).await.unwrap();
    assert_eq!(first, json!({ "run": 1 }));
    assert_eq!(second, first, "the second call with the same key must return the recorded result");
    assert_eq!(runs.get(), 1);
    until(|| !reported.borrow().is_empty()).await;
    assert_eq!(reported.borrow().first(), Some(&("rust-once-1".to_owned(), CallStatus::Completed)));
}

#[wasm_bindgen_test]
async fn pages_of_one_origin_observe_each_others_call_statuses_and_nothing_else() {
    let bridge = bridge();
    let quick = ToolDefinition::new("rust_observed", "Returns a secret.", |_args: Value, _signal| async move {
        Ok::<Value, ToolError>(json!({ "secret": "s3cr3t" }))
    });
    let _registration = bridge.register_tool(quick).unwrap();
    let tool = own_tool(&bridge, "rust_observed").await;
    // A page that reads the channel without saying it listens hears nothing: no page said it wants statuses.
    let silent = other_page(false);
    bridge.execute_tool(&tool, json!({}), CallOptions::default().call_id("rust-unwatched-1")).await.unwrap();
    pause(300).await;
    assert_eq!(heard(&silent), "[]", "announced while no page had said it listens");
    // A page that says it listens gets an answer (so that it knows of this page too), then the statuses.
    let other = other_page(true);
    until(|| answers(&other) != "[]").await;
    assert_eq!(answers(&other), r#"[{"kind":"webmcp-call-watcher"}]"#);
    bridge
        .execute_tool(
            &tool,
            json!({ "card": "4111 1111 1111 1111" }),
            CallOptions::default().call_id("rust-observed-1"),
        )
        .await
        .unwrap();
    until(|| heard(&other).matches("rust-observed-1").count() >= 2).await;
    let (label, tab_id) = (session_item("webmcp:tab-label"), session_item("webmcp:tab"));
    assert!(!label.is_empty() && !tab_id.is_empty() && label != tab_id, "label {label:?}, tab id {tab_id:?}");
    let announcements: Vec<Value> = serde_json::from_str(&heard(&other)).unwrap();
    assert!(announcements.iter().all(|a| a["kind"] == "webmcp-call-status"), "{announcements:?}");
    let calls: Vec<&Value> = announcements.iter().flat_map(|a| a["calls"].as_array().unwrap()).collect();
    let ours: Vec<&&Value> = calls.iter().filter(|c| c["callId"] == "rust-observed-1").collect();
    assert_eq!(ours.len(), 2, "{announcements:?}");
    assert_eq!(ours[0]["status"], "running");
    assert_eq!(ours[1]["status"], "completed");
    assert!(ours[1]["durationMs"].as_f64().is_some_and(|ms| ms >= 0.0));
    for call in &ours {
        assert_eq!(call["name"], "rust_observed");
        assert_eq!(call["origin"], own_origin().as_str());
        assert_eq!(call["tab"], label.as_str(), "announcements carry the tab's public label");
    }
    let text = heard(&other);
    // (The card number has spaces: the page's origin may hold "4111" in its port.)
    assert!(!text.contains("s3cr3t") && !text.contains("4111 1111"), "arguments or results were announced: {text}");
    // The tab id decides which calls a page may resume: other pages never see it (issue 13).
    assert!(!text.contains(&tab_id), "the tab id was announced: {text}");

    // What another page announces reaches the Rust listener and the `toolstatus` event; malformed
    // announcements reach neither, and nothing runs.
    let observed: Rc<RefCell<Vec<ObservedCall>>> = Rc::default();
    let sink = observed.clone();
    let _listener = bridge.on_tool_status(move |call| sink.borrow_mut().push(call.clone()));
    let events = record_tool_status(&bridge.model_context());
    let base = r#""tab":"t-other","name":"pay_invoice","origin":"https://pay.example""#;
    let announce = |calls: &str| format!(r#"{{"kind":"webmcp-call-status","calls":[{calls}]}}"#);
    for malformed in [
        announce(&format!(r#"{{{base},"callId":"bad-1","status":"exploded"}}"#)),
        announce(&format!(r#"{{{base},"callId":"","status":"completed"}}"#)),
        announce(&format!(r#"{{{base},"callId":"bad-3","status":"completed","durationMs":-4}}"#)),
        announce(r#""not a call""#),
        format!(r#"{{"kind":"something-else","calls":[{{{base},"callId":"bad-4","status":"completed"}}]}}"#),
        format!(r#"{{"kind":"webmcp-call-status","calls":{{{base},"callId":"bad-5","status":"completed"}}}}"#),
        r#""just a string""#.to_owned(),
    ] {
        post(&other, &malformed);
    }
    // One announcement may carry several calls; a malformed one among them is skipped alone.
    post(
        &other,
        &announce(&format!(
            r#"{{{base},"callId":"elsewhere-1","status":"running"}},{{{base},"callId":"bad-6","status":42}},
               {{{base},"callId":"elsewhere-1","status":"completed","durationMs":12}}"#
        )),
    );
    until(|| observed.borrow().len() >= 2).await;
    pause(50).await;
    let observed = observed.borrow();
    assert_eq!(observed.len(), 2, "{observed:?}");
    assert_eq!(observed[0].status, ObservedStatus::Running);
    assert_eq!(observed[0].duration_ms, None);
    assert_eq!(
        observed[1],
        ObservedCall {
            tab_label: "t-other".into(),
            call_id: "elsewhere-1".into(),
            name: "pay_invoice".into(),
            origin: "https://pay.example".into(),
            status: ObservedStatus::Settled(CallStatus::Completed),
            duration_ms: Some(12),
        }
    );
    assert_eq!(seen(&events), "t-other/elsewhere-1/running,t-other/elsewhere-1/completed");
}

/// A listener whose closure owns a tool's registration: dropping the listener's guard drops the closure, which
/// unregisters the tool, which fires `toolchange` at the listeners while their list was being changed. Before, that
/// borrowed the list twice and trapped the wasm, and every later call of the page's bridge with it.
#[wasm_bindgen_test]
async fn dropping_a_listener_that_owns_a_registration_unregisters_it_and_the_bridge_keeps_working() {
    let bridge = bridge();
    let (tool, _) = counted_tool("owned_by_a_listener");
    let registration = bridge.register_tool(tool).unwrap();
    own_tool(&bridge, "owned_by_a_listener").await;
    let changes = Rc::new(Cell::new(0));
    let counter = changes.clone();
    let change_guard = bridge.on_tool_change(move || counter.set(counter.get() + 1));
    let owner = bridge.on_tool_result(move |_| {
        let _kept = &registration;
    });
    drop(owner);
    assert_eq!(changes.get(), 1, "the unregistration fired toolchange once");
    let tools = bridge.get_tools(no_other_origin()).await;
    assert!(!tools.iter().any(|t| t.name() == "owned_by_a_listener"));
    let (tool, runs) = counted_tool("after_the_owner_went");
    let _registration = bridge.register_tool(tool).unwrap();
    let tool = own_tool(&bridge, "after_the_owner_went").await;
    assert_eq!(bridge.execute_tool(&tool, json!({}), CallOptions::default()).await.unwrap(), json!({ "run": 1 }));
    assert_eq!(runs.get(), 1);
    drop(change_guard);
}

/// Listeners of `toolchange` and `toolresult` that call the bridge back at once: the first registers a tool, the
/// second starts a call, drops another at once (which stops it) and drops a registration. Each takes effect and the
/// bridge keeps working.
#[wasm_bindgen_test]
async fn listeners_that_call_the_bridge_back_at_once_leave_it_working() {
    let bridge = bridge();
    let (tool, runs) = counted_tool("called_from_a_listener");
    let _target = bridge.register_tool(tool).unwrap();
    let target = own_tool(&bridge, "called_from_a_listener").await;
    let (tool, _) = counted_tool("dropped_in_toolresult");
    let registration = Rc::new(RefCell::new(Some(bridge.register_tool(tool).unwrap())));
    let registered = Rc::new(RefCell::new(Vec::new()));
    let (from_change, into) = (bridge.clone(), registered.clone());
    let change_guard = bridge.on_tool_change(move || {
        if into.borrow().is_empty() {
            let (tool, _) = counted_tool("registered_in_toolchange");
            let made = from_change.register_tool(tool);
            into.borrow_mut().push(made);
        }
    });
    let calls = Rc::new(RefCell::new(Vec::new()));
    let (from_result, started, owned) = (bridge.clone(), calls.clone(), registration.clone());
    let result_guard = bridge.on_tool_result(move |_| {
        if started.borrow().is_empty() {
            let call = from_result.execute_tool(&target, json!({}), CallOptions::default());
            started.borrow_mut().push(call);
            drop(from_result.execute_tool(&target, json!({}), CallOptions::default()));
            let dropped = owned.borrow_mut().take();
            drop(dropped);
        }
    });
    let (tool, _) = counted_tool("the_first_result");
    let _first = bridge.register_tool(tool).unwrap();
    let first = own_tool(&bridge, "the_first_result").await;
    assert_eq!(bridge.execute_tool(&first, json!({}), CallOptions::default()).await.unwrap(), json!({ "run": 1 }));
    assert!(matches!(registered.borrow().as_slice(), [Ok(_)]), "the registration in toolchange");
    let call = calls.borrow_mut().pop().expect("the call started in toolresult");
    assert!(call.await.is_ok(), "the call started in toolresult");
    assert!((1..=2).contains(&runs.get()), "the dropped call ran at most once: {}", runs.get());
    let tools = bridge.get_tools(no_other_origin()).await;
    assert!(tools.iter().any(|t| t.name() == "registered_in_toolchange"));
    assert!(!tools.iter().any(|t| t.name() == "dropped_in_toolresult"), "unregistered in toolresult");
    drop((change_guard, result_guard));
}
