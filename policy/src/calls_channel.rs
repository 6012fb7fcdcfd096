//! The calls channel: the `BroadcastChannel` on which the pages of one origin tell each other how their calls stand
//! (docs/protocol.md, "Call statuses between pages of one origin"). Its messages, read and written here; the
//! handshake (a page announces only once another says it listens) is the session's ([`crate::session`]): the driver
//! only moves the text between the channel and [`Input::CallsChannel`](crate::session::Input::CallsChannel).
//!
//! Another page's message is read, never trusted to be well formed: the channel is reachable by every script of the
//! origin (and by other versions of the bridge), so anything that is not one of the messages below is
//! [`ChannelMessage::Other`], and a malformed entry of a status list is skipped.
//!
//! ```
//! use interpane_policy::calls_channel::{ChannelMessage, HELLO, ObservedCall, ObservedStatus, decode, encode_statuses};
//!
//! assert_eq!(decode(HELLO), ChannelMessage::Hello);
//! let call = ObservedCall {
//!     tab_label: "lQ9f".into(),
//!     call_id: "order-1042".into(),
//!     name: "pay_invoice".into(),
//!     origin: "https://pay.example".into(),
//!     status: ObservedStatus::Running,
//!     duration_ms: None,
//! };
//! let text = encode_statuses(std::slice::from_ref(&call));
//! assert_eq!(decode(&text), ChannelMessage::Statuses(vec![call]));
//! assert_eq!(decode(r#"{"kind":"something else"}"#), ChannelMessage::Other);
//! ```

use serde_json::Value;

use crate::envelope::encode::{Object, push_json_string};

use crate::journal::OutcomeStatus;

/// The `kind` of a message that lists call statuses.
pub const STATUS_KIND: &str = "webmcp-call-status";
/// The `kind` of the handshake's messages.
pub const WATCHER_KIND: &str = "webmcp-call-watcher";
/// "I listen" (a page says it when it starts).
pub const HELLO: &str = r#"{"kind":"webmcp-call-watcher","hello":true}"#;
/// The answer to a hello (one per hello heard).
pub const ANSWER: &str = r#"{"kind":"webmcp-call-watcher"}"#;
/// The longest string field read, in bytes (ids, tool names and origins are far shorter).
pub const MAX_TEXT: usize = 2048;
/// The most entries read from one status list (a page announces at most its pending calls, 4096 by default, twice).
pub const MAX_CALLS: usize = 8192;
/// The largest message read, in bytes of JSON text: [`MAX_CALLS`] entries of ordinary size fit many times over.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Where a call of a page of this origin stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservedStatus {
    /// Sent to its provider, not settled yet.
    Running,
    /// Settled.
    Settled(OutcomeStatus),
}

impl ObservedStatus {
    /// `"running"`, or the settled status (`"completed"`, `"failed"`, `"stopped"`, `"interrupted"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Settled(status) => status.as_str(),
        }
    }

    /// Reads [`ObservedStatus::as_str`]'s text.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "running" => Self::Running,
            "completed" => Self::Settled(OutcomeStatus::Completed),
            "failed" => Self::Settled(OutcomeStatus::Failed),
            "stopped" => Self::Settled(OutcomeStatus::Stopped),
            "interrupted" => Self::Settled(OutcomeStatus::Interrupted),
            _ => return None,
        })
    }
}

/// A call of a page of this origin, as the `toolstatus` event reports it and the calls channel carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedCall {
    /// The public label of the tab that made the call: the same for all its pages and across their reloads,
    /// another for each tab. Not the tab's id, which never leaves the tab (docs/once-only.md §5). Its key is `tab`
    /// in the channel's messages and in the `toolstatus` event.
    pub tab_label: String,
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

/// A message of the calls channel, as read.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelMessage {
    /// Another page started and listens: answer it, and announce from now on.
    Hello,
    /// Another page answered this page's hello: announce from now on.
    Answer,
    /// Another page's calls, in the order it listed them, without the malformed entries.
    Statuses(Vec<ObservedCall>),
    /// Anything else (another script's message, a newer kind, not JSON, too large): ignored.
    Other,
}

/// Reads one message of the channel, `text` being its data as JSON text.
pub fn decode(text: &str) -> ChannelMessage {
    if text.len() > MAX_MESSAGE_BYTES {
        return ChannelMessage::Other;
    }
    let Ok(Value::Object(message)) = crate::envelope::parse_json(text) else { return ChannelMessage::Other };
    match message.get("kind").and_then(Value::as_str) {
        Some(WATCHER_KIND) if message.get("hello") == Some(&Value::Bool(true)) => ChannelMessage::Hello,
        Some(WATCHER_KIND) => ChannelMessage::Answer,
        Some(STATUS_KIND) => match message.get("calls") {
            Some(Value::Array(calls)) => {
                ChannelMessage::Statuses(calls.iter().take(MAX_CALLS).filter_map(read_call).collect())
            }
            _ => ChannelMessage::Statuses(Vec::new()),
        },
        _ => ChannelMessage::Other,
    }
}

/// The message that lists `calls` (gathered during one task: a burst of calls costs one message).
pub fn encode_statuses(calls: &[ObservedCall]) -> String {
    let mut out = String::from("{\"calls\":[");
    for (at, call) in calls.iter().enumerate() {
        if at > 0 {
            out.push(',');
        }
        out.push_str(&encode_call(call));
    }
    out.push_str("],\"kind\":");
    push_json_string(&mut out, STATUS_KIND);
    out.push('}');
    out
}

/// The JSON text of one entry of a status list, whose fields are also those of the `toolstatus` event.
pub fn encode_call(call: &ObservedCall) -> String {
    let mut out = String::new();
    let mut object = Object::open(&mut out);
    object.string("callId", &call.call_id);
    if let Some(ms) = call.duration_ms {
        object.number("durationMs", ms);
    }
    (object.string("name", &call.name).string("origin", &call.origin))
        .string("status", call.status.as_str())
        .string("tab", &call.tab_label)
        .close();
    out
}

/// One entry of a status list; `None` when a field is missing or malformed.
fn read_call(entry: &Value) -> Option<ObservedCall> {
    let entry = entry.as_object()?;
    let text = |key: &str| -> Option<String> {
        entry.get(key)?.as_str().filter(|s| !s.is_empty() && s.len() <= MAX_TEXT).map(str::to_owned)
    };
    let duration_ms = match entry.get("durationMs") {
        None => None,
        Some(ms) => Some(ms.as_f64().filter(|ms| ms.is_finite() && *ms >= 0.0)? as u64),
    };
    Some(ObservedCall {
        tab_label: text("tab")?,
        call_id: text("callId")?,
        name: text("name")?,
        origin: text("origin")?,
        status: ObservedStatus::parse(&text("status")?)?,
        duration_ms,
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    fn call(id: &str, status: ObservedStatus, duration_ms: Option<u64>) -> ObservedCall {
        ObservedCall {
            tab_label: "t1".into(),
            call_id: id.into(),
            name: "pay".into(),
            origin: "https://pay.example".into(),
            status,
            duration_ms,
        }
    }

    #[test]
    fn what_each_message_reads_as() {
        let long = "x".repeat(MAX_TEXT + 1);
        let entry = |fields: &str| format!(r#"{{"kind":"webmcp-call-status","calls":[{fields}]}}"#);
        let good = r#"{"tab":"t1","callId":"a","name":"pay","origin":"https://pay.example","status":"running"}"#;
        let table: Vec<(String, ChannelMessage)> = vec![
            (HELLO.into(), ChannelMessage::Hello),
            (ANSWER.into(), ChannelMessage::Answer),
            (r#"{"kind":"webmcp-call-watcher","hello":"yes"}"#.into(), ChannelMessage::Answer),
            (entry(good), ChannelMessage::Statuses(vec![call("a", ObservedStatus::Running, None)])),
            (
                entry(&good.replace(r#""status":"running""#, r#""status":"failed","durationMs":12.7"#)),
                ChannelMessage::Statuses(vec![call("a", ObservedStatus::Settled(OutcomeStatus::Failed), Some(12))]),
            ),
            // Malformed entries are skipped, the rest kept in order.
            (
                entry(&format!(
                    r#"{good},{{"tab":"t1"}},5,{},{},{},{}"#,
                    good.replace(r#""callId":"a""#, r#""callId":"""#),
                    good.replace(r#""status":"running""#, r#""status":"done""#),
                    good.replace(r#""status":"running""#, r#""status":"completed","durationMs":-1"#),
                    good.replace(r#""name":"pay""#, &format!(r#""name":"{long}""#)),
                )),
                ChannelMessage::Statuses(vec![call("a", ObservedStatus::Running, None)]),
            ),
            (r#"{"kind":"webmcp-call-status","calls":{}}"#.into(), ChannelMessage::Statuses(vec![])),
            (r#"{"kind":"webmcp-call-status"}"#.into(), ChannelMessage::Statuses(vec![])),
            (r#"{"kind":"other"}"#.into(), ChannelMessage::Other),
            ("[1]".into(), ChannelMessage::Other),
            ("not json".into(), ChannelMessage::Other),
            ("\"webmcp-call-watcher\"".into(), ChannelMessage::Other),
        ];
        for (text, expected) in table {
            assert_eq!(decode(&text), expected, "{text}");
        }
    }

    #[test]
    fn at_most_max_calls_entries_are_read() {
        let calls: Vec<ObservedCall> =
            (0..MAX_CALLS + 3).map(|i| call(&format!("c{i}"), ObservedStatus::Running, None)).collect();
        let ChannelMessage::Statuses(read) = decode(&encode_statuses(&calls)) else { panic!("not statuses") };
        assert_eq!(read.len(), MAX_CALLS);
        assert_eq!(read.last().map(|c| c.call_id.as_str()), Some("c8191"));
    }

    #[test]
    fn what_is_written_is_read_back() {
        let calls = [
            call("a", ObservedStatus::Running, None),
            call("b", ObservedStatus::Settled(OutcomeStatus::Completed), Some(40)),
        ];
        assert_eq!(decode(&encode_statuses(&calls)), ChannelMessage::Statuses(calls.to_vec()));
        let written: Value = serde_json::from_str(&encode_statuses(&calls[1..])).unwrap_or_default();
        let fields = json!({ "tab": "t1", "callId": "b", "name": "pay", "origin": "https://pay.example",
                             "status": "completed", "durationMs": 40 });
        assert_eq!(written, json!({ "kind": "webmcp-call-status", "calls": [fields] }));
    }
}
