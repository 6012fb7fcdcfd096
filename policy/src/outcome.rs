//! How a tool call ended, as it crosses windows and is kept in journals: a result, or an error that keeps its
//! `status` and `retryAfter`.

use std::fmt;

use serde_json::Value;

/// The longest error message that crosses windows, in characters; longer ones are cut.
pub const MAX_ERROR_MESSAGE_CHARS: usize = 1000;

/// The error names a caller may rethrow as they are; any other name becomes `Error`.
pub const STANDARD_ERROR_NAMES: &[&str] = &[
    "Error",
    "AggregateError",
    "EvalError",
    "RangeError",
    "ReferenceError",
    "SyntaxError",
    "TypeError",
    "URIError",
    "AbortError",
    "TimeoutError",
    "NotAllowedError",
    "NotFoundError",
    "NotSupportedError",
    "InvalidStateError",
    "InvalidAccessError",
    "SecurityError",
    "NetworkError",
    "DataError",
    "DataCloneError",
    "OperationError",
    "QuotaExceededError",
    "ConstraintError",
    "EncodingError",
    "VersionError",
    "UnknownError",
    "InterruptedError",
];

/// The names of [`STANDARD_ERROR_NAMES`] that only a `DOMException` has (not an ECMAScript error, not the bridge's
/// own `InterruptedError`): a caller's error of such a name is a `DOMException`, as the provider's was.
pub fn is_dom_exception_name(name: &str) -> bool {
    !matches!(
        name,
        "Error"
            | "AggregateError"
            | "EvalError"
            | "RangeError"
            | "ReferenceError"
            | "SyntaxError"
            | "TypeError"
            | "URIError"
            | "InterruptedError"
    ) && STANDARD_ERROR_NAMES.contains(&name)
}

/// What kind of failure a rejection of native WebMCP's `executeTool` is, by the rejection's `name`: native reports
/// every error a tool throws as an `UnknownError` (it keeps neither the tool's message nor its fields), so that one
/// is the tool's error ([`ErrorKind::ToolError`]: it ran); any other (`TypeError`, `InvalidStateError`,
/// `NotAllowedError`...) is native refusing the call before it ran ([`ErrorKind::Refused`]).
pub fn native_rejection_kind(name: Option<&str>) -> ErrorKind {
    match name {
        Some("UnknownError") => ErrorKind::ToolError,
        _ => ErrorKind::Refused,
    }
}

/// What kind of failure an error is, so that code can branch on it. Travels as the `code` field.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The tool ran and threw (or a peer that does not send `code` reported a failure).
    ToolError,
    /// No tool of that name is visible to the caller's origin.
    UnknownTool,
    /// The arguments do not match the tool's `inputSchema`; the tool did not run.
    InvalidArgs,
    /// The caller's origin has too many calls in flight; the tool did not run.
    TooManyCalls,
    /// The call was interrupted (a page went away while it ran): it may or may not have taken effect.
    Interrupted,
    /// The caller stopped the call.
    Cancelled,
    /// The caller's own time limit (`timeoutMs`) passed; the provider was asked to stop the call.
    Timeout,
    /// The request was refused before any tool was looked up (a limit or a malformed request).
    Refused,
}

impl ErrorKind {
    /// The wire name of this kind (the `code` field).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolError => "tool_error",
            Self::UnknownTool => "unknown_tool",
            Self::InvalidArgs => "invalid_args",
            Self::TooManyCalls => "too_many_calls",
            Self::Interrupted => "interrupted",
            Self::Cancelled => "cancelled",
            Self::Timeout => "timeout",
            Self::Refused => "refused",
        }
    }

    /// Reads a wire name; unknown names (from newer peers) read as [`ErrorKind::ToolError`].
    pub fn from_wire(code: &str) -> Self {
        match code {
            "unknown_tool" => Self::UnknownTool,
            "invalid_args" => Self::InvalidArgs,
            "too_many_calls" => Self::TooManyCalls,
            "interrupted" => Self::Interrupted,
            "cancelled" => Self::Cancelled,
            "timeout" => Self::Timeout,
            "refused" => Self::Refused,
            _ => Self::ToolError,
        }
    }

    /// Reads the `code` of a provider's response: as [`ErrorKind::from_wire`], except that a code only the
    /// caller's own side gives ([`ErrorKind::Timeout`]: its own time limit passed) reads as
    /// [`ErrorKind::ToolError`], so that a provider cannot make its failure look like the caller's time limit.
    pub fn from_provider(code: &str) -> Self {
        match Self::from_wire(code) {
            Self::Timeout => Self::ToolError,
            kind => kind,
        }
    }

    /// The error name a caller sees for a failure of this kind when the provider sent no standard name.
    pub fn default_error_name(self) -> &'static str {
        match self {
            Self::Cancelled => "AbortError",
            Self::Timeout => "TimeoutError",
            // Native WebMCP rejects with an `UnknownError` when the provider's frame goes away mid-call, and when
            // the provider no longer has the tool (or no longer shows it to the caller); the kind (`interrupted`,
            // `unknown_tool`) still tells a caller which.
            Self::Interrupted | Self::UnknownTool => "UnknownError",
            Self::InvalidArgs => "TypeError",
            _ => "Error",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `retryAfter` value as the tool gave it: a number, or a string holding one (kept as that string).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq)]
pub enum RetryAfter {
    /// A finite number `>= 0`.
    Seconds(f64),
    /// A string holding a number `>= 0`, such as `"30"` or `"1.5"`, kept exactly.
    Text(String),
}

impl RetryAfter {
    /// Keeps `value` when it is a finite number `>= 0` or a string of digits with an optional fraction
    /// (at most 32 characters); anything else is `None`, never an error.
    pub fn from_json(value: &Value) -> Option<Self> {
        match value {
            Value::Number(n) => n.as_f64().filter(|s| s.is_finite() && *s >= 0.0).map(Self::Seconds),
            Value::String(s) if is_plain_decimal(s) => Some(Self::Text(s.clone())),
            _ => None,
        }
    }

    /// The value as JSON: a number stays a number, a string stays that string.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Seconds(s) => serde_json::Number::from_f64(*s).map_or(Value::Null, Value::Number),
            Self::Text(t) => Value::String(t.clone()),
        }
    }
}

fn is_plain_decimal(text: &str) -> bool {
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    text.len() <= 32
        && !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// Keeps an HTTP-like `status` only when it is an integer from 100 to 599.
pub fn status_from_json(value: &Value) -> Option<u16> {
    value.as_u64().filter(|s| (100..=599).contains(s)).map(|s| s as u16)
}

/// Keeps an error `name` only when it is one of [`STANDARD_ERROR_NAMES`].
pub fn standard_error_name(name: &str) -> Option<&'static str> {
    STANDARD_ERROR_NAMES.iter().copied().find(|n| *n == name)
}

/// Cuts an error message to [`MAX_ERROR_MESSAGE_CHARS`] characters, marking the cut with `…`.
pub fn cap_error_message(message: &str) -> String {
    match message.char_indices().nth(MAX_ERROR_MESSAGE_CHARS) {
        None => message.to_owned(),
        Some((cut, _)) => {
            let mut capped = message[..cut].to_owned();
            capped.pop();
            capped.push('…');
            capped
        }
    }
}

/// A failed call, as the caller will rethrow it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// The message, at most [`MAX_ERROR_MESSAGE_CHARS`] characters, never a stack.
    pub message: String,
    /// A standard error name (`TypeError`, `AbortError`, ...) when the provider gave one.
    pub name: Option<&'static str>,
    /// An HTTP-like status from 100 to 599, when the tool gave a valid one.
    pub status: Option<u16>,
    /// When to retry, when the tool gave a valid value.
    pub retry_after: Option<RetryAfter>,
}

impl ToolError {
    /// An error of `kind` with `message` (capped), no name, status or retryAfter.
    pub fn new(kind: ErrorKind, message: impl AsRef<str>) -> Self {
        Self { kind, message: cap_error_message(message.as_ref()), name: None, status: None, retry_after: None }
    }

    /// The name the caller's Error gets: the provider's standard name, else the kind's default.
    pub fn error_name(&self) -> &'static str {
        self.name.unwrap_or_else(|| self.kind.default_error_name())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(status) = self.status {
            write!(f, " (status {status})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_native_rejection_is_the_tools_error_only_when_native_says_unknown_error() {
        assert_eq!(native_rejection_kind(Some("UnknownError")), ErrorKind::ToolError);
        for refused in [Some("TypeError"), Some("InvalidStateError"), Some("NotAllowedError"), Some("Error"), None] {
            assert_eq!(native_rejection_kind(refused), ErrorKind::Refused, "{refused:?}");
        }
    }

    #[test]
    fn retry_after_keeps_numbers_and_numeric_strings() {
        assert_eq!(RetryAfter::from_json(&json!(30)), Some(RetryAfter::Seconds(30.0)));
        assert_eq!(RetryAfter::from_json(&json!(0)), Some(RetryAfter::Seconds(0.0)));
        assert_eq!(RetryAfter::from_json(&json!(1.5)), Some(RetryAfter::Seconds(1.5)));
        assert_eq!(RetryAfter::from_json(&json!("30")), Some(RetryAfter::Text("30".into())));
        assert_eq!(RetryAfter::from_json(&json!("1.5")), Some(RetryAfter::Text("1.5".into())));
        for bad in [
            json!(-1),
            json!("-1"),
            json!("1."),
            json!(".5"),
            json!("1e3"),
            json!(" 3"),
            json!(""),
            json!(null),
            json!(true),
            json!([1]),
            json!("Wed, 21 Oct 2015 07:28:00 GMT"),
        ] {
            assert_eq!(RetryAfter::from_json(&bad), None, "{bad}");
        }
        assert_eq!(RetryAfter::Text("30".into()).to_json(), json!("30"));
        assert_eq!(RetryAfter::Seconds(30.0).to_json(), json!(30.0));
    }

    #[test]
    fn status_is_an_integer_from_100_to_599() {
        assert_eq!(status_from_json(&json!(429)), Some(429));
        assert_eq!(status_from_json(&json!(100)), Some(100));
        assert_eq!(status_from_json(&json!(599)), Some(599));
        for bad in [json!(99), json!(600), json!(429.5), json!("429"), json!(-429), json!(null)] {
            assert_eq!(status_from_json(&bad), None, "{bad}");
        }
    }

    #[test]
    fn messages_are_capped_on_a_character_boundary() {
        let long = "é".repeat(MAX_ERROR_MESSAGE_CHARS + 10);
        let capped = cap_error_message(&long);
        assert_eq!(capped.chars().count(), MAX_ERROR_MESSAGE_CHARS);
        assert!(capped.ends_with('…'));
        assert_eq!(cap_error_message("short"), "short");
    }

    #[test]
    fn only_standard_names_are_kept() {
        assert_eq!(standard_error_name("AbortError"), Some("AbortError"));
        assert_eq!(standard_error_name("EvilError"), None);
        assert_eq!(ToolError::new(ErrorKind::Interrupted, "x").error_name(), "UnknownError");
    }
}
