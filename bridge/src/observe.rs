//! Other pages of this origin (other tabs, other frames of it) observe how this page's calls go, and this page how
//! theirs go, on the BroadcastChannel `interpane:calls` (docs/once-only.md §5). Only statuses travel: a call's
//! id, tool, provider origin and status, never its arguments, result or error. Observing never runs or resumes
//! anything: only the page that made a call does.

use wasm_bindgen::{JsCast, JsValue};

use crate::options::get;
use interpane_policy::session::{ObservedCall, ObservedStatus};

/// The `kind` of an announcement on the channel.
const KIND: &str = "webmcp-call-status";
/// The longest string an announcement may carry (ids, tool names and origins are far shorter).
const MAX_TEXT: usize = 2048;
/// The most calls read from one announcement (a page announces at most its pending calls, 4096 by default, twice).
const MAX_CALLS: usize = 8192;

/// The message that announces `calls` (gathered during one task: a burst of calls costs one message).
pub(crate) fn announcement(calls: &[ObservedCall]) -> JsValue {
    let message: JsValue = js_sys::Object::new().into();
    set(&message, "kind", &JsValue::from_str(KIND));
    let list = js_sys::Array::new();
    for call in calls {
        list.push(&to_js_detail(call));
    }
    set(&message, "calls", &list);
    message
}

/// The calls of an announcement another page posted, without the malformed ones; nothing for anything else on
/// the channel (it is same-origin, so this guards against other scripts' messages and other versions, not against
/// attackers).
pub(crate) fn read_announcement(data: &JsValue) -> Vec<ObservedCall> {
    if !data.is_object() || text(data, "kind").as_deref() != Some(KIND) {
        return Vec::new();
    }
    let Ok(calls) = get(data, "calls").dyn_into::<js_sys::Array>() else { return Vec::new() };
    calls.iter().take(MAX_CALLS).filter_map(|call| from_js_detail(&call)).collect()
}

/// The fields of the `toolstatus` event, and of a call in an announcement.
pub(crate) fn to_js_detail(call: &ObservedCall) -> JsValue {
    let detail: JsValue = js_sys::Object::new().into();
    set(&detail, "tab", &JsValue::from_str(&call.tab));
    set(&detail, "callId", &JsValue::from_str(&call.call_id));
    set(&detail, "name", &JsValue::from_str(&call.name));
    set(&detail, "origin", &JsValue::from_str(&call.origin));
    set(&detail, "status", &JsValue::from_str(call.status.as_str()));
    if let Some(ms) = call.duration_ms {
        set(&detail, "durationMs", &JsValue::from_f64(ms as f64));
    }
    detail
}

/// One call of an announcement; `None` when a field is missing or malformed.
fn from_js_detail(data: &JsValue) -> Option<ObservedCall> {
    if !data.is_object() {
        return None;
    }
    let duration_ms = match get(data, "durationMs") {
        value if value.is_undefined() => None,
        value => {
            let ms = value.as_f64().filter(|ms| ms.is_finite() && *ms >= 0.0)?;
            Some(ms as u64)
        }
    };
    Some(ObservedCall {
        tab: text(data, "tab")?,
        call_id: text(data, "callId")?,
        name: text(data, "name")?,
        origin: text(data, "origin")?,
        status: ObservedStatus::parse(&text(data, "status")?)?,
        duration_ms,
    })
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

/// A non-empty string field of at most [`MAX_TEXT`] characters.
fn text(source: &JsValue, key: &str) -> Option<String> {
    get(source, key).as_string().filter(|s| !s.is_empty() && s.len() <= MAX_TEXT)
}
