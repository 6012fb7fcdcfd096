//! Values for page code: results from other windows as plain data, and errors that keep a provider's name, status
//! and retryAfter.

use wasm_bindgen::JsValue;
use webmcp_policy::ToolError;
use webmcp_policy::journal::CallOutcome;

use crate::js;

/// The JavaScript value of a call's result, or the Error its promise rejects with.
pub(crate) fn outcome_to_js(outcome: &CallOutcome) -> Result<JsValue, JsValue> {
    match outcome {
        CallOutcome::Completed { result } => Ok(page_value(result)),
        CallOutcome::Stopped => Err(js::make_error(
            webmcp_policy::journal::STOPPED_MESSAGE,
            "AbortError",
            "cancelled",
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        )),
        other => Err(other.error().map_or(JsValue::UNDEFINED, |error| error_to_js(&error))),
    }
}

/// JSON text from another window as a value for page code: plain data built by `JSON.parse`, with every
/// `__proto__` key dropped (the reviver that drops them is slower, so it runs only when one may be there).
pub(crate) fn page_value(text: &str) -> JsValue {
    // A key can be written with escapes (`"\u005f_proto__"`): any escape sends the text the careful way.
    let careful = text.contains("__proto__") || text.contains("\\u");
    let parsed = if careful { js::parse_without_proto_keys(text) } else { js_sys::JSON::parse(text) };
    parsed.unwrap_or(JsValue::NULL)
}

/// An `Error` with the provider's message, name, status and retryAfter, and the failure's `code`.
pub(crate) fn error_to_js(error: &ToolError) -> JsValue {
    let status = error.status.map_or(JsValue::UNDEFINED, JsValue::from);
    let retry_after = match &error.retry_after {
        Some(webmcp_policy::RetryAfter::Seconds(s)) => JsValue::from_f64(*s),
        Some(webmcp_policy::RetryAfter::Text(t)) => JsValue::from_str(t),
        None => JsValue::UNDEFINED,
    };
    js::make_error(&error.message, error.error_name(), error.kind.as_str(), status, retry_after)
}
