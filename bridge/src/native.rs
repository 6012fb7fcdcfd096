//! The browser's own WebMCP (Chromium with `--enable-features=WebMCP`, an origin trial in Chrome): where the page
//! has a native `document.modelContext`, the bridge keeps a reference to it, puts its own object in its place (see
//! `js_api`), and registers every tool registered through the bridge with native too, so that the browser's agent
//! sees it. Unregistering through the bridge aborts the signal the tool was given to native. See docs/native.md.

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;
use webmcp_policy::guard::RefusalKind;
#[cfg(feature = "js-api")]
use webmcp_policy::{
    OriginList,
    call_path::{Merged, merge_listings},
};

use webmcp_policy::envelope::ToolDescriptor;
use webmcp_policy::session::Registration;

use crate::driver::{Driver, Handler, with_driver};
use crate::user::{error_to_js, page_value};
use crate::{ToolFuture, console};

#[wasm_bindgen(module = "/js/native.js")]
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
    #[wasm_bindgen(js_name = watchNativeRegistrations)]
    fn watch_native_registrations(native: &JsValue, registered: &js_sys::Function);
    #[wasm_bindgen(js_name = nativeGetTools)]
    fn native_get_tools(native: &JsValue, from_origins: js_sys::Array) -> js_sys::Promise;
    #[wasm_bindgen(js_name = nativeToolObject)]
    fn native_tool_object(native_tool: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = nativeToolOf)]
    fn native_tool_of(tool: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = executeNative)]
    fn execute_native(
        native: &JsValue,
        tool: &JsValue,
        input: &JsValue,
        signal: Option<web_sys::AbortSignal>,
    ) -> js_sys::Promise;
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
    mirrored: HashMap<Registration, Mirrored>,
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
        if with_driver(|driver| driver.warn_own(RefusalKind::NativeRegistry, &text)).is_none() {
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

/// Registers the page's tool `registration` with native (the session decided it, with `exposed_to`). A refusal is
/// a warning: the bridge's registration stands. A form's tool is registered with its form's `toolname` taken off
/// meanwhile, so that native drops its own tool for the form and the name is free (docs/native.md, "Both modes").
pub(crate) fn register(driver: &Driver, registration: Registration, tool: &ToolDescriptor, exposed_to: &[String]) {
    let Some(native) = context() else { return };
    let Some((handler, form)) =
        driver.handles.borrow().tools.get(&registration).map(|t| (t.handler.clone(), t.form.clone()))
    else {
        return;
    };
    let Ok(controller) = web_sys::AbortController::new() else { return };
    let (execute, this, closure) = match handler {
        Handler::Js { execute, this } => (execute, this, None),
        Handler::Rust(run) => {
            let closure = rust_execute(run);
            (closure.as_ref().unchecked_ref::<js_sys::Function>().clone(), JsValue::UNDEFINED, Some(closure))
        }
    };
    let json =
        |text: &Option<webmcp_policy::JsonText>| text.as_ref().map_or(JsValue::UNDEFINED, |t| page_value(t.as_str()));
    let exposed_to: js_sys::Array = exposed_to.iter().map(|o| JsValue::from_str(o)).collect();
    let released = form.as_ref().map(crate::forms::release_native_name);
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
    if let (Some(form), Some(released)) = (form.as_ref(), released.as_ref()) {
        crate::forms::restore_native_name(form, released);
    }
    NATIVE.with(|n| n.borrow_mut().mirrored.insert(registration, Mirrored { controller, _execute: closure }));
}

/// Removes registration `registration` from native, if it was registered there.
pub(crate) fn unregister(registration: Registration) {
    if let Some(mirrored) = NATIVE.with(|n| n.borrow_mut().mirrored.remove(&registration)) {
        mirrored.controller.abort();
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

#[cfg(feature = "js-api")]
/// `getTools` where the page has native WebMCP: the bridge's listing (`bridge`, a promise of its tool objects) and
/// native's (`getTools({ fromOrigins })` with the exact origins of `from_origins`), merged so that each tool (the
/// same window and name) appears once, with the path its calls take (policy's `merge_listings`). Without native,
/// the bridge's listing as it is.
pub(crate) fn with_native_listing(bridge: js_sys::Promise, from_origins: &OriginList) -> js_sys::Promise {
    let Some(native) = context() else { return bridge };
    let exact: js_sys::Array =
        from_origins.iter().filter(|p| !p.is_wildcard()).map(|p| JsValue::from_str(p.as_str())).collect();
    wasm_bindgen_futures::future_to_promise(async move {
        let bridge = js_sys::Array::from(&wasm_bindgen_futures::JsFuture::from(bridge).await?);
        let listed = wasm_bindgen_futures::JsFuture::from(native_get_tools(&native, exact)).await;
        let listed = listed.map(|l| js_sys::Array::from(&l)).unwrap_or_default();
        Ok(merge(&bridge, &listed).into())
    })
}

#[cfg(feature = "js-api")]
/// The merged list of two listings of tool objects (see [`with_native_listing`]).
fn merge(bridge: &js_sys::Array, native: &js_sys::Array) -> js_sys::Array {
    let mut windows: Vec<JsValue> = Vec::new();
    let mut keys = |tools: &js_sys::Array| -> Vec<(usize, String)> {
        tools
            .iter()
            .map(|tool| {
                let window = js_sys::Reflect::get(&tool, &JsValue::from_str("window")).unwrap_or(JsValue::NULL);
                let name = js_sys::Reflect::get(&tool, &JsValue::from_str("name"))
                    .ok()
                    .and_then(|n| n.as_string())
                    .unwrap_or_default();
                let index = windows.iter().position(|w| js_sys::Object::is(w, &window)).unwrap_or_else(|| {
                    windows.push(window);
                    windows.len() - 1
                });
                (index, name)
            })
            .collect()
    };
    let bridge_keys = keys(bridge);
    let native_keys = keys(native);
    fn borrow(keys: &[(usize, String)]) -> Vec<(usize, &str)> {
        keys.iter().map(|(w, n)| (*w, n.as_str())).collect()
    }
    merge_listings(&borrow(&bridge_keys), &borrow(&native_keys))
        .into_iter()
        .map(|entry| match entry {
            Merged::Bridge(i) => bridge.get(i as u32),
            Merged::Native(i) => native_tool_object(&native.get(i as u32)),
        })
        .collect()
}

#[cfg(feature = "js-api")]
/// Native's own tool object of a tool that `getTools` listed on native's path, if `tool` is one.
pub(crate) fn native_tool(tool: &JsValue) -> Option<JsValue> {
    Some(native_tool_of(tool)).filter(|t| !t.is_null() && !t.is_undefined())
}

#[cfg(feature = "js-api")]
/// Calls `tool` (native's object) on native's path with `input`; the promise resolves with native's string (an
/// object result's JSON text, as on the bridge's path), or rejects as `executeNative` in js/native.js says.
pub(crate) fn call_native(tool: &JsValue, input: &JsValue, signal: Option<web_sys::AbortSignal>) -> js_sys::Promise {
    match context() {
        Some(native) => execute_native(&native, tool, input, signal),
        None => js_sys::Promise::reject(&js_sys::TypeError::new("executeTool: this page has no native WebMCP").into()),
    }
}

/// Watches the tools that other code on the page registers with native after `install()` (through a reference to
/// the native object it kept) and registers each with the bridge too, with exactly the `exposedTo` it gave native
/// (none: no other origin), so that the windows native does not reach (openers, popups, frames without
/// `allow="tools"`) see it under the same rule; aborting its signal unregisters it from both. A tool the bridge
/// cannot take (a name it already has, a schema it refuses) stays native's only, with a warning. Tools registered
/// with native before `install()` are not exposed by the bridge (docs/native.md, "Tools registered with native by
/// other code").
#[cfg(feature = "js-api")]
pub(crate) fn watch_other_registrations() {
    let Some(native) = context() else { return };
    let registered = Closure::<dyn Fn(JsValue, JsValue)>::new(|tool: JsValue, options: JsValue| {
        let signal = crate::options::get(&options, "signal").dyn_into::<web_sys::AbortSignal>().ok();
        let local = crate::js_api::local_tool(&tool, &options).map(|(mut spec, handler)| {
            spec.exposed_to.get_or_insert_with(OriginList::empty);
            // Native has it already.
            spec.to_native = false;
            (spec, handler)
        });
        with_driver(|driver| {
            let refused = match local {
                Ok((spec, handler)) => driver.register(spec, handler, None, signal).err(),
                Err(error) => Some(error),
            };
            if let Some(error) = refused {
                let name = crate::options::get(&tool, "name").as_string().unwrap_or_default();
                let text = format!(
                    "a tool registered with the browser's WebMCP ({name}) stays there only: the bridge cannot take it ({error})"
                );
                driver.warn_own(RefusalKind::NativeRegistry, &text);
            }
        });
    });
    watch_native_registrations(&native, registered.as_ref().unchecked_ref());
    // Kept for the page's one bridge.
    registered.forget();
}
