//! The bridge when the browser's random numbers fail, in a page of its own (each test file is one page): the
//! install fails with words that say so while `crypto.getRandomValues` throws, and a call made while it throws is
//! refused, its tool not run. Before, the install said the page had no `getRandomValues`, and a call went out under
//! an id of zeros (the error of `getRandomValues` was dropped), which another window could guess (issue 37).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;
use std::rc::Rc;

use interpane::{Bridge, BridgeOptions, CallOptions, ToolDefinition};
use interpane_policy::{ErrorKind, OriginList, ToolError};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function breakRandomness(words) {
  crypto.getRandomValues = function getRandomValues() { throw new Error(words); };
}
export function mendRandomness() { delete crypto.getRandomValues; }
export function sessionItem(key) { return sessionStorage.getItem(key); }
"#)]
extern "C" {
    #[wasm_bindgen(js_name = breakRandomness)]
    fn break_randomness(words: &str);
    #[wasm_bindgen(js_name = mendRandomness)]
    fn mend_randomness();
    #[wasm_bindgen(js_name = sessionItem)]
    fn session_item(key: &str) -> Option<String>;
}

const WORDS: &str = "no random numbers in this test";

/// One test, in order: the page can install only once.
#[wasm_bindgen_test]
async fn without_random_numbers_the_install_and_a_call_fail_with_words_and_no_id_is_made() {
    break_randomness(WORDS);
    let error = Bridge::install(BridgeOptions::default()).err().expect("no install without random numbers");
    let message = error.to_string();
    assert!(message.contains("random numbers") && message.contains(WORDS), "{message}");
    assert_eq!(session_item("webmcp:tab"), None, "a tab id was stored: {:?}", session_item("webmcp:tab"));

    mend_randomness();
    let bridge = Bridge::install(BridgeOptions::default()).unwrap();
    let runs = Rc::new(Cell::new(0));
    let counter = runs.clone();
    let tool = ToolDefinition::new("counted", "Counts its runs.", move |_args: Value, _signal| {
        let runs = counter.clone();
        async move {
            runs.set(runs.get() + 1);
            Ok::<Value, ToolError>(json!({}))
        }
    });
    let _registration = bridge.register_tool(tool).unwrap();
    // From here the session has drawn no random bytes yet (a listing that asked other windows would have: its pool
    // would serve the call below).
    break_randomness(WORDS);
    let tools = bridge.get_tools(OriginList::empty()).await;
    let tool = tools.into_iter().find(|t| t.name() == "counted").expect("the page's own tool is listed");
    let refused = bridge.execute_tool(&tool, json!({}), CallOptions::default()).await.unwrap_err();
    mend_randomness();
    assert_eq!(refused.kind(), ErrorKind::Refused, "{refused}");
    let message = refused.to_string();
    assert!(message.contains("random numbers") && message.contains(WORDS), "{message}");
    assert_eq!(runs.get(), 0, "the tool ran under an id that is not random");

    // The browser's random numbers work again: so do calls.
    bridge.execute_tool(&tool, json!({}), CallOptions::default()).await.unwrap();
    assert_eq!(runs.get(), 1);
    let tab = session_item("webmcp:tab").expect("the tab's id is stored");
    assert_eq!(tab.len(), 23, "a random tab id: {tab}");
}
