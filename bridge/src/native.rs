//! The browser's own WebMCP (Chromium with `--enable-features=WebMCP`, an origin trial in Chrome): where the page
//! has a native `document.modelContext`, the bridge keeps a reference to it, puts its own object in its place (see
//! `js_api`), and registers every tool registered through the bridge with native too, so that the browser's agent
//! sees it. Unregistering through the bridge aborts the signal the tool was given to native. See docs/native.md.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;
use webmcp_policy::guard::RefusalKind;
use webmcp_policy::native_exposure;

use crate::core::{State, with_core};
use crate::registry::Handler;
use crate::user::{error_to_js, page_value};
use crate::{console, registry};

#[wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    #[wasm_bindgen(js_name = nativeModelContext)]
    fn native_model_context(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = setNativeFailureHandler)]
    fn set_native_failure_handler(callback: &js_sys::Function);
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
    /// Tools registered with native, by the bridge's registration number.
    mirrored: HashMap<u64, Mirrored>,
}

thread_local! {
    static NATIVE: RefCell<Native> = RefCell::new(Native::default());
}

/// Keeps the page's native `document.modelContext` (when it is the browser's own, not a polyfill); returns it.
pub(crate) fn adopt() -> Option<JsValue> {
    let document = web_sys::window().and_then(|w| w.document())?;
    let existing = js_sys::Reflect::get(&document, &JsValue::from_str("modelContext")).ok()?;
    let native = native_model_context(&existing);
    if native.is_null() {
        return None;
    }
    let failed = Closure::<dyn Fn(JsValue, JsValue)>::new(|name: JsValue, error: JsValue| {
        let name = name.as_string().unwrap_or_default();
        let text = format!(
            "the browser's WebMCP refused the tool {name} ({}); the bridge keeps it, other windows still see it",
            console::describe(&error)
        );
        if with_core(|state| {
            let own = state.own_origin.clone();
            state.warn(RefusalKind::NativeRegistry, &own, &text);
        })
        .is_none()
        {
            console::warn(&text);
        }
    });
    set_native_failure_handler(failed.as_ref().unchecked_ref());
    // Set once for the page's one bridge.
    failed.forget();
    NATIVE.with(|n| n.borrow_mut().context = Some(native.clone()));
    Some(native)
}

/// The browser's `document.modelContext` the bridge kept, if any.
pub(crate) fn context() -> Option<JsValue> {
    NATIVE.with(|n| n.borrow().context.clone())
}

impl State {
    /// Registers `tool` (registration `registration`) with native too, when the page has native WebMCP. A refusal
    /// is a warning: the bridge's registration stands.
    pub(crate) fn register_with_native(&mut self, registration: u64) {
        let Some(native) = context() else { return };
        let Some(tool) = self.registry.all().iter().find(|t| t.registration == registration) else { return };
        let exposure = native_exposure(tool.exposed_to.as_ref(), &self.options.expose_tools_to);
        let Ok(controller) = web_sys::AbortController::new() else { return };
        let (execute, this, closure) = match &tool.handler {
            Handler::Js { execute, this } => (execute.clone(), this.clone(), None),
            Handler::Rust(run) => {
                let closure = rust_execute(run.clone());
                (closure.as_ref().unchecked_ref::<js_sys::Function>().clone(), JsValue::UNDEFINED, Some(closure))
            }
        };
        let json = |text: &Option<webmcp_policy::JsonText>| {
            text.as_ref().map_or(JsValue::UNDEFINED, |t| page_value(t.as_str()))
        };
        let exposed_to: js_sys::Array = exposure.exposed_to.iter().map(|o| JsValue::from_str(o)).collect();
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
        if !exposure.left_out.is_empty() {
            let text = format!(
                "the browser's WebMCP lists {} without {} (it takes exact origins only); the bridge still exposes it there",
                tool.name,
                exposure.left_out.join(", ")
            );
            let own = self.own_origin.clone();
            self.warn(RefusalKind::NativeRegistry, &own, &text);
        }
        NATIVE.with(|n| n.borrow_mut().mirrored.insert(registration, Mirrored { controller, _execute: closure }));
    }

    /// Removes registration `registration` from native, if it was registered there.
    pub(crate) fn unregister_from_native(&mut self, registration: u64) {
        if let Some(mirrored) = NATIVE.with(|n| n.borrow_mut().mirrored.remove(&registration)) {
            mirrored.controller.abort();
        }
    }
}

/// A JavaScript function that runs a Rust tool for native: the input as JSON, the result as a value or an Error
/// with the tool's status and retryAfter (which native does not pass on, docs/native.md).
fn rust_execute(
    run: std::rc::Rc<dyn Fn(serde_json::Value, web_sys::AbortSignal) -> registry::ToolFuture>,
) -> NativeExecute {
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
