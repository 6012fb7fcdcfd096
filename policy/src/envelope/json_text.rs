//! [`JsonText`]: one JSON value kept as its text, checked once and never re-parsed on the way through.

use std::fmt;

use serde_json::Value;
use thiserror::Error;

use super::json::{JsonKind, SyntaxError, raw};
use super::shape::{MAX_NESTING, shape};
use crate::limits::Limits;

/// Why a text was refused as a [`JsonText`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The text is longer than the limit.
    #[error("text is {bytes} bytes: the limit is {limit}")]
    TooLarge {
        /// The size of the text.
        bytes: usize,
        /// The largest size allowed.
        limit: usize,
    },
    /// Arrays and objects nest deeper than the limit (which is never more than 128, serde_json's own).
    #[error("nesting deeper than {limit} levels")]
    TooDeep {
        /// The deepest nesting allowed.
        limit: usize,
    },
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(#[from] SyntaxError),
}

/// A `String` known to hold exactly one valid JSON value (surrounding whitespace removed).
///
/// Arguments, results, input schemas and annotations travel as `JsonText`: the crate's JSON reader checks them once, and
/// encoding inserts them as they are, so a 64 KiB result is copied, never parsed into a tree and printed again.
/// Numbers keep their exact digits.
///
/// ```
/// use interpane_policy::{JsonText, Limits};
///
/// let args = JsonText::parse(r#" {"sku": "margherita", "qty": 2} "#, &Limits::default())?;
/// assert_eq!(args.as_str(), r#"{"sku": "margherita", "qty": 2}"#);
/// assert!(args.is_object());
/// assert!(!args.has_proto_key());
/// assert_eq!(args.to_value()?["qty"], 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonText {
    text: String,
    has_proto_key: bool,
}

impl JsonText {
    /// Checks that `text` holds one JSON value within `limits.max_message_bytes` and `limits.max_depth`.
    pub fn parse(text: &str, limits: &Limits) -> Result<Self, JsonError> {
        Self::parse_within(text, limits.max_message_bytes, limits.max_depth)
    }

    /// Checks `text` against a size and a depth limit.
    pub(crate) fn parse_within(text: &str, max_bytes: usize, max_depth: usize) -> Result<Self, JsonError> {
        let (value, has_proto_key) = check(text, max_bytes, max_depth)?;
        Ok(Self { text: value.to_owned(), has_proto_key })
    }

    /// Like [`JsonText::parse_within`], keeping `text` itself (no copy) when it has no surrounding whitespace.
    pub(crate) fn parse_owned_within(text: String, max_bytes: usize, max_depth: usize) -> Result<Self, JsonError> {
        let (value, has_proto_key) = check(&text, max_bytes, max_depth)?;
        let text = if value.len() == text.len() { text } else { value.to_owned() };
        Ok(Self { text, has_proto_key })
    }

    /// Wraps `text`, one valid JSON value without surrounding whitespace, whose `__proto__` key is known.
    pub(crate) fn from_checked(text: &str, has_proto_key: bool) -> Self {
        Self { text: text.to_owned(), has_proto_key }
    }

    /// Wraps text the crate has just written as valid JSON.
    pub(crate) fn from_trusted(text: String, has_proto_key: bool) -> Self {
        Self { text, has_proto_key }
    }

    /// The compact JSON text of `value`, as `serde_json::to_string` writes it.
    pub fn from_value(value: &Value) -> Self {
        let text = super::encode::json_text_of(value);
        // serde_json writes `_` as it is, so a `__proto__` key shows in the text.
        let has_proto_key = text.contains("\"__proto__\"") && has_proto_key(value);
        Self { text, has_proto_key }
    }

    /// `{}`, the arguments of a call that gave none.
    pub fn empty_object() -> Self {
        Self { text: "{}".to_owned(), has_proto_key: false }
    }

    /// `null`.
    pub fn null() -> Self {
        Self { text: "null".to_owned(), has_proto_key: false }
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The JSON text, owned.
    pub fn into_string(self) -> String {
        self.text
    }

    /// Parses the text into a tree, its numbers read as `JSON.parse` reads them ([`super::parse_json`]). It can
    /// fail only where `serde_json` is stricter than JSON: a number beyond the range of `f64`, a lone UTF-16
    /// surrogate escape, or nesting of 128 levels or more.
    pub fn to_value(&self) -> Result<Value, super::JsonTreeError> {
        super::parse_json(&self.text)
    }

    /// What kind of value the text holds.
    pub fn kind(&self) -> JsonKind {
        JsonKind::of(&self.text)
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        self.kind() == JsonKind::Object
    }

    /// Whether some object in the value, at any depth, has the key `__proto__` (after unescaping).
    pub fn has_proto_key(&self) -> bool {
        self.has_proto_key
    }
}

/// Checks that `text` holds one JSON value within `max_bytes` and `max_depth`: the value's text without the
/// surrounding whitespace, and whether it has a `__proto__` key.
fn check(text: &str, max_bytes: usize, max_depth: usize) -> Result<(&str, bool), JsonError> {
    if text.len() > max_bytes {
        return Err(JsonError::TooLarge { bytes: text.len(), limit: max_bytes });
    }
    let value = raw(text)?.get();
    let found = shape(value, max_depth);
    if found.too_deep {
        return Err(JsonError::TooDeep { limit: max_depth.min(MAX_NESTING) });
    }
    Ok((value, found.proto_path.is_some()))
}

/// Whether some object in `value` has the key `__proto__` (without recursion: a `Value` may be deep).
fn has_proto_key(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) if map.contains_key("__proto__") => return true,
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    false
}

impl fmt::Display for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_keeps_the_exact_text() {
        let limits = Limits::default();
        let text = JsonText::parse(" [0.9333333333333335, 1E2, \"\\u00e9\"]\n", &limits).unwrap();
        assert_eq!(text.as_str(), "[0.9333333333333335, 1E2, \"\\u00e9\"]");
        assert_eq!(text.kind(), JsonKind::Array);
        for (text, kind) in [
            ("null", JsonKind::Null),
            (" true ", JsonKind::Bool),
            ("-0.5e+3", JsonKind::Number),
            ("\"a\\u00e9\\n\"", JsonKind::String),
            ("[1,[2,{}],[]]", JsonKind::Array),
            ("{\"a\":{\"b\":[null]}}", JsonKind::Object),
        ] {
            let parsed = JsonText::parse(text, &limits).unwrap();
            assert_eq!((parsed.kind(), parsed.as_str()), (kind, text.trim()), "{text}");
        }
    }

    #[test]
    fn parse_owned_keeps_the_same_value_as_parse() {
        for text in ["[1,{\"__proto__\":2}]", " \"a\" ", "{}"] {
            let owned = JsonText::parse_owned_within(text.to_owned(), 100, 8).unwrap();
            assert_eq!(owned, JsonText::parse_within(text, 100, 8).unwrap(), "{text}");
        }
        assert_eq!(JsonText::parse_owned_within("[[1]]".to_owned(), 100, 1), Err(JsonError::TooDeep { limit: 1 }));
    }

    #[test]
    fn parse_enforces_the_limits() {
        let limits = Limits { max_message_bytes: 10, max_depth: 2, ..Limits::default() };
        assert_eq!(JsonText::parse("[[[]]]", &limits), Err(JsonError::TooDeep { limit: 2 }));
        assert_eq!(JsonText::parse("\"0123456789\"", &limits), Err(JsonError::TooLarge { bytes: 12, limit: 10 }));
        assert_eq!(
            JsonText::parse("[1] x", &limits).unwrap_err().to_string(),
            "not valid JSON: expected the end of the text at byte 4, found 'x'"
        );
        let deep = Limits { max_depth: usize::MAX, ..Limits::default() };
        let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert!(JsonText::parse(&nested(128), &deep).is_ok());
        assert_eq!(JsonText::parse(&nested(129), &deep), Err(JsonError::TooDeep { limit: 128 }));
    }

    #[test]
    fn from_value_notes_proto_keys() {
        let text = JsonText::from_value(&json!({"a": [{"__proto__": {"x": 1}}]}));
        assert_eq!(text.as_str(), r#"{"a":[{"__proto__":{"x":1}}]}"#);
        assert!(text.has_proto_key());
        assert!(!JsonText::from_value(&json!({"proto": 1})).has_proto_key());
    }
}
