//! The JavaScript API: `install()` and the `document.modelContext`-shaped object it returns.

use gloo_events::EventListener;
use wasm_bindgen::prelude::*;
use webmcp_policy::session::{CallRequest, Input, ListRequest, PeerId, ToolSpec};
use webmcp_policy::{ArgSchema, JsonText, ParseOptions, ToolName};

use crate::driver::{Driver, Handler, Waiter, with_driver};
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
        if !options.is_undefined() && Driver::installed().is_none() {
            console::warn(
                "the bridge is already installed in this page by another copy of its module; these options are ignored",
            );
        }
        return Ok(existing);
    }
    let options = BridgeOptions::from_js(&options).map_err(to_js_error)?;
    let driver = install_core(options).map_err(to_js_error)?;
    let context = driver.context.borrow().clone();
    Ok(context)
}

/// Makes the `document.modelContext`-shaped object of `core`, and defines `document.modelContext` where the page
/// has none or has the browser's native one.
pub(crate) fn define_model_context(driver: &Driver) {
    let context = js::make_model_context(BridgeHandle {}.into());
    *driver.context.borrow_mut() = context.clone();
    js::mark_installed(&context);
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        let key = JsValue::from_str("modelContext");
        // Where the browser has its own, the bridge's object takes its place (the bridge keeps a reference to it
        // and registers every tool there too, see native.rs); a polyfill's object is left alone.
        if crate::native::context().is_some() || !js_sys::Reflect::has(&document, &key).unwrap_or(true) {
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
        BridgeError::InvalidArgument(_) | BridgeError::ToolName(_) | BridgeError::Schema { .. } => {
            js_sys::TypeError::new(&error.to_string()).into()
        }
        _ => js_sys::Error::new(&error.to_string()).into(),
    }
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// What the `ModelContext` object calls; not meant to be used directly.
#[wasm_bindgen(skip_typescript)]
pub struct BridgeHandle {}

#[wasm_bindgen]
impl BridgeHandle {
    /// `ModelContext.registerTool(tool, options)`: a promise, as native's (docs/native.md). It resolves with
    /// `undefined` once the tool is registered (before `registerTool` returns); it rejects, as native does, with a
    /// `TypeError` for a tool that lacks a field or has one of the wrong kind, a `DOMException` `InvalidStateError`
    /// for a name already registered, a name that is not a tool name or an empty description, and the signal's
    /// reason for a signal already aborted.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsValue, options: JsValue) -> js_sys::Promise {
        let invalid_state = |message: String| make_dom_exception(&message, "InvalidStateError", "");
        let name = get(&tool, "name").as_string();
        if let Some(Err(error)) = name.clone().map(ToolName::new) {
            return js_sys::Promise::reject(&invalid_state(format!("registerTool: invalid tool name: {error}")));
        }
        if tool.is_object() && get(&tool, "description").as_string().is_some_and(|d| d.is_empty()) {
            let name = name.unwrap_or_default();
            return js_sys::Promise::reject(&invalid_state(format!(
                "registerTool({name}): tool.description must not be empty"
            )));
        }
        let (spec, handler) = match local_tool(&tool, &options) {
            Ok(local) => local,
            Err(error) => return js_sys::Promise::reject(&to_js_error(error)),
        };
        let signal = get(&options, "signal").dyn_into::<web_sys::AbortSignal>().ok();
        if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
            return js_sys::Promise::reject(&signal.reason());
        }
        let registered = with_driver(|driver| driver.register(spec, handler, None, signal))
            .unwrap_or(Err(BridgeError::Unsupported("an installed bridge")));
        match registered {
            Ok(_) => js_sys::Promise::resolve(&JsValue::UNDEFINED),
            Err(error @ BridgeError::DuplicateTool(_)) => {
                js_sys::Promise::reject(&invalid_state(format!("registerTool: {error}")))
            }
            Err(error) => js_sys::Promise::reject(&to_js_error(error)),
        }
    }

    /// `ModelContext.unregisterTool(name)`.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: String) -> bool {
        with_driver(|driver| driver.unregister(&name, None)).unwrap_or(false)
    }

    /// `ModelContext.getTools(options)`.
    #[wasm_bindgen(js_name = getTools)]
    pub fn get_tools(&self, options: JsValue) -> js_sys::Promise {
        let wildcards = get(&options, "allowWildcards").as_bool().unwrap_or(false);
        let from = get(&options, "fromOrigins");
        let list = if from.is_undefined() || from.is_null() {
            Ok(webmcp_policy::OriginList::empty())
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
        let timeout_ms = get(&options, "timeoutMs").as_f64().filter(|t| t.is_finite() && *t >= 0.0).map(|t| t as u32);
        let native_origins = list.clone();
        let mut list = Some(list);
        let bridge = js_sys::Promise::new(&mut |resolve, _reject| {
            let from_origins = list.take().unwrap_or_else(webmcp_policy::OriginList::empty);
            let Some(driver) = Driver::installed() else {
                let _ = resolve.call1(&JsValue::UNDEFINED, &js_sys::Array::new());
                return;
            };
            let waiter = driver.add_waiter(Waiter::ListJs(resolve));
            let windows = driver.windows_to_ask(&extra);
            let origin_hints = js::origin_hints().iter().filter_map(|h| h.as_string()).collect();
            driver.input(Input::ListTools(ListRequest { waiter, from_origins, windows, origin_hints, timeout_ms }));
        });
        crate::native::with_native_listing(bridge, &native_origins)
    }

    /// `ModelContext.executeTool(tool, args, options)`.
    #[wasm_bindgen(js_name = executeTool)]
    pub fn execute_tool(&self, tool: JsValue, args: JsValue, options: JsValue) -> js_sys::Promise {
        let prepared = prepare_call(&tool, &args, &options);
        let (target, args, call_options, signal) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return js_sys::Promise::reject(&error),
        };
        if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
            return js_sys::Promise::reject(&signal.reason());
        }
        let mut work = Some((target, args, call_options, signal));
        js_sys::Promise::new(&mut |resolve, reject| {
            let Some(((peer, tool), args, CallOptions { call_id, timeout_ms }, signal)) = work.take() else { return };
            let Some(driver) = Driver::installed() else {
                let _ = reject.call1(&JsValue::UNDEFINED, &type_error("executeTool: the bridge is not installed"));
                return;
            };
            let waiter = driver.handles.borrow_mut().reserve_waiter();
            let abort = signal.as_ref().map(|signal| {
                EventListener::once(signal, "abort", move |_| {
                    with_driver(|driver| driver.input(Input::Stop(waiter)));
                })
            });
            driver
                .handles
                .borrow_mut()
                .waiters
                .insert(waiter, Waiter::CallJs { resolve, reject, signal, _abort: abort });
            driver.input(Input::Execute(CallRequest { waiter, peer, tool, args, call_id, timeout_ms }));
        })
    }
}

type PreparedCall = ((PeerId, ToolName), JsonText, CallOptions, Option<web_sys::AbortSignal>);

/// The tool of a call, checked as native checks it (measured, docs/native.md): an object with `name`, `origin` and
/// `window`, else a `TypeError`. A tool object `getTools()` returned names its window to the bridge; any other
/// object (a copy, say) is taken for a tool of this page when its `origin` and `window` are this page's and a tool
/// of its name is registered here, as native takes a copy of its own tool object; else a `TypeError`, as native's
/// for a made-up tool.
fn call_target(tool: &JsValue) -> Result<(PeerId, ToolName), JsValue> {
    let refused =
        |why: &str| type_error(&format!("executeTool(tool, args): {why}; pass a tool returned by getTools()"));
    let name = get(tool, "name").as_string().ok_or_else(|| refused("tool must be an object with a name"))?;
    let name = ToolName::new(name).map_err(|e| type_error(&format!("executeTool: {e}")))?;
    let reference = js::tool_ref(tool);
    if reference >= 0 {
        return Ok((PeerId(reference as u32), name));
    }
    let origin = get(tool, "origin").as_string().ok_or_else(|| refused("tool.origin must be a string"))?;
    let window = get(tool, "window");
    if window.is_undefined() || window.is_null() {
        return Err(refused("tool.window must be the window of the tool"));
    }
    let own_window = web_sys::window().is_some_and(|w| js_sys::Object::is(&window, &w));
    let own = with_driver(|driver| {
        own_window && driver.read(|session| session.config().own_origin == origin && session.has_tool(name.as_str()))
    });
    if own.unwrap_or(false) {
        Ok((PeerId::SELF, name))
    } else {
        Err(refused(&format!("{name} of {origin} is not a tool this page listed")))
    }
}

/// The target of a tool `getTools` listed on native's path: the native peer of its window and origin (calls to it
/// go through the session too, so that `callId`, `toolresult` and time limits work as on the bridge's path).
fn native_target(tool: &JsValue, native: &JsValue) -> Result<(PeerId, ToolName), JsValue> {
    let name = get(tool, "name").as_string().ok_or_else(|| type_error("executeTool: the tool has no name"))?;
    let name = ToolName::new(name).map_err(|e| type_error(&format!("executeTool: {e}")))?;
    let origin = get(tool, "origin").as_string().ok_or_else(|| type_error("executeTool: the tool has no origin"))?;
    let window = get(tool, "window");
    let driver = Driver::installed().ok_or_else(|| type_error("executeTool: the bridge is not installed"))?;
    let window = driver.window_id(&window);
    let peer = driver.read_mut(|session| session.native_peer(window, &origin));
    driver.handles.borrow_mut().native_tools.insert((peer, name.to_string()), native.clone());
    Ok((peer, name))
}

fn prepare_call(tool: &JsValue, args: &JsValue, options: &JsValue) -> Result<PreparedCall, JsValue> {
    let native = crate::native::native_tool(tool);
    let target = match &native {
        Some(native) => native_target(tool, native)?,
        None => call_target(tool)?,
    };
    let args = call_args(args, native.is_some())?;
    let signal = call_signal(options)?;
    let call_id = match get(options, "callId") {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(
            v.as_string()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| type_error("executeTool: options.callId must be a non-empty string"))?,
        ),
    };
    let timeout_ms = match get(options, "timeoutMs") {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(
            v.as_f64()
                .filter(|t| t.is_finite() && *t >= 1.0)
                .ok_or_else(|| type_error("executeTool: options.timeoutMs must be a positive number"))?
                as u32,
        ),
    };
    Ok((target, args, CallOptions { call_id, timeout_ms }, signal))
}

/// The arguments of `executeTool`, checked as native checks them (measured, docs/native.md): left out or
/// `undefined` they are `{}`; `null`, a number or a boolean is a `TypeError`, and so is an object that JSON cannot
/// write (its `toJSON` gives `undefined`, a cycle). An array is a `TypeError` on the bridge's path, whose protocol
/// carries an object; on native's path (`array_ok`) it goes to native, which takes it. A string holding a JSON
/// object is taken too (the bridge's extension: native refuses every string with a `TypeError`, and so does the
/// bridge any other string). As JSON text.
fn call_args(args: &JsValue, array_ok: bool) -> Result<JsonText, JsValue> {
    if args.is_undefined() {
        return Ok(JsonText::empty_object());
    }
    let text = if let Some(text) = args.as_string() {
        text
    } else if args.is_object() {
        let written = js_sys::JSON::stringify(args).map_err(|e| {
            type_error(&format!("executeTool: the arguments cannot be written as JSON ({})", console::describe(&e)))
        })?;
        written.as_string().ok_or_else(|| type_error("executeTool: the arguments cannot be written as JSON"))?
    } else {
        return Err(type_error("executeTool: the arguments must be an object (or a string holding a JSON object)"));
    };
    let from_string = args.is_string();
    let limits = with_driver(|driver| driver.options.limits.clone()).unwrap_or_default();
    let args = JsonText::parse(&text, &limits).map_err(|e| type_error(&format!("executeTool: the arguments {e}")))?;
    let array_taken = array_ok && !from_string && args.kind() == webmcp_policy::JsonKind::Array;
    if !args.is_object() && !array_taken {
        return Err(type_error("executeTool: the arguments must be an object (JSON text of an object)"));
    }
    if args.has_proto_key() {
        return Err(type_error("executeTool: the arguments hold a \"__proto__\" key, which no provider accepts"));
    }
    Ok(args)
}

/// The `signal` of `executeTool`'s options, checked.
fn call_signal(options: &JsValue) -> Result<Option<web_sys::AbortSignal>, JsValue> {
    let signal = get(options, "signal");
    let signal = if signal.is_undefined() || signal.is_null() {
        None
    } else {
        Some(
            signal
                .dyn_into::<web_sys::AbortSignal>()
                .map_err(|_| type_error("executeTool: options.signal must be an AbortSignal"))?,
        )
    };
    Ok(signal)
}

/// A tool object of `registerTool`, checked.
pub(crate) fn local_tool(tool: &JsValue, options: &JsValue) -> Result<(ToolSpec, Handler), BridgeError> {
    if !tool.is_object() {
        return Err(BridgeError::invalid(
            "registerTool(tool): tool must be an object with name, description and execute",
        ));
    }
    let name = get(tool, "name")
        .as_string()
        .ok_or_else(|| BridgeError::invalid("registerTool: tool.name must be a string"))?;
    let name = ToolName::new(name)?;
    let description = get(tool, "description").as_string().filter(|d| !d.is_empty()).ok_or_else(|| {
        BridgeError::invalid(format!("registerTool({name}): tool.description must be a non-empty string"))
    })?;
    let execute = get(tool, "execute")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| BridgeError::invalid(format!("registerTool({name}): tool.execute must be a function")))?;
    let input_schema = json_object(&get(tool, "inputSchema"), &name, "inputSchema")?;
    let annotations = json_object(&get(tool, "annotations"), &name, "annotations")?;
    let validate = get(tool, "validateArgs").as_bool().unwrap_or(true);
    let checker = match (&input_schema, validate) {
        (Some(schema), true) => {
            let value = schema.to_value().map_err(|e| BridgeError::invalid(e.to_string()))?;
            Some(ArgSchema::compile(&value).map_err(|source| BridgeError::Schema { tool: name.to_string(), source })?)
        }
        _ => None,
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
fn json_object(value: &JsValue, tool: &ToolName, field: &str) -> Result<Option<JsonText>, BridgeError> {
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
    let json = JsonText::parse(&text, &webmcp_policy::Limits::default())
        .map_err(|e| BridgeError::invalid(format!("registerTool({tool}): {field} {e}")))?;
    if !json.is_object() {
        return Err(BridgeError::invalid(format!("registerTool({tool}): {field} must be an object")));
    }
    Ok(Some(json))
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Options of `install()`. */
export interface InstallOptions {
  /** Origins that may see this page's tools: "https://a.example, https://b.example" or an array. */
  exposeToolsTo?: string | string[];
  /** An element whose `expose-tools-to` attribute holds the list (used when exposeToolsTo is absent). */
  element?: Element;
  /** Accept subdomain wildcards such as "https://*.example.com" (off by default). */
  allowWildcards?: boolean;
  /** The longest result sent, in characters of JSON (default 30000); longer ones become { truncated, preview }. */
  resultCap?: number;
  /** Calls one origin may have running at once (default 64). */
  maxCallsInFlight?: number;
  /** Calls of this page that may wait for an outcome at once (default 4096); more are refused. */
  maxPendingCalls?: number;
  /** Bytes of results this page holds, per caller origin, until the caller acknowledges them (default 262144);
   * beyond that the oldest are dropped and read as expired (docs/once-only.md §8). */
  maxHeldResultBytes?: number;
  /** How long getTools waits for silent windows, in ms (default 500). */
  discoveryTimeoutMs?: number;
  /** Where the call journal lives: "session" (sessionStorage, the default) or "memory". */
  storage?: "session" | "memory";
}

/** The arguments `execute` receives when no type is given: a JSON object, checked against `inputSchema`. */
export type ToolArgs = Record<string, unknown>;

/** What `execute` receives besides the arguments. */
export interface ToolExecuteContext {
  /** Aborted when the caller stops the call (or its window goes away). */
  readonly signal: AbortSignal;
}

/** A tool as a page registers it. `Args` types `execute`'s arguments (match it to `inputSchema`). */
export interface ToolDefinition<Args extends object = ToolArgs, Result = unknown> {
  name: string;
  description: string;
  inputSchema?: object;
  annotations?: object;
  /** Check arguments against inputSchema before execute runs (default true). */
  validateArgs?: boolean;
  /** Returns the result (any JSON-like value) or throws: an Error's `status` (100-599) and `retryAfter` reach
   * the caller. */
  execute(args: Args, context: ToolExecuteContext): Result | Promise<Result>;
}

export interface RegisterToolOptions {
  /** Aborting it unregisters the tool. */
  signal?: AbortSignal;
  /** Origins that may see this tool, instead of the page's exposeToolsTo. */
  exposedTo?: string | string[];
  allowWildcards?: boolean;
}

/** A tool as getTools returns it. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: object;
  readonly annotations?: object;
  /** The origin of the window that runs it, as the browser reported it. */
  readonly origin: string;
  readonly window: Window;
  /** The way its calls go (not enumerable): "bridge" (the bridge's protocol) or, where the browser has native
   * WebMCP, "native" (a tool only native listed: native's executeTool, see docs/native.md). */
  readonly path: "bridge" | "native";
}

export interface GetToolsOptions {
  /** Origins whose tools are returned besides this page's own. */
  fromOrigins?: string | string[];
  allowWildcards?: boolean;
  /** How long to wait for windows that do not answer, in ms (default 500). */
  timeoutMs?: number;
  /** More windows to ask, such as a popup this page opened. */
  windows?: Window[];
}

export interface ExecuteToolOptions {
  /** Aborting it stops the call; the promise rejects at once with the signal's reason. */
  signal?: AbortSignal;
  /** Your idempotency key: the same callId never runs the tool again. */
  callId?: string;
  /** Stop the call after this many ms (no limit by default). */
  timeoutMs?: number;
}

/** The category of a failed call (`ToolCallError.code`). */
export type ToolCallErrorCode =
  | "tool_error"
  | "unknown_tool"
  | "invalid_args"
  | "too_many_calls"
  | "interrupted"
  | "cancelled"
  | "timeout"
  | "refused";

/** The error a failed call rejects with (an `Error`; test for it with `isToolCallError`). */
export interface ToolCallError extends Error {
  /** What kind of failure: branch on this, not on the message. */
  code: ToolCallErrorCode;
  /** The HTTP-like status the tool threw with, when valid (100-599). */
  status?: number;
  /** The retryAfter the tool threw with, as given (a number, or a numeric string). */
  retryAfter?: number | string;
}

/** `toolresult`: a call of this page settled (even one resumed after a reload). */
export interface ToolResultEvent extends Event {
  readonly type: "toolresult";
  readonly callId: string;
  readonly name: string;
  readonly origin: string;
  readonly status: "completed" | "failed" | "stopped" | "interrupted";
  /** The result, as `executeTool` resolved with it: a string (an object result's JSON text). */
  readonly result?: string;
  readonly error?: ToolCallError;
  readonly durationMs: number;
  /** True when the call settled in a later page than the one that started it. */
  readonly recovered: boolean;
}

/** `toolstatus`: a call made by another page of this origin (another tab, or another frame): statuses only, never
 * its arguments or result. Observing never runs or resumes the call; only the page that made it does. */
export interface ToolStatusEvent extends Event {
  readonly type: "toolstatus";
  /** The public label of the tab whose page made the call (the same across its reloads; never its id). */
  readonly tab: string;
  readonly callId: string;
  readonly name: string;
  /** The origin of the window that runs the tool. */
  readonly origin: string;
  readonly status: "running" | "completed" | "failed" | "stopped" | "interrupted";
  /** Milliseconds from the call's start to its end, once settled. */
  readonly durationMs?: number;
}

/** `toolactivated` and `toolcancel`: one of this page's JavaScript tools started running for a call, or that call
 * was stopped while it ran (as native WebMCP fires them; of the browser's own classes where it has them). */
export interface ToolActivationEvent extends Event {
  readonly toolName: string;
}

/** The events of a `ModelContext`, by type. */
export interface ModelContextEventMap {
  /** The tools this page can see changed (a window around it registered or unregistered one). */
  toolchange: Event;
  toolactivated: ToolActivationEvent;
  toolcancel: ToolActivationEvent;
  toolresult: ToolResultEvent;
  toolstatus: ToolStatusEvent;
}

/** The object `install()` returns, also defined as `document.modelContext` (in place of the browser's native one,
 * if any: every tool registered here is registered there too). */
export interface ModelContext extends EventTarget {
  /** Resolves when the bridge is ready: it knows its tab and frame and resumed its journal (an extension). */
  readonly ready: Promise<void>;
  /** Registers a tool (at once: it is listed before this returns). Resolves with `undefined`, as native WebMCP's;
   * rejects with a `TypeError` for a missing or mistyped field, a `DOMException` `InvalidStateError` for a name
   * already registered, an invalid name or an empty description, and the signal's reason when it was already
   * aborted. */
  registerTool<Args extends object = ToolArgs, Result = unknown>(
    tool: ToolDefinition<Args, Result>,
    options?: RegisterToolOptions,
  ): Promise<void>;
  unregisterTool(name: string): boolean;
  /** Lists this page's tools and those of the windows around it (parent, its frames, this page's frames,
   * opener) whose origin is in `fromOrigins`. A window that has not answered within `timeoutMs` is left out: an
   * iframe still loading is listed by a later call. To wait for one, call again on `toolchange` (fired when a
   * window's tools appear), or after the iframe's `load` event plus its own `install()`. */
  getTools(options?: GetToolsOptions): Promise<Tool[]>;
  /** Calls a tool from getTools. Resolves, as native WebMCP does, with a string: a string result as it is, any
   * other result as its JSON text (`JSON.parse` it). Rejects with a `ToolCallError` (or the signal's reason when
   * aborted). */
  executeTool(tool: Tool, args?: object | string, options?: ExecuteToolOptions): Promise<string>;
  ontoolchange: ((this: ModelContext, event: Event) => void) | null;
  ontoolresult: ((this: ModelContext, event: ToolResultEvent) => void) | null;
  ontoolstatus: ((this: ModelContext, event: ToolStatusEvent) => void) | null;
  ontoolactivated: ((this: ModelContext, event: ToolActivationEvent) => void) | null;
  ontoolcancel: ((this: ModelContext, event: ToolActivationEvent) => void) | null;
  addEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, event: ModelContextEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, event: ModelContextEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface Document {
    /** The page's model context: the bridge's once `install()` ran (a polyfill's object is left alone). */
    readonly modelContext: ModelContext;
  }
}
"#;
