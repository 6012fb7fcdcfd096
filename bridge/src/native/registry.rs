//! The browser's native registry, as the driver uses it: the `document.modelContext` the page had at install,
//! registering the page's tools there and removing them, and calling a tool on native's path. Below the driver:
//! nothing here reaches for it (module `native` above holds what needs the driver).

use std::cell::RefCell;

use interpane_policy::envelope::ToolDescriptor;
use interpane_policy::session::Registration;
use interpane_policy::sorted_map::SortedMap;
use wasm_bindgen::prelude::*;

use crate::tool_types::{Handler, ToolFuture};
use crate::user::{error_to_js, page_value};

#[wasm_bindgen(module = "/js/native.js")]
extern "C" {
    #[wasm_bindgen(js_name = registerNative)]
    #[allow(clippy::too_many_arguments)]
    fn register_native(
        native: &JsValue,
        name: &str,
        description: &str,
        input_schema: JsValue,
        annotations: JsValue,
        execute: &js_sys::Function,
        this: &JsValue,
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

/// A Rust tool's execute, as native calls it.
type NativeExecute = Closure<dyn Fn(JsValue) -> js_sys::Promise>;

/// One tool registered with native: aborting `controller` removes it there.
struct Mirrored {
    controller: web_sys::AbortController,
    /// A Rust tool's execute, kept alive while native has the tool.
    _execute: Option<NativeExecute>,
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

/// Registers the page's tool `registration` (run by `handler`) with native, exposed to `exposed_to` (the session
/// decided both). A refusal is a warning (js/native.js reports it): the bridge's registration stands. A form's tool
/// (`form`: its definition) is registered with the form's `toolname` taken off meanwhile, so that native drops its
/// own tool for the form and the name is free (docs/native.md, "Both modes").
pub(crate) fn register(
    registration: Registration,
    tool: &ToolDescriptor,
    exposed_to: &[String],
    handler: Handler,
    form: Option<&JsValue>,
) {
    let Some(native) = context() else { return };
    let Ok(controller) = web_sys::AbortController::new() else { return };
    let (execute, this, closure) = match handler {
        Handler::Js { execute, this } => (execute, this, None),
        Handler::Rust(run) => {
            let closure = rust_execute(run);
            (closure.as_ref().unchecked_ref::<js_sys::Function>().clone(), JsValue::UNDEFINED, Some(closure))
        }
    };
    let json = |text: &Option<interpane_policy::JsonText>| {
        text.as_ref().map_or(JsValue::UNDEFINED, |t| page_value(t.as_str()))
    };
    let exposed_to: js_sys::Array = exposed_to.iter().map(|o| JsValue::from_str(o)).collect();
    let released = form.map(release_native_name);
    register_native(
        &native,
        tool.name.as_str(),
        &tool.description,
        json(&tool.input_schema),
        json(&tool.annotations),
        &execute,
        &this,
        exposed_to,
        &controller.signal(),
    );
    if let (Some(form), Some(released)) = (form, released.as_ref()) {
        restore_native_name(form, released);
    }
    NATIVE.with(|n| n.borrow_mut().mirrored.insert(registration, Mirrored { controller, _execute: closure }));
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

/// A JavaScript function that runs a Rust tool for native: the input as JSON, the result as a value or an Error
/// with the tool's status and retryAfter (which native does not pass on, docs/native.md).
fn rust_execute(run: std::rc::Rc<dyn Fn(serde_json::Value, web_sys::AbortSignal) -> ToolFuture>) -> NativeExecute {
    Closure::new(move |input: JsValue| {
        let args = js_sys::JSON::stringify(&input)
            .ok()
            .and_then(|text| text.as_string())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new()));
        let signal = web_sys::AbortController::new().map(|c| c.signal());
        let run = run.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let signal = signal?;
            match run(args, signal).await {
                Ok(value) => Ok(page_value(&value.to_string())),
                Err(error) => Err(error_to_js(&error)),
            }
        })
    })
}
