//! The browser's own WebMCP (Chromium with `--enable-features=WebMCP`, an origin trial in Chrome): where the page
//! has a native `document.modelContext`, the bridge keeps a reference to it, puts its own object in its place (see
//! `js_api`), and registers every tool registered through the bridge with native too, so that the browser's agent
//! sees it. Unregistering through the bridge aborts the signal the tool was given to native. See docs/native.md.

pub(crate) mod registry;

use interpane_policy::guard::RefusalKind;
#[cfg(feature = "js-api")]
use interpane_policy::{
    OriginList,
    call_path::{Merged, NativeAsk, merge_listings, native_asks},
};
use wasm_bindgen::prelude::*;

use interpane_policy::session::{FromNative, Input, Registration};

use crate::console;
use std::rc::Rc;

use crate::driver::{Driver, JsResult};

#[wasm_bindgen(module = "/js/native.js")]
extern "C" {
    #[wasm_bindgen(js_name = nativeModelContext)]
    fn native_model_context(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = setNativeFailureHandler)]
    fn set_native_failure_handler(callback: &js_sys::Function);
    #[wasm_bindgen(js_name = setNativeCallHandler)]
    fn set_native_call_handler(callback: &js_sys::Function);
    #[wasm_bindgen(js_name = watchNativeRegistrations)]
    pub(crate) fn watch_native_registrations(native: &JsValue, registered: &js_sys::Function);
    #[wasm_bindgen(js_name = nativeGetTools)]
    fn native_get_tools(native: &JsValue, asks: js_sys::Array) -> js_sys::Promise;
    #[wasm_bindgen(js_name = nativeToolObject)]
    fn native_tool_object(native_tool: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = nativeToolOf)]
    fn native_tool_of(tool: &JsValue) -> JsValue;
}

/// Keeps the page's native `document.modelContext` (when it is the browser's own, not a polyfill); returns it.
pub(crate) fn adopt() -> Option<JsValue> {
    let document = web_sys::window().and_then(|w| w.document())?;
    let existing = js_sys::Reflect::get(&document, &JsValue::from_str("modelContext")).ok()?;
    let native = native_model_context(&existing);
    if native.is_null() {
        return None;
    }
    registry::keep(native.clone());
    Some(native)
}

/// Connects native's callbacks to the page's bridge, once, after [`adopt`] found native: its refusals of a tool
/// become the bridge's warnings, and its calls of the bridge's tools the bridge's own calls.
pub(crate) fn connect(driver: &Rc<Driver>) {
    let weak = Rc::downgrade(driver);
    let failed = Closure::<dyn Fn(JsValue, JsValue)>::new(move |name: JsValue, error: JsValue| {
        let name = name.as_string().unwrap_or_default();
        let text = format!(
            "the browser's WebMCP refused the tool {name} ({}); the bridge keeps it, other windows still see it",
            console::describe(&error)
        );
        match weak.upgrade() {
            Some(driver) => driver.warn_own(RefusalKind::NativeRegistry, &text),
            None => console::warn(&text),
        }
    });
    set_native_failure_handler(failed.as_ref().unchecked_ref());
    let weak = Rc::downgrade(driver);
    let call = Closure::<dyn Fn(f64, String, JsValue, JsValue) -> js_sys::Promise>::new(
        move |registration, name, input, signal| match weak.upgrade() {
            Some(driver) => call_from_native(&driver, registration, name, input, signal),
            None => js_sys::Promise::reject(&js_sys::Error::new("the bridge is not installed").into()),
        },
    );
    set_native_call_handler(call.as_ref().unchecked_ref());
    // Set once for the page's one bridge.
    failed.forget();
    call.forget();
}

/// A call that native made of the tool the bridge registered with it as `registration` (js/native.js
/// `registerNative`): handed to the session as [`Input::FromNative`], which decides it as one of the page's own calls
/// (docs/native.md, "Calls that come through native"). The promise is native's: it settles when the call does. An
/// abort of native's `signal` (its caller's) stops the call, as a caller's abort on the bridge's path does.
fn call_from_native(
    driver: &Driver,
    registration: f64,
    name: String,
    input: JsValue,
    signal: JsValue,
) -> js_sys::Promise {
    let signal = crate::js::abort_signal(signal);
    if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
        return js_sys::Promise::reject(&signal.reason());
    }
    // What the browser hands over is read here; what it may be is the session's to decide.
    let args = if input.is_undefined() {
        None
    } else {
        match js_sys::JSON::stringify(&input).ok().and_then(|text| text.as_string()) {
            Some(text) => Some(text),
            None => {
                let message = "the arguments cannot be written as JSON";
                return js_sys::Promise::reject(&js_sys::TypeError::new(message).into());
            }
        }
    };
    let registration = Registration(registration as u64);
    let mut work = Some((name, args, signal));
    js_sys::Promise::new(&mut |resolve, reject| {
        let Some((name, args, signal)) = work.take() else { return };
        driver.start_js_call(resolve, reject, signal, JsResult::Value, |waiter| {
            Input::FromNative(FromNative { waiter, registration, name, args })
        });
    })
}

#[cfg(feature = "js-api")]
/// `getTools` where the page has native WebMCP: the bridge's listing (`bridge`, a promise of its tool objects) and
/// native's (`getTools({ fromOrigins })` with the exact origins of `from_origins`), merged so that each tool (the
/// same window and name) appears once, with the path its calls take (policy's `merge_listings`). Without native,
/// the bridge's listing as it is. A listing native refuses whole is warned of (through `driver`'s gate).
pub(crate) fn with_native_listing(
    bridge: js_sys::Promise,
    from_origins: &OriginList,
    driver: std::rc::Weak<crate::driver::Driver>,
) -> js_sys::Promise {
    let Some(native) = registry::context() else { return bridge };
    // What to ask native, in order until it answers, is the policy's (native_asks): an array of origins for
    // getTools({ fromOrigins }), null for getTools().
    let asks: js_sys::Array = native_asks(from_origins)
        .into_iter()
        .map(|ask| match ask {
            NativeAsk::FromOrigins(origins) => {
                JsValue::from(origins.iter().map(|o| JsValue::from_str(o)).collect::<js_sys::Array>())
            }
            NativeAsk::OwnOrigin => JsValue::NULL,
        })
        .collect();
    wasm_bindgen_futures::future_to_promise(async move {
        let bridge = js_sys::Array::from(&wasm_bindgen_futures::JsFuture::from(bridge).await?);
        let answer = wasm_bindgen_futures::JsFuture::from(native_get_tools(&native, asks)).await.unwrap_or_default();
        let read = |name: &str| js_sys::Reflect::get(&answer, &JsValue::from_str(name)).unwrap_or_default();
        let tools = read("tools");
        let listed = if js_sys::Array::is_array(&tools) {
            js_sys::Array::from(&tools)
        } else {
            // Native refused every ask: the listing has the bridge's tools only, and the page hears why.
            let said = read("refused").as_string().unwrap_or_default();
            if let Some(driver) = driver.upgrade() {
                let text = format!("native WebMCP refused to list tools ({said}): listed the bridge's only");
                driver.warn_own(RefusalKind::NativeRegistry, &text);
            }
            js_sys::Array::new()
        };
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
                let index = windows.iter().position(|w| *w == window).unwrap_or_else(|| {
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
