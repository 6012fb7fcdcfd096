//! Building the responses a provider sends: a result within the cap, or an error that keeps its `status` and
//! `retryAfter` when they are valid.

use serde_json::Value;

use super::fields::cap_message;
use super::json_text::JsonText;
use super::message::ExecuteResponse;
use super::text::{next_special, push_json_string};
use crate::ids::RequestId;
use crate::limits::Limits;
use crate::outcome::{ErrorKind, RetryAfter, ToolError, standard_error_name, status_from_json};

impl ExecuteResponse {
    /// A success carrying `result`, or its truncated preview when it is longer than `limits.max_result_chars`
    /// (see [`cap_result`]).
    pub fn success(request_id: RequestId, result: JsonText, limits: &Limits) -> Self {
        Self { request_id, outcome: Ok(cap_result(result, limits.max_result_chars)) }
    }

    /// A failure carrying `error`.
    pub fn failure(request_id: RequestId, error: ToolError) -> Self {
        Self { request_id, outcome: Err(error) }
    }

    /// The response carrying an outcome from a journal. A journal holds only results that are JSON text (it checks
    /// them when they are recorded and when they are read back), so the text is not scanned again.
    pub fn from_outcome(request_id: RequestId, outcome: crate::journal::ToolOutcome, limits: &Limits) -> Self {
        match outcome {
            crate::journal::ToolOutcome::Completed { result } => {
                let may_hold_proto_key = result.contains("__proto__") || result.contains("\\u");
                Self::success(request_id, JsonText::from_trusted(result, may_hold_proto_key), limits)
            }
            crate::journal::ToolOutcome::Failed(error) => Self::failure(request_id, error),
        }
    }
}

const PREVIEW_OPEN: &str = "{\"truncated\":true,\"preview\":";

/// `result` itself when its JSON text has at most `max_chars` characters; otherwise
/// `{"truncated":true,"preview":"<the first characters of its JSON text>"}`, with as many characters as keep the
/// whole preview object within `max_chars` (the object alone takes 31), cut on a character boundary.
pub fn cap_result(result: JsonText, max_chars: usize) -> JsonText {
    let text = result.as_str();
    if text.len() <= max_chars || text.chars().count() <= max_chars {
        return result;
    }
    let cut = preview_end(text, max_chars.saturating_sub(PREVIEW_OPEN.len() + 3));
    let mut preview = String::with_capacity(PREVIEW_OPEN.len() + cut + 3);
    preview.push_str(PREVIEW_OPEN);
    push_json_string(&mut preview, text.get(..cut).unwrap_or_default());
    preview.push('}');
    JsonText::from_trusted(preview, false)
}

/// The byte offset where the longest prefix of `text` ends whose JSON string form (quotes aside) takes at most
/// `room` characters. Runs of characters that need no escape are measured a run at a time.
fn preview_end(text: &str, mut room: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        let special = next_special(bytes, at);
        let run = text.get(at..special).unwrap_or_default();
        let ascii = run.is_ascii();
        let run_chars = if ascii { run.len() } else { run.chars().count() };
        if run_chars > room {
            let offset = if ascii { room } else { run.char_indices().nth(room).map_or(run.len(), |(at, _)| at) };
            return at + offset;
        }
        room -= run_chars;
        let width = match bytes.get(special) {
            None => return special,
            Some(b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c) => 2,
            Some(_) => 6,
        };
        if width > room {
            return special;
        }
        room -= width;
        at = special + 1;
    }
}

/// What a tool threw, as the bridge read it off the thrown value (`Value::Null` where a field is absent).
#[derive(Debug, Clone, Copy)]
pub struct ThrownError<'a> {
    /// The error's `message` (or `String(thrown)` for a throw that is not an Error).
    pub message: &'a Value,
    /// The error's `name`.
    pub name: &'a Value,
    /// The error's `status`.
    pub status: &'a Value,
    /// The error's `retryAfter`.
    pub retry_after: &'a Value,
}

impl ThrownError<'_> {
    /// The error as it crosses windows: a string message (anything else is written as its JSON text) cut to
    /// `limits.max_error_message_chars`; the name kept when it is a standard one; `status` and `retryAfter` kept
    /// when valid and silently dropped otherwise.
    pub fn to_tool_error(&self, limits: &Limits) -> ToolError {
        let message = match self.message {
            Value::String(text) => cap_message(text, limits.max_error_message_chars),
            other => cap_message(&JsonText::from_value(other).into_string(), limits.max_error_message_chars),
        };
        ToolError {
            kind: ErrorKind::ToolError,
            message,
            name: self.name.as_str().and_then(standard_error_name),
            status: status_from_json(self.status),
            retry_after: RetryAfter::from_json(self.retry_after),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_preview_stays_within_the_cap() {
        let result = JsonText::from_value(&json!({"text": "a\"b".repeat(100)}));
        for cap in [40, 41, 50, 100, 200] {
            let capped = cap_result(result.clone(), cap);
            assert!(capped.as_str().chars().count() <= cap, "{cap}: {capped}");
            assert!(capped.as_str().chars().count() >= cap - 1, "{cap}: {capped}");
            let value = capped.to_value().unwrap();
            assert_eq!(value["truncated"], true);
            assert!(result.as_str().starts_with(value["preview"].as_str().unwrap()));
        }
        assert_eq!(cap_result(result.clone(), 10_000), result);
    }

    #[test]
    fn a_preview_cuts_on_a_character_boundary() {
        let result = JsonText::from_value(&json!("é".repeat(100)));
        let capped = cap_result(result, 40);
        assert_eq!(capped.as_str(), "{\"truncated\":true,\"preview\":\"\\\"ééééééé\"}");
        assert_eq!(capped.as_str().chars().count(), 40);
    }

    #[test]
    fn thrown_errors_keep_valid_fields_only() {
        let limits = Limits::default();
        let error = ThrownError {
            message: &json!("Search is rate limited"),
            name: &json!("Error"),
            status: &json!(429),
            retry_after: &json!("30"),
        }
        .to_tool_error(&limits);
        assert_eq!(error.message, "Search is rate limited");
        assert_eq!((error.name, error.status), (Some("Error"), Some(429)));
        assert_eq!(error.retry_after, Some(RetryAfter::Text("30".into())));
        let odd = ThrownError {
            message: &json!(42),
            name: &json!("EvilError"),
            status: &json!(700),
            retry_after: &json!(-1),
        }
        .to_tool_error(&limits);
        assert_eq!((odd.message.as_str(), odd.name, odd.status, odd.retry_after), ("42", None, None, None));
    }
}
