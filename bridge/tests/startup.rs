//! The bridge while it starts, in a page of its own (each test file is one page): a flood of messages that arrive
//! before the journals are open (a reload's page waits for its tab claim) costs the console one warning, not one per message (issue 13 §6: 67,810 warnings
//! were printed in one run).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use interpane::{Bridge, BridgeOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const warnings = [];
export function recordWarnings() {
  const original = console.warn;
  console.warn = function warn(...parts) {
    warnings.push(parts.map(String).join(" "));
    return original.apply(this, parts);
  };
}
export function warningsContaining(text) {
  return warnings.filter((warning) => warning.includes(text)).length;
}
export function postToSelf(count) {
  for (let i = 0; i < count; i += 1) {
    window.postMessage({ type: "WEBMCP_CALL_ACK", requestIds: [`c_flood_${i}`] }, location.origin);
  }
}
// A tab id as an earlier page of this tab stored it: the page is a reload, and its journals wait for its claim.
export function storeTabId() {
  sessionStorage.setItem("webmcp:tab", "tStartupTestTabId01234");
}
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = recordWarnings)]
    fn record_warnings();
    #[wasm_bindgen(js_name = warningsContaining)]
    fn warnings_containing(text: &str) -> u32;
    #[wasm_bindgen(js_name = postToSelf)]
    fn post_to_self(count: u32);
    #[wasm_bindgen(js_name = storeTabId)]
    fn store_tab_id();
    fn sleep(ms: u32) -> js_sys::Promise;
}

/// Messages posted in the task that installs the bridge: more than the work it keeps until it is ready (4096).
const FLOOD: u32 = 10_000;

#[wasm_bindgen_test]
async fn a_flood_before_the_bridge_is_ready_warns_once() {
    record_warnings();
    // A reload: a first visit's page opens its journals at once (bridge/tests/tab_lock.rs), before any message.
    store_tab_id();
    let _bridge = Bridge::install(BridgeOptions::default()).unwrap();
    post_to_self(FLOOD);
    // Every message is handled within a few seconds; then the count is read.
    for _ in 0..50 {
        JsFuture::from(sleep(100)).await.unwrap();
    }
    let printed = warnings_containing("too much work queued before the bridge was ready");
    assert!(printed >= 1, "the flood arrived after the bridge was ready: the test proves nothing");
    assert!(printed <= 2, "{printed} warnings about work queued before the bridge was ready (at most 2)");
}
