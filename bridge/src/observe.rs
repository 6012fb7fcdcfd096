//! Other pages of this origin (other tabs, other frames of it) observe how this page's calls go, and this page how
//! theirs go, on the BroadcastChannel `interpane:calls` (docs/once-only.md §5). The channel's messages and its
//! handshake are the policy's (`interpane_policy::calls_channel`, the session); here only the `toolstatus` event's
//! fields are made.

use interpane_policy::calls_channel::encode_call;
use interpane_policy::session::ObservedCall;
use wasm_bindgen::JsValue;

/// The fields of the `toolstatus` event: those of a call in an announcement.
pub(crate) fn to_js_detail(call: &ObservedCall) -> JsValue {
    js_sys::JSON::parse(&encode_call(call)).unwrap_or(JsValue::UNDEFINED)
}
