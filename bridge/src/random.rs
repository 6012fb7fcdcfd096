//! Randomness from `crypto.getRandomValues`: the tab's ids (tab.rs) and the session's entropy (request and call
//! ids, drawn by the session in pools). When it throws, that is an error (`EntropyError`, `BridgeError::Randomness`)
//! that says what it threw: no id is ever made of zeros or of the clock.
//!
//! Hand-made rather than the `getrandom` crate, whose `wasm_js` backend makes the same call the same way: with
//! getrandom 0.4.3 in its place the download was 138 bytes larger (214,854 bytes gzipped against 214,716, by
//! scripts/size-budget.sh on otherwise the same code, 2026-12-06), and its error says "Web Crypto API is
//! unavailable" whatever was thrown, where this one says what `getRandomValues` threw.

use interpane_policy::session::EntropyError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(bytes)`, looked up at each call (where there is none, this throws).
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(bytes: &mut [u8]) -> Result<(), JsValue>;
}

/// The session's entropy, and the tab's new ids. Each failure is handed on as an error; the session then makes no
/// id (policy's `session::random`), and the install fails when the tab's ids cannot be drawn (tab.rs).
pub(crate) struct CryptoEntropy;

impl interpane_policy::session::Entropy for CryptoEntropy {
    /// Fills `bytes`, in the 65,536 bytes `getRandomValues` takes at a time, or says what it threw.
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        for chunk in bytes.chunks_mut(65_536) {
            get_random_values(chunk).map_err(|thrown| {
                EntropyError(format!("crypto.getRandomValues threw {}", crate::console::describe(&thrown)))
            })?;
        }
        Ok(())
    }
}
