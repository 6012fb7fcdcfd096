//! A page's first visit of its tab, in a page of its own (each test file is one page): the bridge draws a tab id
//! and requests the tab's lock in the task that installs it, so that no copy of the tab's sessionStorage (a
//! duplicated tab, a `window.open`) can ask for that lock first, and it opens its journals without waiting for its
//! claim (docs/once-only.md §5). Before, the lock's name waited for Web Crypto, and `ready` for the whole claim.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use interpane::{Bridge, BridgeOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
// What a copy of this tab would do first, in the same task as the install: ask for the tab's lock if it is free.
// Resolves whether it got it.
export function askForTheTabsLock() {
  const token = sessionStorage.getItem("webmcp:tab-lock");
  if (!token) return Promise.resolve("no lock token was stored");
  return navigator.locks.request(`webmcp:lock:${token}:top`, { ifAvailable: true }, (lock) => lock !== null);
}
export async function heldLocks() {
  return (await navigator.locks.query()).held.map((lock) => lock.name);
}
export function sessionItem(key) { return sessionStorage.getItem(key); }
"#)]
extern "C" {
    #[wasm_bindgen(js_name = askForTheTabsLock)]
    fn ask_for_the_tabs_lock() -> js_sys::Promise;
    #[wasm_bindgen(js_name = heldLocks)]
    fn held_locks() -> js_sys::Promise;
    #[wasm_bindgen(js_name = sessionItem)]
    fn session_item(key: &str) -> Option<String>;
}

/// One test, in order: the page can install only once.
#[wasm_bindgen_test]
async fn a_new_tabs_lock_is_requested_before_any_later_request_and_the_journals_open_at_once() {
    assert_eq!(session_item("webmcp:tab"), None, "the test page starts with no tab id");
    let bridge = Bridge::install(BridgeOptions::default()).unwrap();
    // The same task: a copy's request would come after the bridge's, and find the lock taken.
    let got = JsFuture::from(ask_for_the_tabs_lock()).await.unwrap();
    assert_eq!(got, JsValue::FALSE, "a later request got the new tab's lock (or none was stored): {got:?}");

    let ready = js_sys::Reflect::get(&bridge.model_context(), &"ready".into()).unwrap();
    JsFuture::from(js_sys::Promise::from(ready)).await.unwrap();
    let token = session_item("webmcp:tab-lock").expect("the lock token is stored");
    assert!(token.starts_with('k') && token.len() == 23, "a random lock token: {token}");
    let tab = session_item("webmcp:tab").expect("the tab id is stored");
    assert!(!token.contains(&tab[1..]) && tab != token, "the lock token is not the tab id");
    let held: Vec<String> = strings(JsFuture::from(held_locks()).await.unwrap());
    assert!(held.contains(&format!("webmcp:lock:{token}:top")), "the bridge holds its tab's lock: {held:?}");
    assert!(held.iter().all(|name| !name.contains(&tab[1..])), "no lock name tells the tab id: {held:?}");
}

/// The strings of a JavaScript array.
fn strings(value: JsValue) -> Vec<String> {
    js_sys::Array::from(&value).iter().filter_map(|v| v.as_string()).collect()
}
