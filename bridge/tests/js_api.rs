//! The JavaScript API in a real browser page: install, tools of this page, errors, aborts, idempotency, events,
//! result safety, and the plain WebMCP peers (same-origin and sandboxed frames) around it.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/tests/helpers.js")]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_name = postedTargets)]
    static POSTED_TARGETS: js_sys::Array;
    #[wasm_bindgen(js_name = nextTask)]
    fn next_task(ms: u32) -> Promise;
    fn settle(promise: &Promise) -> Promise;
    #[wasm_bindgen(js_name = registerCounting)]
    fn register_counting(mc: &JsValue, name: &str, execute: &js_sys::Function, extra: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = waitForEvent)]
    fn wait_for_event(target: &JsValue, kind: &str, predicate: &js_sys::Function) -> Promise;
    #[wasm_bindgen(js_name = detailOf)]
    fn detail_of(event: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = plainPeerFrame)]
    fn plain_peer_frame(tools: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = plainConsumerFrame)]
    fn plain_consumer_frame() -> Promise;
    #[wasm_bindgen(js_name = opaqueFrameProbe)]
    fn opaque_frame_probe(messages: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = journalKeys)]
    fn journal_keys() -> js_sys::Array;
    fn hide();
}

fn mc() -> JsValue {
    interpane::install(JsValue::UNDEFINED).unwrap()
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn get(object: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(object.clone(), |value, key| Reflect::get(&value, &JsValue::from_str(key)).unwrap())
}

fn text(value: &JsValue) -> String {
    js_sys::JSON::stringify(value).map(String::from).unwrap_or_else(|_| format!("{value:?}"))
}

async fn wait(promise: Promise) -> JsValue {
    JsFuture::from(promise).await.unwrap()
}

async fn call(method: &str, args: &[JsValue]) -> JsValue {
    let context = mc();
    let function: js_sys::Function = get(&context, method).dyn_into().unwrap();
    let result = function.apply(&context, &args.iter().collect::<js_sys::Array>()).unwrap();
    wait(settle(&result.dyn_into::<Promise>().unwrap())).await
}

fn function(body: &str) -> js_sys::Function {
    js_sys::Function::new_with_args("args, context", body)
}

async fn local_tool(name: &str) -> JsValue {
    let tools = call("getTools", &[Object::new().into()]).await;
    let tools: js_sys::Array = get(&tools, "value").dyn_into().unwrap();
    tools
        .iter()
        .find(|t| get(t, "name").as_string().as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[wasm_bindgen_test]
async fn ready_resolves_once_the_journal_is_open() {
    let ready: Promise = get(&mc(), "ready").dyn_into().unwrap();
    wait(ready).await;
}

#[wasm_bindgen_test]
fn install_defines_document_model_context_once() {
    let first = mc();
    let document = web_sys::window().unwrap().document().unwrap();
    assert!(Object::is(&get(&document.into(), "modelContext"), &first));
    assert!(Object::is(&interpane::install(json(r#"{"exposeToolsTo":"https://widget.example"}"#)).unwrap(), &first));
    assert!(first.is_instance_of::<web_sys::EventTarget>());
}

#[wasm_bindgen_test]
async fn bad_origin_lists_throw_errors_that_say_what_to_write() {
    // The bridge is already installed by another test or not: a bad list is refused either way, before install.
    let error = interpane::install(json(r#"{"exposeToolsTo":"https://a.example, *"}"#));
    if let Err(error) = error {
        let message = get(&error, "message").as_string().unwrap();
        assert!(message.contains("exposeToolsTo"), "{message}");
        assert!(message.contains("list the origins"), "{message}");
    }
    let mc = mc();
    let register = Reflect::get(&mc, &"registerTool".into()).unwrap().dyn_into::<js_sys::Function>().unwrap();
    let tool = json(r#"{"name":"ok_name","description":"d"}"#);
    Reflect::set(&tool, &"execute".into(), &function("return 1")).unwrap();
    let options = json(r#"{"exposedTo":["https://a.example/app"]}"#);
    // registerTool returns a promise, as native's: the refusal rejects it.
    let registered = register.call2(&mc, &tool, &options).unwrap().dyn_into::<Promise>().unwrap();
    let error = wait(settle(&registered)).await;
    let message = get(&error, "message").as_string().unwrap();
    assert!(message.contains("did you mean https://a.example?"), "{message}");
}

#[wasm_bindgen_test]
async fn register_tool_refuses_bad_definitions_as_native_does() {
    let mc = mc();
    let register = Reflect::get(&mc, &"registerTool".into()).unwrap().dyn_into::<js_sys::Function>().unwrap();
    // Native's names (measured, docs/native.md): a rejection, never a throw.
    let cases = [
        (r#"{"name":"bad name","description":"d"}"#, true, "InvalidStateError", "tool name holds ' '"),
        (r#"{"name":"empty_description","description":""}"#, true, "InvalidStateError", "must not be empty"),
        (r#"{"name":"no_description"}"#, true, "TypeError", "tool.description must be a non-empty string"),
        (r#"{"name":"no_execute","description":"d"}"#, false, "TypeError", "tool.execute must be a function"),
        (
            r#"{"name":"bad_schema","description":"d","inputSchema":{"type":"object","properties":{"size":{"enum":"small"}}}}"#,
            true,
            "TypeError",
            "inputSchema.properties.size.enum",
        ),
    ];
    for (definition, with_execute, name, expected) in cases {
        let tool = json(definition);
        if with_execute {
            Reflect::set(&tool, &"execute".into(), &function("return 1")).unwrap();
        }
        let registered = register.call1(&mc, &tool).unwrap().dyn_into::<Promise>().unwrap();
        let error = wait(settle(&registered)).await;
        assert_eq!(get(&error, "name").as_string().as_deref(), Some(name), "{definition}");
        let message = get(&error, "message").as_string().unwrap();
        assert!(message.contains(expected), "{definition}: {message}");
    }
    let tool = json(r#"{"name":"registered_twice","description":"d"}"#);
    Reflect::set(&tool, &"execute".into(), &function("return 1")).unwrap();
    let first = register.call1(&mc, &tool).unwrap().dyn_into::<Promise>().unwrap();
    assert_eq!(text(&wait(settle(&first)).await), r#"{"ok":true}"#, "resolves with undefined");
    let second = register.call1(&mc, &tool).unwrap().dyn_into::<Promise>().unwrap();
    assert_eq!(get(&wait(settle(&second)).await, "name").as_string().as_deref(), Some("InvalidStateError"));
}

#[wasm_bindgen_test]
async fn a_page_lists_and_calls_its_own_tools() {
    let mc = mc();
    let runs = register_counting(&mc, "echo_local", &function("return { echoed: args.word };"), &JsValue::UNDEFINED);
    let tool = local_tool("echo_local").await;
    assert_eq!(get(&tool, "origin").as_string(), web_sys::window().map(|w| w.origin()));
    let result = call("executeTool", &[tool, json(r#"{"word":"hi"}"#)]).await;
    // A string, as native's: the result's JSON text.
    assert_eq!(text(&result), r#"{"ok":true,"value":"{\"echoed\":\"hi\"}"}"#);
    assert_eq!(get(&runs, "count").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn thrown_errors_keep_message_status_and_retry_after() {
    let mc = mc();
    register_counting(
        &mc,
        "rate_limited",
        &function(r#"throw Object.assign(new Error("Search is rate limited"), { status: 429, retryAfter: 30 });"#),
        &JsValue::UNDEFINED,
    );
    register_counting(
        &mc,
        "string_retry",
        &function(r#"throw Object.assign(new TypeError("slow down"), { status: 503, retryAfter: "1.5" });"#),
        &JsValue::UNDEFINED,
    );
    register_counting(
        &mc,
        "garbage_fields",
        &function(r#"throw Object.assign(new Error("bad"), { status: 42, retryAfter: -1 });"#),
        &JsValue::UNDEFINED,
    );
    register_counting(&mc, "throws_string", &function(r#"throw "just a string";"#), &JsValue::UNDEFINED);

    let result = call("executeTool", &[local_tool("rate_limited").await, Object::new().into()]).await;
    assert_eq!(
        text(&result),
        r#"{"ok":false,"name":"Error","message":"Search is rate limited","kind":"tool_error","status":429,"retryAfter":30,"isError":true}"#
    );
    let result = call("executeTool", &[local_tool("string_retry").await, Object::new().into()]).await;
    assert_eq!(
        text(&result),
        r#"{"ok":false,"name":"TypeError","message":"slow down","kind":"tool_error","status":503,"retryAfter":"1.5","isError":true}"#
    );
    let result = call("executeTool", &[local_tool("garbage_fields").await, Object::new().into()]).await;
    assert_eq!(text(&result), r#"{"ok":false,"name":"Error","message":"bad","kind":"tool_error","isError":true}"#);
    let result = call("executeTool", &[local_tool("throws_string").await, Object::new().into()]).await;
    assert_eq!(get(&result, "message").as_string().as_deref(), Some("just a string"));
}

#[wasm_bindgen_test]
async fn arguments_are_checked_against_the_schema_before_the_tool_runs() {
    let mc = mc();
    let extra = json(
        r#"{"inputSchema":{"type":"object","properties":{"size":{"enum":["small","medium","large"]}},"required":["size"]}}"#,
    );
    let runs = register_counting(&mc, "sized", &function("return args.size;"), &extra);
    let result = call("executeTool", &[local_tool("sized").await, json(r#"{"size":"huge"}"#)]).await;
    assert_eq!(get(&result, "kind").as_string().as_deref(), Some("invalid_args"));
    assert_eq!(get(&result, "name").as_string().as_deref(), Some("DataError"));
    assert_eq!(get(&result, "isError").as_bool(), Some(true));
    // The message is JSON text: the first problem's place and keyword, and the words of every problem.
    let message = js_sys::JSON::parse(&get(&result, "message").as_string().unwrap()).unwrap();
    assert_eq!(get(&message, "path").as_string().as_deref(), Some("/size"));
    assert_eq!(get(&message, "reason").as_string().as_deref(), Some("enum"));
    let words = get(&message, "message").as_string().unwrap();
    assert!(words.contains("size must be one of small, medium, large; got \"huge\""), "{words}");
    assert_eq!(get(&runs, "count").as_f64(), Some(0.0), "the tool never ran");
    let result = call("executeTool", &[local_tool("sized").await, json(r#"{"size":"large"}"#)]).await;
    assert_eq!(text(&result), r#"{"ok":true,"value":"large"}"#);
}

#[wasm_bindgen_test]
async fn results_are_made_safe_to_post() {
    let mc = mc();
    let body = r#"
        const cycle = { name: "loop" }; cycle.self = cycle;
        return { when: new Date(0), nothing: undefined, list: [undefined, 1], fn() {}, sym: Symbol("s"),
                 dialog: document.createElement("dialog"), big: 12345678901234567890n, cycle };"#;
    register_counting(&mc, "messy_result", &function(body), &JsValue::UNDEFINED);
    let result = call("executeTool", &[local_tool("messy_result").await, Object::new().into()]).await;
    assert_eq!(
        get(&result, "value").as_string().unwrap_or_default(),
        r#"{"when":"1970-01-01T00:00:00.000Z","list":[null,1],"dialog":"[dialog]","big":"12345678901234567890","cycle":{"name":"loop","self":"[circular]"}}"#
    );
    register_counting(&mc, "huge_result", &function(r#"return "x".repeat(40000);"#), &JsValue::UNDEFINED);
    let result = call("executeTool", &[local_tool("huge_result").await, Object::new().into()]).await;
    let value = json(&get(&result, "value").as_string().unwrap());
    assert_eq!(get(&value, "truncated").as_bool(), Some(true));
    let preview = get(&value, "preview").as_string().unwrap();
    assert!(preview.starts_with("\"xxxx") && preview.len() < 30_000, "{}", preview.len());
}

/// Long texts take another road into the wasm (`TextEncoder`, from 1,024 UTF-16 units on) and plain results are
/// written without the replacer: both keep every character (non-ASCII, astral, a lone surrogate), and a getter
/// is read once.
#[wasm_bindgen_test]
async fn long_texts_and_plain_results_cross_whole() {
    let mc = mc();
    let body = r#"
        let reads = 0;
        const counted = { get reads() { reads += 1; return reads; } };
        return { echo: args.text, plain: { list: [1, "two", [3, { deep: true }]], none: null, n: -0.5 },
                 long: "é🙂x".repeat(2000) + "\ud800", counted };"#;
    register_counting(&mc, "long_texts", &function(body), &JsValue::UNDEFINED);
    let args = js_sys::Function::new_no_args(r#"return { text: "ü".repeat(3000) + "🙂\udc00" };"#)
        .call0(&JsValue::NULL)
        .unwrap();
    let result = call("executeTool", &[local_tool("long_texts").await, args]).await;
    let written = get(&result, "value").as_string().unwrap_or_default();
    let check = js_sys::Function::new_with_args(
        "text",
        r#"const v = JSON.parse(text);
           return v.echo === "ü".repeat(3000) + "🙂\udc00" && v.long === "é🙂x".repeat(2000) + "\ud800" &&
             JSON.stringify(v.plain) === '{"list":[1,"two",[3,{"deep":true}]],"none":null,"n":-0.5}' &&
             v.counted.reads === 1;"#,
    );
    assert_eq!(
        check.call1(&JsValue::NULL, &JsValue::from_str(&written)).unwrap().as_bool(),
        Some(true),
        "{written:.200}"
    );
}

#[wasm_bindgen_test]
async fn aborting_rejects_at_once_and_aborts_the_tools_signal() {
    let mc = mc();
    let runs = register_counting(
        &mc,
        "waits_for_abort",
        &function("return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('late')));"),
        &JsValue::UNDEFINED,
    );
    let controller = web_sys::AbortController::new().unwrap();
    let options = Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let tool = local_tool("waits_for_abort").await;
    let execute = get(&mc, "executeTool").dyn_into::<js_sys::Function>().unwrap();
    let pending = execute.call3(&mc, &tool, &Object::new(), &options).unwrap().dyn_into::<Promise>().unwrap();
    let outcome = settle(&pending);
    // Let the tool start before stopping it.
    while get(&runs, "count").as_f64() != Some(1.0) {
        wait(next_task(5)).await;
    }
    controller.abort();
    let outcome = wait(outcome).await;
    assert_eq!(get(&outcome, "name").as_string().as_deref(), Some("AbortError"));
    let signal = get(&runs, "signals").dyn_into::<js_sys::Array>().unwrap().get(0);
    while get(&signal, "aborted").as_bool() != Some(true) {
        wait(next_task(5)).await;
    }
    // A signal that is already aborted rejects without a call.
    let result = call("executeTool", &[tool, Object::new().into(), options.into()]).await;
    assert_eq!(get(&result, "name").as_string().as_deref(), Some("AbortError"));
    assert_eq!(get(&runs, "count").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn the_same_call_id_never_runs_the_tool_twice() {
    let mc = mc();
    let runs = register_counting(&mc, "charge", &function("return { charged: args.amount };"), &JsValue::UNDEFINED);
    let tool = local_tool("charge").await;
    let options = json(r#"{"callId":"agent-call-7"}"#);
    let execute = get(&mc, "executeTool").dyn_into::<js_sys::Function>().unwrap();
    let first = execute.call3(&mc, &tool, &json(r#"{"amount":5}"#), &options).unwrap().dyn_into::<Promise>().unwrap();
    let joined = execute.call3(&mc, &tool, &json(r#"{"amount":5}"#), &options).unwrap().dyn_into::<Promise>().unwrap();
    assert_eq!(text(&wait(settle(&first)).await), r#"{"ok":true,"value":"{\"charged\":5}"}"#);
    assert_eq!(text(&wait(settle(&joined)).await), r#"{"ok":true,"value":"{\"charged\":5}"}"#);
    let replay = call("executeTool", &[tool, json(r#"{"amount":5}"#), options]).await;
    assert_eq!(text(&replay), r#"{"ok":true,"value":"{\"charged\":5}"}"#);
    assert_eq!(get(&runs, "count").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn every_settled_call_fires_toolresult() {
    let mc = mc();
    register_counting(&mc, "reports", &function("return 'done';"), &JsValue::UNDEFINED);
    let is_ours = js_sys::Function::new_with_args("event", "return event.name === 'reports';");
    let event = wait_for_event(&mc, "toolresult", &is_ours);
    let tool = local_tool("reports").await;
    call("executeTool", &[tool, Object::new().into(), json(r#"{"callId":"report-1"}"#)]).await;
    let detail = detail_of(&wait(event).await);
    assert_eq!(get(&detail, "callId").as_string().as_deref(), Some("report-1"));
    assert_eq!(get(&detail, "status").as_string().as_deref(), Some("completed"));
    assert_eq!(get(&detail, "result").as_string().as_deref(), Some("done"));
    assert_eq!(get(&detail, "recovered").as_bool(), Some(false));
    assert!(get(&detail, "durationMs").as_f64().unwrap() >= 0.0);
}

#[wasm_bindgen_test]
async fn an_aborted_registration_disappears_and_fires_toolchange() {
    let mc = mc();
    let controller = web_sys::AbortController::new().unwrap();
    let extra = Object::new();
    let options = Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    Reflect::set(&extra, &"options".into(), &options).unwrap();
    register_counting(&mc, "short_lived", &function("return 1;"), &extra);
    local_tool("short_lived").await;
    let changed = wait_for_event(&mc, "toolchange", &js_sys::Function::new_no_args("return true;"));
    controller.abort();
    wait(changed).await;
    let tools = get(&call("getTools", &[Object::new().into()]).await, "value").dyn_into::<js_sys::Array>().unwrap();
    assert!(!tools.iter().any(|t| get(&t, "name").as_string().as_deref() == Some("short_lived")));
}

#[wasm_bindgen_test]
async fn bad_call_arguments_reject_with_type_errors() {
    let mc = mc();
    register_counting(&mc, "takes_object", &function("return 1;"), &JsValue::UNDEFINED);
    let tool = local_tool("takes_object").await;
    let cases: [(JsValue, &str); 6] = [
        (JsValue::from_f64(5.0), "must be an object or an array"),
        (JsValue::TRUE, "must be an object or an array"),
        (JsValue::NULL, "must be an object or an array"),
        (JsValue::from_str("\"text\""), "must be an object or an array"),
        (JsValue::from_str("not json"), "the arguments"),
        (json(r#""{\"__proto__\":{\"x\":1}}""#), "__proto__"),
    ];
    for (args, expected) in cases {
        let result = call("executeTool", &[tool.clone(), args]).await;
        assert_eq!(get(&result, "name").as_string().as_deref(), Some("TypeError"));
        let message = get(&result, "message").as_string().unwrap();
        assert!(message.contains(expected), "{message}");
    }
    // Left out or undefined, as native: `{}`.
    let result = call("executeTool", std::slice::from_ref(&tool)).await;
    assert_eq!(text(&result), r#"{"ok":true,"value":"1"}"#);
    let result = call("executeTool", &[tool.clone(), JsValue::UNDEFINED]).await;
    assert_eq!(text(&result), r#"{"ok":true,"value":"1"}"#);
    // The tool object, as native checks it: a name alone, or a made-up tool, is a TypeError.
    let result = call("executeTool", &[json(r#"{"name":"takes_object"}"#), Object::new().into()]).await;
    assert_eq!(get(&result, "name").as_string().as_deref(), Some("TypeError"));
    assert!(get(&result, "message").as_string().unwrap().contains("pass a tool returned by getTools()"));
    let result = call("executeTool", &[json(r#"{"name":"nowhere_tool"}"#), Object::new().into()]).await;
    assert!(get(&result, "message").as_string().unwrap().contains("pass a tool returned by getTools()"));
    // A copy of this page's own tool object is that tool, as native takes a copy of its own.
    let copy = Object::assign(&Object::new(), tool.unchecked_ref());
    let result = call("executeTool", &[copy.into(), Object::new().into()]).await;
    assert_eq!(text(&result), r#"{"ok":true,"value":"1"}"#);
}

#[wasm_bindgen_test]
async fn a_plain_webmcp_peer_in_a_frame_is_listed_and_called() {
    let _ = mc();
    let peer = json(
        r#"[{"name":"peer_echo","description":"echo"},{"name":"peer_fails","description":"fails","fails":"no stock"}]"#,
    );
    wait(plain_peer_frame(&peer)).await;
    let origin = web_sys::window().unwrap().origin();
    let tools =
        get(&call("getTools", &[json(r#"{"timeoutMs":2000}"#)]).await, "value").dyn_into::<js_sys::Array>().unwrap();
    let echo = tools.iter().find(|t| get(t, "name").as_string().as_deref() == Some("peer_echo")).unwrap_or_else(|| {
        panic!(
            "peer tool not listed: {:?}",
            tools
                .iter()
                .map(|t| format!(
                    "{}@{}",
                    get(&t, "name").as_string().unwrap_or_default(),
                    get(&t, "origin").as_string().unwrap_or_default()
                ))
                .collect::<Vec<_>>()
        )
    });
    // Filed under the origin of the response event, not the origin the peer claimed.
    assert_eq!(get(&echo, "origin").as_string(), Some(origin));
    let result = call("executeTool", &[echo, json(r#"{"q":"pizza"}"#)]).await;
    assert_eq!(text(&result), r#"{"ok":true,"value":"{\"echoed\":{\"q\":\"pizza\"}}"}"#);
    let fails = tools.iter().find(|t| get(t, "name").as_string().as_deref() == Some("peer_fails")).unwrap();
    let result = call("executeTool", &[fails, Object::new().into()]).await;
    assert_eq!(get(&result, "message").as_string().as_deref(), Some("no stock"));
    assert_eq!(get(&result, "kind").as_string().as_deref(), Some("tool_error"));
}

#[wasm_bindgen_test]
async fn a_plain_consumer_in_a_frame_lists_and_calls_this_pages_tools() {
    let mc = mc();
    register_counting(&mc, "for_frames", &function("return 'from parent';"), &JsValue::UNDEFINED);
    let frame = wait(plain_consumer_frame()).await;
    let frame_window = get(&frame, "contentWindow");
    let request = get(&frame_window, "request").dyn_into::<js_sys::Function>().unwrap();
    // The frame's promises come from another realm: `instanceof Promise` is false for them, so cast unchecked.
    let listed = wait(
        request
            .call1(&frame_window, &json(r#"{"type":"WEBMCP_GET_TOOLS_REQUEST","requestId":"abc123"}"#))
            .unwrap()
            .unchecked_into(),
    )
    .await;
    let names: Vec<String> = get(&listed, "data.tools")
        .dyn_into::<js_sys::Array>()
        .unwrap()
        .iter()
        .filter_map(|t| get(&t, "name").as_string())
        .collect();
    assert!(names.contains(&"for_frames".to_string()), "{names:?}");
    let message =
        json(r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"x1","name":"for_frames","inputObject":{}}"#);
    let executed = wait(request.call1(&frame_window, &message).unwrap().unchecked_into()).await;
    assert_eq!(
        text(&get(&executed, "data")),
        r#"{"type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"x1","success":true,"result":"from parent"}"#
    );
}

#[wasm_bindgen_test]
async fn an_opaque_origin_frame_gets_no_answer() {
    let mc = mc();
    let runs = register_counting(&mc, "secret_tool", &function("return 'secret';"), &JsValue::UNDEFINED);
    let messages = json(
        r#"[{"type":"WEBMCP_GET_TOOLS_REQUEST","requestId":"o1"},
            {"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"o2","name":"secret_tool","args":{}}]"#,
    );
    let report = wait(opaque_frame_probe(&messages)).await;
    assert_eq!(get(&report, "eventOrigin").as_string().as_deref(), Some("null"));
    assert_eq!(text(&get(&report, "received")), "[]");
    assert_eq!(get(&runs, "count").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn the_journal_reaches_session_storage_when_the_page_is_hidden() {
    let mc = mc();
    register_counting(&mc, "journaled", &function("return 1;"), &JsValue::UNDEFINED);
    call("executeTool", &[local_tool("journaled").await, Object::new().into(), json(r#"{"callId":"kept-1"}"#)]).await;
    hide();
    let keys: Vec<String> = journal_keys().iter().filter_map(|k| k.as_string()).collect();
    assert!(keys.iter().any(|k| k.starts_with("webmcp:log:c:")), "{keys:?}");
    assert!(keys.iter().any(|k| k == "webmcp:tab"), "{keys:?}");
}

#[wasm_bindgen_test]
async fn no_message_of_the_bridge_is_addressed_to_star() {
    let _ = mc();
    wait(plain_peer_frame(&json(r#"[{"name":"star_check","description":"d"}]"#))).await;
    call("getTools", &[json(r#"{"fromOrigins":["https://elsewhere.example"],"timeoutMs":200}"#)]).await;
    let targets: Vec<String> = POSTED_TARGETS.with(|t| t.iter().filter_map(|t| t.as_string()).collect());
    assert!(!targets.is_empty());
    assert!(!targets.iter().any(|t| t == "*"), "{targets:?}");
}
