//! JavaScript strings into Rust `String`s.
//!
//! wasm-bindgen copies a string into the wasm's memory with a JavaScript loop, one `charCodeAt` per character
//! while they are ASCII: about 5 ns a character in Chromium 156, 300 µs for the 64 KiB arguments of a call, and a
//! call's payload crosses that way up to three times on each side (the arguments, the result, the port's batch).
//! A long string goes through the browser's own `TextEncoder` instead, then one native copy into the wasm's memory
//! (`Uint8Array::to_vec`): the profile of 64 KiB calls (docs/measurements/history.md, issue 25) lost that loop's time. Short
//! strings, most of them, keep wasm-bindgen's path, which has less to set up.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// From this many UTF-16 code units on, a string goes through `TextEncoder`.
const LONG: u32 = 1024;

#[wasm_bindgen(module = "/js/values.js")]
extern "C" {
    /// `new TextEncoder().encode(text)` (one encoder for the page).
    #[wasm_bindgen(js_name = utf8Bytes)]
    fn utf8_bytes(text: &js_sys::JsString) -> js_sys::Uint8Array;
}

/// The text of `value` when it is a string (lone surrogates become U+FFFD either way, as with wasm-bindgen's own
/// copy), `None` otherwise.
pub(crate) fn string(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    Some(js_string(text))
}

/// The text of a JavaScript string.
pub(crate) fn js_string(text: &js_sys::JsString) -> String {
    if text.length() < LONG {
        return String::from(text);
    }
    // TextEncoder writes UTF-8 only; should a browser ever hand back anything else, wasm-bindgen's copy decides.
    String::from_utf8(utf8_bytes(text).to_vec()).unwrap_or_else(|_| String::from(text))
}
