//! Values for page code: results from other windows as native WebMCP gives them, plain data where a value is
//! needed, and errors that keep a provider's name, status and retryAfter.

use interpane_policy::journal::CallOutcome;
use interpane_policy::{JsonText, ToolError};
use wasm_bindgen::JsValue;

use crate::js;

/// What `executeTool` resolves with (and a `toolresult` event's `result` holds), or the Error it rejects with.
pub(crate) fn outcome_to_js(outcome: &CallOutcome) -> Result<JsValue, JsValue> {
    match outcome {
        CallOutcome::Completed { result } => Ok(result_text(result)),
        CallOutcome::Stopped => Err(js::make_error(
            interpane_policy::journal::STOPPED_MESSAGE,
            "AbortError",
            "cancelled",
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        )),
        other => Err(other.error().map_or(JsValue::UNDEFINED, |error| error_to_js(&error))),
    }
}

/// A result as native WebMCP gives it (docs/native.md): always a string, a string result as it is and any other
/// result as its JSON text (`{"doubled":42}`, `5`, `null`). The wire carries JSON, in which `undefined` is `null`:
/// a tool that returned nothing reads `"null"` here, where native reads `"undefined"`.
///
/// Text that holds a `__proto__` key (written plainly or with escapes; the policy found it when it checked the
/// text) is written again without it, so that code which parses the result and copies it into an object cannot be
/// given another prototype by a provider.
pub(crate) fn result_text(result: &JsonText) -> JsValue {
    let text = result.as_str().trim();
    if text.starts_with('"')
        && let Ok(serde_json::Value::String(string)) = interpane_policy::envelope::parse_json(text)
    {
        return JsValue::from_str(&string);
    }
    if result.has_proto_key() {
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

#[wasm_bindgen::prelude::wasm_bindgen(module = "/js/values.js")]
extern "C" {
    /// A `DOMException` named `name`, with `code` (the bridge's category) as an own property.
    #[wasm_bindgen(js_name = makeDomException)]
    pub(crate) fn make_dom_exception(message: &str, name: &str, code: &str) -> JsValue;

    /// The same, with the provider's `status` and `retryAfter` (undefined when absent).
    #[wasm_bindgen(js_name = makeDomException)]
    fn make_dom_exception_with(message: &str, name: &str, code: &str, status: JsValue, retry_after: JsValue)
    -> JsValue;
}

/// An `Error` with the provider's message, name, status and retryAfter, and the failure's `code`. Arguments refused
/// by the tool's `inputSchema` are a `DOMException` `DataError` with code `invalid_args`, as the WebMCP
/// web-platform-tests expect of a schema refusal (docs/native.md). An error whose name only a `DOMException` has
/// (native's `UnknownError`, a tool's `NotAllowedError`, the `UnknownError` of a provider that went away
/// mid-call or no longer has the tool) is a `DOMException` here too.
pub(crate) fn error_to_js(error: &ToolError) -> JsValue {
    if error.kind == interpane_policy::ErrorKind::InvalidArgs {
        return make_dom_exception(&error.message, "DataError", error.kind.as_str());
    }
    let status = error.status.map_or(JsValue::UNDEFINED, JsValue::from);
    let retry_after = match &error.retry_after {
        Some(interpane_policy::RetryAfter::Seconds(s)) => JsValue::from_f64(*s),
        Some(interpane_policy::RetryAfter::Text(t)) => JsValue::from_str(t),
        None => JsValue::UNDEFINED,
    };
    let name = error.error_name();
    let dom_name = error.name.is_some()
        || matches!(error.kind, interpane_policy::ErrorKind::Interrupted | interpane_policy::ErrorKind::UnknownTool);
    if dom_name && interpane_policy::outcome::is_dom_exception_name(name) {
        return make_dom_exception_with(&error.message, name, error.kind.as_str(), status, retry_after);
    }
    js::make_error(&error.message, name, error.kind.as_str(), status, retry_after)
}
