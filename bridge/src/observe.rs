//! Other pages of this origin (other tabs, other frames of it) observe how this page's calls go, and this page how
//! theirs go, on the BroadcastChannel `webmcp-bridge:calls` (docs/once-only.md §5). Only statuses travel: a call's
//! id, tool, provider origin and status, never its arguments, result or error. Observing never runs or resumes
//! anything: only the page that made a call does.

use wasm_bindgen::{JsCast, JsValue};

use crate::CallStatus;
use crate::options::get;

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
        list.push(&call.to_js_detail());
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
    calls.iter().take(MAX_CALLS).filter_map(|call| ObservedCall::from_js_detail(&call)).collect()
}

/// Where a call of another page stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservedStatus {
    /// Sent to its provider, not settled yet.
    Running,
    /// Settled.
    Settled(CallStatus),
}

impl ObservedStatus {
    /// `"running"`, or the settled status (`"completed"`, `"failed"`, `"stopped"`, `"interrupted"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Settled(status) => status.as_str(),
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "running" => Self::Running,
            "completed" => Self::Settled(CallStatus::Completed),
            "failed" => Self::Settled(CallStatus::Failed),
            "stopped" => Self::Settled(CallStatus::Stopped),
            "interrupted" => Self::Settled(CallStatus::Interrupted),
            _ => return None,
        })
    }
}

/// A call made by another page of this origin, as the `toolstatus` event reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedCall {
    /// The public label of the tab that made the call: the same for all its pages and across their reloads,
    /// another for each tab (a copied tab gets its own). Not the tab's id, which decides which calls a page may
    /// resume and so never leaves the tab (docs/once-only.md §5).
    pub tab: String,
    /// The caller's `callId`, or the id its bridge made.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The origin of the window that runs the tool.
    pub origin: String,
    /// Where the call stands.
    pub status: ObservedStatus,
    /// Milliseconds from the call's start to its end, once settled.
    pub duration_ms: Option<u64>,
}

impl ObservedCall {
    /// The fields of the `toolstatus` event, and of a call in an announcement.
    pub(crate) fn to_js_detail(&self) -> JsValue {
        let detail: JsValue = js_sys::Object::new().into();
        set(&detail, "tab", &JsValue::from_str(&self.tab));
        set(&detail, "callId", &JsValue::from_str(&self.call_id));
        set(&detail, "name", &JsValue::from_str(&self.name));
        set(&detail, "origin", &JsValue::from_str(&self.origin));
        set(&detail, "status", &JsValue::from_str(self.status.as_str()));
        if let Some(ms) = self.duration_ms {
            set(&detail, "durationMs", &JsValue::from_f64(ms as f64));
        }
        detail
    }

    /// One call of an announcement; `None` when a field is missing or malformed.
    fn from_js_detail(data: &JsValue) -> Option<Self> {
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
        Some(Self {
            tab: text(data, "tab")?,
            call_id: text(data, "callId")?,
            name: text(data, "name")?,
            origin: text(data, "origin")?,
            status: ObservedStatus::parse(&text(data, "status")?)?,
            duration_ms,
        })
    }
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

/// A non-empty string field of at most [`MAX_TEXT`] characters.
fn text(source: &JsValue, key: &str) -> Option<String> {
    get(source, key).as_string().filter(|s| !s.is_empty() && s.len() <= MAX_TEXT)
}
