//! One rule set for every API (issue 37): the same bad tool registered through the JavaScript API and through the
//! Rust API is refused with the same words, because the session decides, not each API.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use interpane::{Bridge, BridgeOptions, ToolDefinition};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export async function jsRefusal(context, text) {
  const tool = JSON.parse(text);
  try {
    await context.registerTool({ ...tool, execute() { return "ran"; } });
    return "registered";
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
}

export async function jsNames(context) {
  return (await context.getTools()).map((tool) => tool.name).join(",");
}

export async function jsTimeLimitRefusals(context) {
  const own = (await context.getTools())[0];
  const refusals = [];
  for (const timeoutMs of [0, -5, Number.NaN, "5"]) {
    for (const call of [() => context.getTools({ timeoutMs }), () => context.executeTool(own, {}, { timeoutMs })]) {
      try {
        await call();
        refusals.push("accepted");
      } catch (error) {
        refusals.push(`${error.name}: ${error.message}`);
      }
    }
  }
  return refusals.join("\n");
}

export function captureWarnings() {
  const seen = [];
  const warn = console.warn;
  console.warn = (...args) => { seen.push(args.join(" ")); warn.apply(console, args); };
  return () => { console.warn = warn; return seen.join("\n"); };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = jsRefusal)]
    fn js_refusal(context: &JsValue, tool: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = jsNames)]
    fn js_names(context: &JsValue) -> js_sys::Promise;
    #[wasm_bindgen(js_name = jsTimeLimitRefusals)]
    fn js_time_limit_refusals(context: &JsValue) -> js_sys::Promise;
    #[wasm_bindgen(js_name = captureWarnings)]
    fn capture_warnings() -> js_sys::Function;
}

/// A tool nested `levels` deep: `{"a":{"a":...1}}`.
fn nested(levels: usize) -> Value {
    (0..levels).fold(json!(1), |inner, _| json!({ "a": inner }))
}

/// Registers `tool` (name, description, annotations) through both APIs of one page; the two refusals, as
/// `name: message` for JavaScript and the error's words for Rust.
async fn both_refusals(tool: Value) -> (String, String) {
    let context = interpane::install(JsValue::UNDEFINED).unwrap();
    let from_js = JsFuture::from(js_refusal(&context, &tool.to_string())).await.unwrap().as_string().unwrap();
    let bridge = Bridge::install(BridgeOptions::default()).unwrap();
    let mut definition =
        ToolDefinition::new(tool["name"].as_str().unwrap(), tool["description"].as_str().unwrap(), |_, _| async {
            Ok(json!("ran"))
        });
    if let Some(annotations) = tool.get("annotations") {
        definition = definition.annotations(annotations.clone());
    }
    let from_rust = match bridge.register_tool(definition) {
        Ok(registration) => {
            registration.forget();
            "registered".to_owned()
        }
        Err(error) => error.to_string(),
    };
    (from_js, from_rust)
}

#[wasm_bindgen_test]
async fn an_empty_description_is_refused_alike() {
    let (from_js, from_rust) = both_refusals(json!({ "name": "rules_empty", "description": "" })).await;
    assert_eq!(from_js, "InvalidStateError: registerTool(rules_empty): tool.description must not be empty");
    assert_eq!(from_rust, "registerTool(rules_empty): tool.description must not be empty");
}

#[wasm_bindgen_test]
async fn annotations_over_the_depth_limit_are_refused_alike() {
    let tool = json!({ "name": "rules_deep", "description": "deep", "annotations": nested(80) });
    let (from_js, from_rust) = both_refusals(tool).await;
    assert_eq!(from_js, "TypeError: registerTool(rules_deep): annotations nesting deeper than 64 levels");
    assert_eq!(from_rust, "registerTool(rules_deep): annotations nesting deeper than 64 levels");
}

#[wasm_bindgen_test]
async fn annotations_that_are_no_object_are_refused_alike() {
    let tool = json!({ "name": "rules_list", "description": "a list", "annotations": [1, 2] });
    let (from_js, from_rust) = both_refusals(tool).await;
    assert_eq!(from_js, "TypeError: registerTool(rules_list): annotations must be an object");
    assert_eq!(from_rust, "registerTool(rules_list): annotations must be an object");
}

/// `getTools()` lists in the order of names in both APIs (the session sorts; the JavaScript API sorted alone).
#[wasm_bindgen_test]
async fn both_apis_list_in_the_order_of_names() {
    let context = interpane::install(JsValue::UNDEFINED).unwrap();
    let bridge = Bridge::install(BridgeOptions::default()).unwrap();
    for name in ["rules_order_c", "rules_order_a", "rules_order_b"] {
        let definition = ToolDefinition::new(name, "ordered", |_, _| async { Ok(json!("ran")) });
        bridge.register_tool(definition).unwrap().forget();
    }
    let from_js = JsFuture::from(js_names(&context)).await.unwrap().as_string().unwrap();
    let from_rust: Vec<String> =
        bridge.get_tools(interpane::OriginList::empty()).await.iter().map(|t| t.name().to_owned()).collect();
    let mut sorted = from_rust.clone();
    sorted.sort();
    assert_eq!(from_rust, sorted, "the Rust API's listing");
    assert_eq!(from_js, from_rust.join(","), "the JavaScript API lists as the Rust API does");
}

/// A time limit is a positive number of milliseconds for `getTools` and `executeTool` alike (`getTools` ignored a
/// bad one), and for the Rust API's calls.
#[wasm_bindgen_test]
async fn a_time_limit_below_one_millisecond_is_refused_by_every_api() {
    let context = interpane::install(JsValue::UNDEFINED).unwrap();
    let bridge = Bridge::install(BridgeOptions::default()).unwrap();
    let definition = ToolDefinition::new("rules_timed", "timed", |_, _| async { Ok(json!("ran")) });
    bridge.register_tool(definition).unwrap().forget();
    let refusals = JsFuture::from(js_time_limit_refusals(&context)).await.unwrap().as_string().unwrap();
    let expected: Vec<String> = (0..4)
        .flat_map(|_| {
            ["getTools", "executeTool"].map(|method| {
                format!("TypeError: {method}: options.timeoutMs must be a positive number of milliseconds")
            })
        })
        .collect();
    assert_eq!(refusals, expected.join("\n"));
    let tools = bridge.get_tools(interpane::OriginList::empty()).await;
    let tool = tools.iter().find(|t| t.name() == "rules_timed").expect("the page's own tool is listed");
    let refused = bridge.execute_tool(tool, json!({}), interpane::CallOptions::default().timeout_ms(0)).await;
    assert_eq!(refused.map_err(|e| e.to_string()), Err("timeoutMs must be a positive number of milliseconds".into()));
}

/// A second install with other options keeps the first bridge and says so, in both APIs; the same options, or none
/// in JavaScript, say nothing.
#[wasm_bindgen_test]
fn a_second_install_with_other_options_is_warned_of_in_both_apis() {
    let first = interpane::install(JsValue::UNDEFINED).unwrap();
    let stop = capture_warnings();
    let again = interpane::install(JsValue::UNDEFINED).unwrap();
    let same = js_sys::Object::new();
    let _ = Bridge::install(BridgeOptions::default()).unwrap();
    let _ = interpane::install(same.into()).unwrap();
    let quiet = stop.call0(&JsValue::UNDEFINED).unwrap().as_string().unwrap();
    assert_eq!(quiet, "", "no other options: no warning");
    assert_eq!(again, first, "the same object");
    let stop = capture_warnings();
    let other = js_sys::Object::new();
    js_sys::Reflect::set(&other, &"exposeToolsTo".into(), &"https://other.example".into()).unwrap();
    let _ = interpane::install(other.into()).unwrap();
    let list = interpane::OriginList::parse("https://rust.example").unwrap();
    let _ = Bridge::install(BridgeOptions::exposing_to(list)).unwrap();
    // The same (empty) origin list with another limit: the warning does not name the lists, which are the same.
    let capped = js_sys::Object::new();
    js_sys::Reflect::set(&capped, &"resultCap".into(), &JsValue::from_f64(5000.0)).unwrap();
    let _ = interpane::install(capped.into()).unwrap();
    let warned = stop.call0(&JsValue::UNDEFINED).unwrap().as_string().unwrap();
    let lines: Vec<&str> = warned.lines().collect();
    assert_eq!(lines.len(), 3, "{warned}");
    assert!(lines[2].contains("called again with other options; the first call's options stay in force"), "{warned}");
    assert!(
        lines[0].contains("called again with other options (exposeToolsTo: \"https://other.example\")"),
        "{warned}"
    );
    assert!(lines[1].contains("called again with other options (exposeToolsTo: \"https://rust.example\")"), "{warned}");
}
