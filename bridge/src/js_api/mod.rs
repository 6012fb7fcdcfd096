//! The JavaScript API: `install()` and the `document.modelContext`-shaped object it returns (`checks.rs` checks what
//! page code passes, `types.rs` declares the TypeScript types).

mod checks;
mod types;
mod watch;

pub(crate) use checks::local_tool;
use checks::prepare_call;

use interpane_policy::session::{CallRequest, Input, ListRequest, RegisterError};
use interpane_policy::{ParseOptions, ToolName, WindowOrigin};
use wasm_bindgen::prelude::*;

use std::rc::Weak;

use crate::driver::{Driver, JsResult, Waiter};
use crate::install::install_core;
use crate::options::{get, origin_list};
use crate::user::make_dom_exception;
use crate::{BridgeError, BridgeOptions, CallOptions, console, js};

/// Installs the bridge in this page and returns its `document.modelContext` (defined on `document` where the page
/// has none or has the browser's own, whose registry then gets every tool too; see docs/native.md). A second `install()` — from this copy of the module or another — returns the first
/// bridge's object.
///
/// Options: `exposeToolsTo` (a comma-separated string or an array of origins), or `element` (an element with an
/// `expose-tools-to` attribute); `allowWildcards`, `resultCap`, `maxCallsInFlight`, `discoveryTimeoutMs`,
/// `storage` (`"session"` or `"memory"`). A bad option throws an Error that says what to write instead.
#[wasm_bindgen(unchecked_return_type = "ModelContext")]
pub fn install(
    #[wasm_bindgen(unchecked_param_type = "InstallOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let existing = js::installed_bridge();
    if !existing.is_undefined() {
        if !options.is_undefined() {
            // The options of a second install are held to the same rules, and compared with the first's.
            let again = BridgeOptions::from_js(&options).map_err(to_js_error)?;
            match Driver::installed() {
                Some(driver) => crate::options::warn_if_other(&driver.options, &again),
                None => console::warn(
                    "the bridge is already installed in this page by another copy of its module; these options are \
                     ignored",
                ),
            }
        }
        return Ok(existing);
    }
    let options = BridgeOptions::from_js(&options).map_err(to_js_error)?;
    let driver = install_core(options).map_err(to_js_error)?;
    attach(&driver);
    let context = driver.context.borrow().clone();
    Ok(context)
}

/// The names of the options `install()` takes (the package's entry warns of any other key, with the nearest name).
#[wasm_bindgen(js_name = installOptions, skip_typescript)]
pub fn install_options() -> js_sys::Array {
    crate::options::INSTALL_OPTIONS.iter().map(|name| JsValue::from_str(name)).collect()
}

/// Gives the installed bridge its JavaScript face (once): the `document.modelContext`-shaped object, and the watch
/// of tools that other code registers with native WebMCP.
pub(crate) fn attach(driver: &Driver) {
    if !driver.context.borrow().is_undefined() {
        return;
    }
    define_model_context(driver);
    watch::watch_other_registrations(driver);
}

/// Makes the `document.modelContext`-shaped object of `core`, and defines `document.modelContext` where the page
/// has none or has the browser's native one.
fn define_model_context(driver: &Driver) {
    let context = js::make_model_context(BridgeHandle { driver: driver.weak() }.into());
    *driver.context.borrow_mut() = context.clone();
    js::mark_installed(&context);
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        let key = JsValue::from_str("modelContext");
        // Where the browser has its own, the bridge's object takes its place (the bridge keeps a reference to it
        // and registers every tool there too, see native.rs); where there is none, the bridge defines it as the
        // spec does (a getter of Document.prototype, and the interfaces); a polyfill's object is left alone.
        let native = crate::native::registry::context().is_some();
        if !native && !js_sys::Reflect::has(&document, &key).unwrap_or(true) {
            js::define_on_document(&context);
        } else if native {
            let descriptor = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("value"), &context);
            let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("configurable"), &JsValue::TRUE);
            let _ = js_sys::Object::define_property(&document, &key, &descriptor);
        } else {
            console::warn(
                "document.modelContext already exists; the bridge left it alone (use the object install() returns)",
            );
        }
    }
}

fn to_js_error(error: BridgeError) -> JsValue {
    match error {
        BridgeError::InvalidArgument(_)
        | BridgeError::ToolName(_)
        | BridgeError::Schema { .. }
        | BridgeError::Register(_) => js_sys::TypeError::new(&error.to_string()).into(),
        _ => js_sys::Error::new(&error.to_string()).into(),
    }
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// What the `ModelContext` object calls; not meant to be used directly.
#[wasm_bindgen(skip_typescript)]
pub struct BridgeHandle {
    /// The bridge behind this object.
    driver: Weak<Driver>,
}

#[wasm_bindgen]
impl BridgeHandle {
    /// `ModelContext.registerTool(tool, options)`: a promise, as native's (docs/native.md). It resolves with
    /// `undefined` once the tool is registered (before `registerTool` returns); it rejects, as native does, with a
    /// `TypeError` for a tool that lacks a field or has one of the wrong kind, a `DOMException` `InvalidStateError`
    /// for a name already registered, a name that is not a tool name or an empty description (the session's rule,
    /// as for the Rust API), the signal's reason for a signal already aborted, and an `Error` when page code the
    /// bridge runs while it works calls it (`BridgeError::Busy`, docs/architecture.md).
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> js_sys::Promise {
        let invalid_state = |message: String| make_dom_exception(&message, "InvalidStateError", "");
        let name = get(&tool, "name").as_string();
        if let Some(Err(error)) = name.clone().map(ToolName::new) {
            return js_sys::Promise::reject(&invalid_state(format!("registerTool: invalid tool name: {error}")));
        }
        let Some(driver) = self.driver.upgrade() else {
            return js_sys::Promise::reject(&to_js_error(BridgeError::Unsupported("an installed bridge")));
        };
        let (spec, handler) = match local_tool(&tool, &options, &driver.options.limits) {
            Ok(local) => local,
            Err(error) => return js_sys::Promise::reject(&to_js_error(error)),
        };
        let signal = match checks::signal_option(&options, "registerTool") {
            Ok(signal) => signal,
            Err(error) => return js_sys::Promise::reject(&error),
        };
        if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
            return js_sys::Promise::reject(&signal.reason());
        }
        match driver.register(spec, handler, signal) {
            Ok(_) => js_sys::Promise::resolve(&JsValue::UNDEFINED),
            Err(error @ BridgeError::DuplicateTool(_)) => {
                js_sys::Promise::reject(&invalid_state(format!("registerTool: {error}")))
            }
            Err(BridgeError::Register(error @ RegisterError::EmptyDescription(_))) => {
                js_sys::Promise::reject(&invalid_state(error.to_string()))
            }
            Err(error) => js_sys::Promise::reject(&to_js_error(error)),
        }
    }

    /// `ModelContext.unregisterTool(name)`.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: String) -> bool {
        self.driver.upgrade().is_some_and(|driver| driver.unregister(&name, None))
    }

    /// `ModelContext.getTools(options)`.
    #[wasm_bindgen(js_name = getTools)]
    pub fn get_tools(&self, options: JsValue) -> js_sys::Promise {
        let wildcards = get(&options, "allowWildcards").as_bool().unwrap_or(false);
        let from = get(&options, "fromOrigins");
        let list = if from.is_undefined() || from.is_null() {
            Ok(interpane_policy::OriginList::empty())
        } else {
            origin_list(&from, ParseOptions::default().allow_wildcards(wildcards), "fromOrigins")
        };
        let list = match list {
            Ok(list) => list,
            Err(error) => return js_sys::Promise::reject(&to_js_error(error)),
        };
        let extra: Vec<JsValue> = match get(&options, "windows") {
            w if js_sys::Array::is_array(&w) => js_sys::Array::from(&w).iter().collect(),
            _ => Vec::new(),
        };
        let timeout_ms = match checks::time_limit(&options, "getTools") {
            Ok(timeout_ms) => timeout_ms,
            Err(error) => return js_sys::Promise::reject(&error),
        };
        let native_origins = list.clone();
        let mut list = Some(list);
        let bridge = js_sys::Promise::new(&mut |resolve, _reject| {
            let from_origins = list.take().unwrap_or_else(interpane_policy::OriginList::empty);
            let Some(driver) = self.driver.upgrade() else {
                let _ = resolve.call1(&JsValue::UNDEFINED, &js_sys::Array::new());
                return;
            };
            let waiter = driver.add_waiter(Waiter::ListJs(resolve));
            let windows = driver.windows_to_ask(&extra);
            let origin_hints = js::origin_hints()
                .iter()
                .filter_map(|h| h.as_string())
                .map(|h| WindowOrigin::from_browser(&h))
                .collect();
            // A listing sees the forms the page changed in this task (see forms::flush).
            crate::forms::flush();
            driver.input(Input::ListTools(ListRequest { waiter, from_origins, windows, origin_hints, timeout_ms }));
        });
        crate::native::with_native_listing(bridge, &native_origins, self.driver.clone())
    }

    /// `ModelContext.executeTool(tool, args, options)`.
    #[wasm_bindgen(js_name = executeTool)]
    pub fn execute_tool(&self, tool: JsValue, args: JsValue, options: JsValue) -> js_sys::Promise {
        let Some(driver) = self.driver.upgrade() else {
            return js_sys::Promise::reject(&type_error("executeTool: the bridge is not installed"));
        };
        let prepared = prepare_call(&driver, &tool, &args, &options);
        let (target, args, call_options, signal) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return js_sys::Promise::reject(&error),
        };
        if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
            return js_sys::Promise::reject(&signal.reason());
        }
        let mut work = Some((target, args, call_options, signal));
        js_sys::Promise::new(&mut |resolve, reject| {
            let Some(((target, tool), args, CallOptions { call_id, timeout_ms }, signal)) = work.take() else {
                return;
            };
            driver.start_js_call(resolve, reject, signal, JsResult::Text, |waiter| {
                Input::Execute(CallRequest { waiter, target, tool, args, call_id, timeout_ms })
            });
        })
    }
}
