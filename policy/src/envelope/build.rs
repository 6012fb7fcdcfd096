//! Building the responses a provider sends: a result within the cap, or an error that keeps its `status` and
//! `retryAfter` when they are valid.

use serde_json::Value;

use super::fields::cap_message;
use super::json_text::JsonText;
use super::message::ExecuteResponse;
use crate::ids::RequestId;
use crate::journal::TRUNCATED_WRAPPER_CHARS;
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

    /// The response carrying an outcome from a journal, whose result is already a [`JsonText`] (checked when it
    /// was recorded, or when it was read back from storage): it is not scanned again.
    pub fn from_outcome(request_id: RequestId, outcome: crate::journal::ToolOutcome, limits: &Limits) -> Self {
        match outcome {
            crate::journal::ToolOutcome::Completed { result } => Self::success(request_id, result, limits),
            crate::journal::ToolOutcome::Failed(error) => Self::failure(request_id, error),
        }
    }
}

/// `result` itself when its JSON text has at most `max_chars` characters; otherwise
/// `{"truncated":true,"preview":"<the first characters of its JSON text>"}`, with as many characters as keep the
/// whole preview object within `max_chars` (the object alone takes 31), cut on a character boundary.
pub fn cap_result(result: JsonText, max_chars: usize) -> JsonText {
    match truncated(result.as_str(), max_chars) {
        Some(preview) => JsonText::from_trusted(preview, false),
        None => result,
    }
}

/// The one rule for capping a result's text (see [`cap_result`]): `None` when `text` has at most `max_chars`
/// characters, else its truncated preview. The preview's string is escaped by serde_json.
pub(crate) fn truncated(text: &str, max_chars: usize) -> Option<String> {
    if text.len() <= max_chars || text.chars().count() <= max_chars {
        return None;
    }
    let mut room = max_chars.saturating_sub(TRUNCATED_WRAPPER_CHARS);
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let width = escaped_width(c);
        if width > room {
            break;
        }
        room -= width;
        end = at + c.len_utf8();
    }
    let mut out = String::from("{\"truncated\":true,\"preview\":");
    super::encode::push_json_string(&mut out, text.get(..end).unwrap_or_default());
    out.push('}');
    Some(out)
}

/// How many characters `c` takes inside a JSON string as serde_json writes it.
fn escaped_width(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if u32::from(c) < 0x20 => 6,
        _ => 1,
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

    /// The rule on texts that no `JsonText` holds (raw control characters): characters are counted as they
    /// are, and a preview escapes them.
    #[test]
    fn the_rule_counts_characters_and_escapes_the_preview() {
        assert_eq!(truncated("\"a\nb\"", 5), None);
        let text = format!("\"\u{1}\u{1}\u{1}\"{}", "x".repeat(60));
        assert_eq!(truncated(&text, 44).as_deref(), Some(r#"{"truncated":true,"preview":"\"\u0001"}"#));
    }

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
