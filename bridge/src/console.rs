//! Console output for page authors: refusals and storage problems are visible, never silent, never a flood
//! (the policy's `WarningGate` decides what is printed).

use wasm_bindgen::{JsCast, JsValue};

/// Prints a warning prefixed with `interpane:`.
pub(crate) fn warn(message: &str) {
    web_sys::console::warn_1(&JsValue::from_str(&format!("interpane: {message}")));
}

/// A short description of a thrown JavaScript value: `Name: message` for errors, the text otherwise.
pub(crate) fn describe(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        let name: String = error.name().into();
        let message: String = error.message().into();
        return format!("{name}: {message}");
    }
    if let Some(exception) = value.dyn_ref::<web_sys::DomException>() {
        return format!("{}: {}", exception.name(), exception.message());
    }
    // In JavaScript, not with `{:?}`: wasm-bindgen's `Debug` of a `JsValue` brings its own describer into the glue.
    crate::js::describe_value(value)
}
