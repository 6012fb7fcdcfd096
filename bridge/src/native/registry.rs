//! The browser's native registry, as the driver uses it: the `document.modelContext` the page had at install,
//! registering the page's tools there and removing them, and calling a tool on native's path. Below the driver:
//! nothing here reaches for it (module `native` above holds what needs the driver).

use std::cell::RefCell;

use interpane_policy::envelope::ToolDescriptor;
use interpane_policy::session::Registration;
use interpane_policy::sorted_map::SortedMap;
use wasm_bindgen::prelude::*;

use crate::user::page_value;

#[wasm_bindgen(module = "/js/native.js")]
extern "C" {
    #[wasm_bindgen(js_name = registerNative)]
    #[allow(clippy::too_many_arguments)]
    fn register_native(
        native: &JsValue,
        registration: f64,
        name: &str,
        description: &str,
        input_schema: JsValue,
        annotations: JsValue,
        exposed_to: js_sys::Array,
        signal: &web_sys::AbortSignal,
    );
    #[wasm_bindgen(js_name = executeNative)]
    fn execute_native(
        native: &JsValue,
        tool: &JsValue,
        input: &JsValue,
        signal: Option<web_sys::AbortSignal>,
    ) -> js_sys::Promise;
}

#[wasm_bindgen(module = "/js/forms/tool.js")]
extern "C" {
    /// Takes `toolname` off the form of `definition` and returns it (null when it had none).
    #[wasm_bindgen(js_name = releaseNativeName)]
    fn release_native_name(definition: &JsValue) -> JsValue;
    /// Puts back the `toolname` [`release_native_name`] took off.
    #[wasm_bindgen(js_name = restoreNativeName)]
    fn restore_native_name(definition: &JsValue, written: &JsValue);
}

/// One tool registered with native: aborting `controller` removes it there.
struct Mirrored {
    controller: web_sys::AbortController,
}

#[derive(Default)]
struct Native {
    /// The browser's `document.modelContext`, when the page had one at install.
    context: Option<JsValue>,
    /// Tools registered with native, by the bridge's registration.
    mirrored: SortedMap<Registration, Mirrored>,
}

thread_local! {
    static NATIVE: RefCell<Native> = RefCell::new(Native::default());
}

/// Keeps `native`, the page's own `document.modelContext`.
pub(crate) fn keep(native: JsValue) {
    NATIVE.with(|n| n.borrow_mut().context = Some(native));
}

/// The browser's `document.modelContext` the bridge kept, if any.
pub(crate) fn context() -> Option<JsValue> {
    NATIVE.with(|n| n.borrow().context.clone())
}

/// Registers the page's tool `registration` with native, exposed to `exposed_to` (the session decided both). Native
/// calls reach the session as [`Input::FromNative`](interpane_policy::session::Input::FromNative) (js/native.js hands
/// them to the handler `native` set), never the tool itself. A refusal is a warning (js/native.js reports it): the
/// bridge's registration stands. A form's tool (`form`: its definition) is registered with the form's `toolname`
/// taken off meanwhile, so that native drops its own tool for the form and the name is free (docs/native.md, "Both
/// modes").
pub(crate) fn register(
    registration: Registration,
    tool: &ToolDescriptor,
    exposed_to: &[String],
    form: Option<&JsValue>,
) {
    let Some(native) = context() else { return };
    let Ok(controller) = web_sys::AbortController::new() else { return };
    let json = |text: &Option<interpane_policy::JsonText>| {
        text.as_ref().map_or(JsValue::UNDEFINED, |t| page_value(t.as_str()))
    };
    let exposed_to: js_sys::Array = exposed_to.iter().map(|o| JsValue::from_str(o)).collect();
    let released = form.map(release_native_name);
    // Registrations are counted from 1 by the session: far below 2^53, exact as a JavaScript number.
    register_native(
        &native,
        registration.0 as f64,
        tool.name.as_str(),
        &tool.description,
        json(&tool.input_schema),
        json(&tool.annotations),
        exposed_to,
        &controller.signal(),
    );
    if let (Some(form), Some(released)) = (form, released.as_ref()) {
        restore_native_name(form, released);
    }
    NATIVE.with(|n| n.borrow_mut().mirrored.insert(registration, Mirrored { controller }));
}

/// Removes registration `registration` from native, if it was registered there.
pub(crate) fn unregister(registration: Registration) {
    if let Some(mirrored) = NATIVE.with(|n| n.borrow_mut().mirrored.remove(&registration)) {
        mirrored.controller.abort();
    }
}

/// Calls `tool` (native's object) on native's path with `input`; the promise resolves with native's string (an
/// object result's JSON text, as on the bridge's path), or rejects as `executeNative` in js/native.js says.
pub(crate) fn call(tool: &JsValue, input: &JsValue, signal: Option<web_sys::AbortSignal>) -> js_sys::Promise {
    match context() {
        Some(native) => execute_native(&native, tool, input, signal),
        None => js_sys::Promise::reject(&js_sys::TypeError::new("executeTool: this page has no native WebMCP").into()),
    }
}
