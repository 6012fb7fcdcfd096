//! What the WebMCP spec defines and a page without native WebMCP gets from the bridge (issue 26): the interfaces,
//! `document.modelContext` of documents that are not fully active, the order and shape of listed tools, and when a
//! tool starts and stops relative to its caller's abort. The scenarios are in `conformance.js`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/tests/conformance.js")]
extern "C" {
    fn interfaces() -> JsValue;
    #[wasm_bindgen(js_name = inactiveDocument)]
    fn inactive_document(tool: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = listedOrder)]
    fn listed_order(names: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = listedAnnotations)]
    fn listed_annotations() -> Promise;
    #[wasm_bindgen(js_name = abortInTheSameTask)]
    fn abort_in_the_same_task() -> Promise;
    #[wasm_bindgen(js_name = toolAbortsItsCaller)]
    fn tool_aborts_its_caller() -> Promise;
    #[wasm_bindgen(js_name = abortOrder)]
    fn abort_order() -> Promise;
    #[wasm_bindgen(js_name = schemaSubset)]
    fn schema_subset() -> Promise;
    #[wasm_bindgen(js_name = signalsOfAnotherWindow)]
    fn signals_of_another_window() -> Promise;
    #[wasm_bindgen(js_name = madeUpTools)]
    fn made_up_tools() -> Promise;
    #[wasm_bindgen(js_name = dataErrors)]
    fn data_errors() -> Promise;
    #[wasm_bindgen(js_name = argumentForms)]
    fn argument_forms() -> Promise;
    #[wasm_bindgen(js_name = windowToolEvents)]
    fn window_tool_events() -> Promise;
    #[wasm_bindgen(js_name = pageListenersMissOurMessages)]
    fn page_listeners_miss_our_messages() -> Promise;
}

fn install() -> JsValue {
    interpane::install(JsValue::UNDEFINED).unwrap()
}

fn get(object: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(object.clone(), |value, key| Reflect::get(&value, &JsValue::from_str(key)).unwrap())
}

fn text(value: &JsValue) -> String {
    js_sys::JSON::stringify(value).map(String::from).unwrap()
}

async fn wait(promise: Promise) -> JsValue {
    JsFuture::from(promise).await.unwrap()
}

#[wasm_bindgen_test]
fn the_spec_interfaces_exist_where_the_browser_has_none() {
    install();
    let seen = interfaces();
    assert_eq!(
        text(&seen),
        r#"{"isInstance":true,"sameObject":true,"getterOnPrototype":true,"ownProperty":false,"constructed":"TypeError","eventToolName":"t","eventIsEvent":true,"eventBubbles":false,"cancelToolName":"u"}"#
    );
}

#[wasm_bindgen_test]
async fn documents_that_are_not_fully_active_refuse_with_invalid_state_error() {
    let context = install();
    let tool = js_sys::Object::new();
    Reflect::set(&tool, &"name".into(), &"page_tool".into()).unwrap();
    Reflect::set(&tool, &"description".into(), &"d".into()).unwrap();
    Reflect::set(&tool, &"execute".into(), &js_sys::Function::new_no_args("return 'ok'")).unwrap();
    let register: js_sys::Function = get(&context, "registerTool").dyn_into().unwrap();
    wait(register.call1(&context, &tool).unwrap().dyn_into().unwrap()).await;
    let seen = wait(inactive_document(&tool)).await;
    assert_eq!(
        text(&seen),
        r#"{"names":{"register":"InvalidStateError","list":"InvalidStateError","call":"InvalidStateError"},"domExceptions":true,"sameObject":true,"otherThanPages":true,"otherThanParsed":true,"isInstance":true,"pageStillWorks":true}"#
    );
}

#[wasm_bindgen_test]
async fn get_tools_lists_tools_by_name() {
    install();
    let names = js_sys::Array::of3(&"order_c".into(), &"order_a".into(), &"order_b".into());
    let listed = wait(listed_order(&names)).await;
    assert_eq!(text(&listed), r#"["order_a","order_b","order_c"]"#);
}

#[wasm_bindgen_test]
async fn listed_annotations_have_the_three_hints_and_debugging_when_given() {
    install();
    let seen = wait(listed_annotations()).await;
    assert_eq!(
        text(&seen),
        r#"{"annotated":{"readOnlyHint":true,"title":"kept","untrustedContentHint":false,"consequentialHint":false},"debugging":1,"plainHasAnnotations":false}"#
    );
}

#[wasm_bindgen_test]
async fn a_caller_aborting_in_the_same_task_finds_the_tool_started() {
    install();
    let seen = wait(abort_in_the_same_task()).await;
    assert_eq!(get(&seen, "ok"), JsValue::FALSE);
    assert_eq!(get(&seen, "rejectedWith").as_string().as_deref(), Some("caller changed its mind"));
    assert_eq!(
        text(&get(&seen, "seen")),
        r#"["started","toolactivated:same_task_abort_tool:ToolActivatedEvent","signal aborted:AbortError","toolcancel:same_task_abort_tool:ToolCancelEvent"]"#
    );
}

#[wasm_bindgen_test]
async fn a_tool_that_aborts_its_caller_is_stopped_and_cancelled() {
    install();
    let seen = wait(tool_aborts_its_caller()).await;
    assert_eq!(
        text(&seen),
        r#"{"ok":false,"rejectedWith":"cancelled from inside","reasonName":"AbortError","cancelToolName":"self_cancel_tool"}"#
    );
}

#[wasm_bindgen_test]
async fn an_aborted_caller_rejects_before_the_tools_signal_aborts() {
    install();
    let order = wait(abort_order()).await;
    assert_eq!(text(&order), r#"["caller rejected","tool signal aborted","toolcancel"]"#);
}

/// registerTool refuses, with a `TypeError` naming where, a schema outside WebMCP's subset, as the platform tests
/// ask (register_tool_invalid_subset_schema; docs/schema.md); a pattern the browser's RegExp refuses is one.
#[wasm_bindgen_test]
async fn register_tool_refuses_schemas_outside_the_webmcp_subset() {
    install();
    let outcome = wait(schema_subset()).await;
    let refused = [
        ("reference", "inputSchema.properties.a.$ref: $ref is outside WebMCP's schema subset"),
        ("definitions", "inputSchema.$defs: $defs is outside WebMCP's schema subset"),
        ("format", "inputSchema.properties.a.format: format is outside WebMCP's schema subset"),
        ("encoding", "inputSchema.properties.a.contentEncoding: contentEncoding is outside WebMCP's schema subset"),
        ("unevaluated", "inputSchema.unevaluatedProperties: unevaluatedProperties is outside WebMCP's schema subset"),
        ("dependent", "inputSchema.dependentRequired: dependentRequired is outside WebMCP's schema subset"),
        (
            "openObject",
            "inputSchema.additionalProperties: additionalProperties other than false is outside WebMCP's schema subset",
        ),
        (
            "extraSchema",
            "inputSchema.additionalProperties: additionalProperties other than false is outside WebMCP's schema subset",
        ),
        (
            "badPattern",
            "inputSchema.properties.a.pattern: ( is not a regular expression: Invalid regular expression: /(/u: Unterminated group",
        ),
    ];
    for (key, says) in refused {
        let got = get(&outcome, key).as_string().unwrap_or_default();
        assert!(got.starts_with("TypeError: ") && got.ends_with(says), "{key}: {got}");
    }
    assert_eq!(get(&outcome, "inside").as_string().as_deref(), Some("accepted"));
    assert_eq!(get(&outcome, "listed").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn a_schema_refusal_is_a_data_error_with_its_problem_as_json() {
    install();
    let outcome = wait(data_errors()).await;
    let refusal = |path: &str, reason: &str, says: &str| {
        format!(
            r#"{{"name":"DataError","isDomException":true,"code":0,"kind":"invalid_args","message":{{"message":"invalid arguments for data_error_tool: {says}","path":"{path}","reason":"{reason}","schemaPath":"/{reason}"}}}}"#
        )
    };
    assert_eq!(text(&get(&outcome, "missing")), refusal("/age", "required", "age is required"));
    assert_eq!(text(&get(&outcome, "wrongType")), refusal("/age", "type", r#"age must be an integer; got \"old\""#));
    assert_eq!(
        text(&get(&outcome, "noMatch")),
        refusal("/code", "pattern", r#"code must match the pattern \"^[a-z]+$\""#)
    );
    assert_eq!(get(&outcome, "runsBefore").as_f64(), Some(0.0));
    assert_eq!(text(&get(&outcome, "corrected")), r#"{"resolved":"ran with {\"age\":3,\"code\":\"abc\"}"}"#);
    assert_eq!(get(&outcome, "runsAfter").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn arrays_are_arguments_and_primitives_are_type_errors() {
    install();
    let outcome = wait(argument_forms()).await;
    assert_eq!(
        text(&outcome),
        r#"{"results":["ok","ok","ok","TypeError","TypeError","TypeError"],"seen":[[1,2],{},[3]]}"#
    );
}

#[wasm_bindgen_test]
async fn tool_events_reach_the_window_too() {
    install();
    let outcome = wait(window_tool_events()).await;
    assert_eq!(
        text(&outcome),
        r#"{"heard":["context:toolactivated:window_events_tool","window:toolactivated:window_events_tool","context:toolcancel:window_events_tool","window:toolcancel:window_events_tool"],"rejected":"AbortError"}"#
    );
}

#[wasm_bindgen_test]
async fn the_bridges_messages_never_reach_the_pages_listeners() {
    install();
    let heard = wait(page_listeners_miss_our_messages()).await;
    assert_eq!(text(&heard), r#"["the page's own","any:the page's own","any:WEBMCP_GET_TOOLS_RESPONSE"]"#);
}

#[wasm_bindgen_test]
async fn signals_made_in_another_window_stop_calls_and_unregister_tools() {
    install();
    let seen = wait(signals_of_another_window()).await;
    assert_eq!(
        text(&seen),
        r#"{"outcome":"rejected: from the frame","toolReason":"AbortError","listedAfter":false,"notASignal":"TypeError: registerTool: options.signal must be an AbortSignal"}"#
    );
}

#[wasm_bindgen_test]
async fn a_made_up_tool_of_this_page_is_an_unknown_error() {
    install();
    let seen = wait(made_up_tools()).await;
    assert_eq!(
        text(&seen),
        r#"{"ours":{"name":"UnknownError","isDomException":true,"code":0},"theirs":{"name":"TypeError","isDomException":false}}"#
    );
}
