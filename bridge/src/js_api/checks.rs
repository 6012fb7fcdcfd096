//! The checks of what page code passes to `registerTool` and `executeTool`, as native WebMCP makes them (measured,
//! docs/native.md): tool objects, arguments, signals and options, each refused with the error native gives.

use crate::patterns::registered_checker;
use interpane_policy::session::{CallTarget, PeerId, ToolSpec};
use interpane_policy::{JsonText, Limits, ParseOptions, ToolName, WindowOrigin};
use wasm_bindgen::prelude::*;

use super::type_error;
use crate::driver::{Driver, Handler};
use crate::options::{get, origin_list};
use crate::{BridgeError, CallOptions, console, js};

pub(super) type PreparedCall = ((CallTarget, ToolName), Option<String>, CallOptions, Option<web_sys::AbortSignal>);

/// The tool of a call, read as native reads it (measured, docs/native.md): an object with `name`, `origin` and
/// `window`, else a `TypeError`. A tool object `getTools()` returned names its peer; any other object (a copy, say)
/// is handed to the session with what only the browser can tell, whether its `window` is this page's
/// (`CallTarget::Copy`): the session decides whether it is a tool of this page.
fn call_target(tool: &JsValue) -> Result<(CallTarget, ToolName), JsValue> {
    let refused =
        |why: &str| type_error(&format!("executeTool(tool, args): {why}; pass a tool returned by getTools()"));
    let name = get(tool, "name").as_string().ok_or_else(|| refused("tool must be an object with a name"))?;
    let name = ToolName::new(name).map_err(|e| type_error(&format!("executeTool: {e}")))?;
    let reference = js::tool_ref(tool);
    if reference >= 0 {
        return Ok((CallTarget::Listed(PeerId(reference as u32)), name));
    }
    let origin = get(tool, "origin").as_string().ok_or_else(|| refused("tool.origin must be a string"))?;
    let window = get(tool, "window");
    if window.is_undefined() || window.is_null() {
        return Err(refused("tool.window must be the window of the tool"));
    }
    let own_window = web_sys::window().is_some_and(|w| window == JsValue::from(w));
    Ok((CallTarget::Copy { origin: WindowOrigin::from_browser(&origin), own_window }, name))
}

/// The target of a tool `getTools` listed on native's path: the native peer of its window and origin (calls to it
/// go through the session too, so that `callId`, `toolresult` and time limits work as on the bridge's path).
fn native_target(driver: &Driver, tool: &JsValue, native: &JsValue) -> Result<(CallTarget, ToolName), JsValue> {
    let name = get(tool, "name").as_string().ok_or_else(|| type_error("executeTool: the tool has no name"))?;
    let name = ToolName::new(name).map_err(|e| type_error(&format!("executeTool: {e}")))?;
    let origin = get(tool, "origin").as_string().ok_or_else(|| type_error("executeTool: the tool has no origin"))?;
    let window = get(tool, "window");
    let window = driver.window_id(&window);
    let peer = driver
        .native_peer(window, &origin)
        .ok_or_else(|| type_error("executeTool: the bridge has no peer for the tool's window"))?;
    driver.handles.borrow_mut().native_tools.insert((peer, name.to_string()), native.clone());
    Ok((CallTarget::Listed(peer), name))
}

pub(super) fn prepare_call(
    driver: &Driver,
    tool: &JsValue,
    args: &JsValue,
    options: &JsValue,
) -> Result<PreparedCall, JsValue> {
    let native = crate::native::native_tool(tool);
    let target = match &native {
        Some(native) => native_target(driver, tool, native)?,
        None => call_target(tool)?,
    };
    let args = call_args(args)?;
    let signal = signal_option(options, "executeTool")?;
    let call_id = match get(options, "callId") {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(
            v.as_string()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| type_error("executeTool: options.callId must be a non-empty string"))?,
        ),
    };
    let timeout_ms = time_limit(options, "executeTool")?;
    Ok((target, args, CallOptions { call_id, timeout_ms }, signal))
}

/// The arguments of `executeTool`, checked as native checks them (measured, docs/native.md): left out or
/// `undefined` they are `{}`; `null`, a number or a boolean is a `TypeError`, and so is an object that JSON cannot
/// write (its `toJSON` gives `undefined`, a cycle). An array is an object to WebMCP: it reaches the tool. A string
/// holding a JSON object or array is taken too (the bridge's extension: native refuses every string with a
/// `TypeError`, and so does the bridge any other string). As JSON text.
pub(super) fn call_args(args: &JsValue) -> Result<Option<String>, JsValue> {
    if args.is_undefined() {
        return Ok(None);
    }
    // Only reading the value is done here; what it may be is the session's to decide (`Effect::RefuseCall`).
    let text = match crate::text_in::string(args) {
        Some(text) => text,
        None => {
            let written = js_sys::JSON::stringify(args).map_err(|e| {
                type_error(&format!("executeTool: the arguments cannot be written as JSON ({})", console::describe(&e)))
            })?;
            crate::text_in::string(&written)
                .ok_or_else(|| type_error("executeTool: the arguments cannot be written as JSON"))?
        }
    };
    Ok(Some(text))
}

/// The `signal` of `method`'s options (`executeTool`, `registerTool`), checked: none when it is left out, else an
/// `AbortSignal` or a `TypeError`.
pub(super) fn signal_option(options: &JsValue, method: &str) -> Result<Option<web_sys::AbortSignal>, JsValue> {
    let signal = get(options, "signal");
    if signal.is_undefined() || signal.is_null() {
        return Ok(None);
    }
    // A signal of another window (a frame's AbortController) is an AbortSignal too.
    js::abort_signal(signal)
        .map(Some)
        .ok_or_else(|| type_error(&format!("{method}: options.signal must be an AbortSignal")))
}

/// A tool object of `registerTool`, checked (its schema and annotations within the page's `limits`).
pub(crate) fn local_tool(
    tool: &JsValue,
    options: &JsValue,
    limits: &Limits,
) -> Result<(ToolSpec, Handler), BridgeError> {
    if !tool.is_object() {
        return Err(BridgeError::invalid(
            "registerTool(tool): tool must be an object with name, description and execute",
        ));
    }
    let name = get(tool, "name")
        .as_string()
        .ok_or_else(|| BridgeError::invalid("registerTool: tool.name must be a string"))?;
    let name = ToolName::new(name)?;
    // An empty one is the session's to refuse (the same rule for every API): here only its kind is checked.
    let description = get(tool, "description").as_string().ok_or_else(|| {
        BridgeError::invalid(format!("registerTool({name}): tool.description must be a non-empty string"))
    })?;
    let execute = get(tool, "execute")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| BridgeError::invalid(format!("registerTool({name}): tool.execute must be a function")))?;
    let input_schema = json_object(&get(tool, "inputSchema"), &name, "inputSchema", limits)?;
    let annotations = json_object(&get(tool, "annotations"), &name, "annotations", limits)?;
    let validate = get(tool, "validateArgs").as_bool().unwrap_or(true);
    let checker = match &input_schema {
        Some(schema) => {
            let value = schema.to_value().map_err(|e| BridgeError::invalid(e.to_string()))?;
            registered_checker(name.as_str(), &value, validate)?
        }
        None => None,
    };
    let exposed = get(options, "exposedTo");
    let exposed_to = if exposed.is_undefined() || exposed.is_null() {
        None
    } else {
        let wildcards = get(options, "allowWildcards").as_bool().unwrap_or(false);
        Some(origin_list(&exposed, ParseOptions::default().allow_wildcards(wildcards), "exposedTo")?)
    };
    let mut spec = ToolSpec::new(name, description);
    spec.input_schema = input_schema;
    spec.annotations = annotations;
    spec.checker = checker;
    spec.exposed_to = exposed_to;
    Ok((spec, Handler::Js { execute, this: tool.clone() }))
}

/// An optional object field (or a string holding a JSON object), as JSON text.
fn json_object(
    value: &JsValue,
    tool: &ToolName,
    field: &str,
    limits: &Limits,
) -> Result<Option<JsonText>, BridgeError> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text: String = match value.as_string() {
        Some(text) => text,
        None => js_sys::JSON::stringify(value)
            .map_err(|e| {
                BridgeError::invalid(format!(
                    "registerTool({tool}): {field} cannot be written as JSON ({})",
                    console::describe(&e)
                ))
            })?
            .into(),
    };
    // Held to the page's configured limits, as everything else the page hands the bridge.
    let json = JsonText::parse(&text, limits)
        .map_err(|e| BridgeError::invalid(format!("registerTool({tool}): {field} {e}")))?;
    if !json.is_object() {
        return Err(BridgeError::invalid(format!("registerTool({tool}): {field} must be an object")));
    }
    Ok(Some(json))
}

/// `options.timeoutMs` of `method` (`executeTool`, `getTools`), held to the rule of every API
/// ([`interpane_policy::limits::time_limit_ms`]): left out or `null` it is none; anything but a positive number of
/// milliseconds is a `TypeError`.
pub(crate) fn time_limit(options: &JsValue, method: &str) -> Result<Option<u32>, JsValue> {
    let value = get(options, "timeoutMs");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let ms = value.as_f64().ok_or(interpane_policy::limits::TimeLimitError);
    ms.and_then(interpane_policy::limits::time_limit_ms)
        .map(Some)
        .map_err(|error| type_error(&format!("{method}: options.{error}")))
}
