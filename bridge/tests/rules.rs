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
"#)]
extern "C" {
    #[wasm_bindgen(js_name = jsRefusal)]
    fn js_refusal(context: &JsValue, tool: &str) -> js_sys::Promise;
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
