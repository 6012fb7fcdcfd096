//! Calls into page code (tools, promise settlements, event listeners), queued while the bridge's state is
//! borrowed and run after, so that page code may call back into the bridge.

use std::rc::Rc;

use wasm_bindgen::JsValue;
use webmcp_policy::{JsonText, ToolError};

use crate::core::with_core;
use crate::registry::ToolFuture;
use crate::{ObservedCall, RemoteTool, ToolResult, js};

/// How a call ended, as its waiters learn it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The result, as JSON text.
    Completed(String),
    /// The error (an interrupted call is a failure of kind `Interrupted`).
    Failed(ToolError),
    /// The caller stopped it.
    Stopped,
}

impl Outcome {
    /// What `executeTool` resolves with (and a `toolresult` event's `result` holds), or the Error to reject with.
    pub fn to_js(&self) -> Result<JsValue, JsValue> {
        match self {
            Outcome::Completed(text) => Ok(result_text(text)),
            Outcome::Failed(error) => Err(error_to_js(error)),
            Outcome::Stopped => Err(js::make_error(
                webmcp_policy::journal::STOPPED_MESSAGE,
                "AbortError",
                "cancelled",
                JsValue::UNDEFINED,
                JsValue::UNDEFINED,
            )),
        }
    }
}

/// A result as native WebMCP gives it (docs/native.md): always a string, a string result as it is and any other
/// result as its JSON text (`{"doubled":42}`, `5`, `null`). The wire carries JSON, in which `undefined` is `null`:
/// a tool that returned nothing reads `"null"` here, where native reads `"undefined"`.
///
/// Text that may hold a `__proto__` key (written plainly or with escapes) is written again without it, so that code
/// which parses the result and copies it into an object cannot be given another prototype by a provider.
pub(crate) fn result_text(text: &str) -> JsValue {
    let text = text.trim();
    if text.starts_with('"')
        && let Ok(string) = serde_json::from_str::<String>(text)
    {
        return JsValue::from_str(&string);
    }
    if text.contains("__proto__") || text.contains("\\u") {
        let rewritten = js::parse_without_proto_keys(text).and_then(|value| js_sys::JSON::stringify(&value));
        if let Ok(rewritten) = rewritten {
            return rewritten.into();
        }
    }
    JsValue::from_str(text)
}

/// JSON text from another window as a value for page code: plain data built by `JSON.parse`, with every
/// `__proto__` key dropped (the reviver that drops them is slower, so it runs only when one may be there).
pub(crate) fn page_value(text: &str) -> JsValue {
    // A key can be written with escapes (`"\u005f_proto__"`): any escape sends the text the careful way.
    let careful = text.contains("__proto__") || text.contains("\\u");
    let parsed = if careful { js::parse_without_proto_keys(text) } else { js_sys::JSON::parse(text) };
    parsed.unwrap_or(JsValue::NULL)
}

#[wasm_bindgen::prelude::wasm_bindgen(module = "/js/glue.js")]
extern "C" {
    /// A `DOMException` named `name`, with `code` (the bridge's category) as an own property.
    #[wasm_bindgen(js_name = makeDomException)]
    pub(crate) fn make_dom_exception(message: &str, name: &str, code: &str) -> JsValue;
}

/// An `Error` with the provider's message, name, status and retryAfter, and the failure's `code`. Arguments refused
/// by the tool's `inputSchema` are a `DOMException` `DataError` with code `invalid_args`, as the WebMCP
/// web-platform-tests expect of a schema refusal (docs/native.md).
pub(crate) fn error_to_js(error: &ToolError) -> JsValue {
    if error.kind == webmcp_policy::ErrorKind::InvalidArgs {
        return make_dom_exception(&error.message, "DataError", error.kind.as_str());
    }
    let status = error.status.map_or(JsValue::UNDEFINED, JsValue::from);
    let retry_after = match &error.retry_after {
        Some(webmcp_policy::RetryAfter::Seconds(s)) => JsValue::from_f64(*s),
        Some(webmcp_policy::RetryAfter::Text(t)) => JsValue::from_str(t),
        None => JsValue::UNDEFINED,
    };
    js::make_error(&error.message, error.error_name(), error.kind.as_str(), status, retry_after)
}

pub(crate) enum UserCall {
    RunJsTool {
        token: u32,
        execute: js_sys::Function,
        this: JsValue,
        args: String,
        signal: web_sys::AbortSignal,
    },
    RunRustTool {
        token: u32,
        run: Rc<dyn Fn(serde_json::Value, web_sys::AbortSignal) -> ToolFuture>,
        args: JsonText,
        signal: web_sys::AbortSignal,
    },
    Abort(web_sys::AbortController),
    SettleJs {
        resolve: js_sys::Function,
        reject: js_sys::Function,
        outcome: Outcome,
    },
    Reject {
        reject: js_sys::Function,
        error: JsValue,
    },
    ResolveTools {
        resolve: js_sys::Function,
        tools: Vec<RemoteTool>,
    },
    FireToolResult(ToolResult),
    FireToolChange,
    /// Another page of this origin said how one of its calls stands.
    FireToolStatus(ObservedCall),
}

impl UserCall {
    pub fn run(self, context: &JsValue) {
        match self {
            UserCall::RunJsTool { token, execute, this, args, signal } => {
                js::run_tool(token, &execute, &this, &args, &signal)
            }
            UserCall::RunRustTool { token, run, args, signal } => {
                if signal.aborted() {
                    // Stopped before its turn came: it never starts.
                    let stopped =
                        webmcp_policy::ToolError::new(webmcp_policy::ErrorKind::Cancelled, "stopped before it started");
                    with_core(|state| state.rust_tool_settled(token, Err(stopped)));
                    return;
                }
                let args = args.to_value().unwrap_or(serde_json::Value::Null);
                let future = run(args, signal);
                wasm_bindgen_futures::spawn_local(async move {
                    let settled = future.await;
                    with_core(|state| state.rust_tool_settled(token, settled));
                });
            }
            UserCall::Abort(controller) => controller.abort(),
            UserCall::SettleJs { resolve, reject, outcome } => {
                let _ = match outcome.to_js() {
                    Ok(value) => resolve.call1(&JsValue::UNDEFINED, &value),
                    Err(error) => reject.call1(&JsValue::UNDEFINED, &error),
                };
            }
            UserCall::Reject { reject, error } => {
                let _ = reject.call1(&JsValue::UNDEFINED, &error);
            }
            UserCall::ResolveTools { resolve, tools } => {
                let list = js_sys::Array::new();
                for tool in &tools {
                    list.push(&tool.to_js());
                }
                let _ = resolve.call1(&JsValue::UNDEFINED, &list);
            }
            UserCall::FireToolResult(result) => {
                if !context.is_undefined() {
                    js::fire_tool_result(context, &result.to_js_detail());
                }
                let listeners = with_core(|state| state.listeners.tool_result()).unwrap_or_default();
                for listener in listeners {
                    listener(&result);
                }
            }
            UserCall::FireToolStatus(call) => {
                if !context.is_undefined() {
                    js::fire_tool_status(context, &call.to_js_detail());
                }
                let listeners = with_core(|state| state.listeners.tool_status()).unwrap_or_default();
                for listener in listeners {
                    listener(&call);
                }
            }
            UserCall::FireToolChange => {
                if !context.is_undefined() {
                    js::fire_tool_change(context);
                }
                let listeners = with_core(|state| state.listeners.tool_change()).unwrap_or_default();
                for listener in listeners {
                    listener();
                }
            }
        }
    }
}
