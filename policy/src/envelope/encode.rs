//! Encoding: each message as compact JSON text, written straight into a `String`. [`JsonText`] pieces (arguments,
//! results, schemas) are inserted as they are, never parsed again; strings are escaped by serde_json.

use serde_json::Value;

use super::json_text::JsonText;
use super::message::{ExecuteResponse, Message, MessageType, ToolDescriptor};
use crate::ids::RequestId;
use crate::limits::Limits;
use crate::outcome::{RetryAfter, ToolError};

/// Writes one JSON object, member by member. Keys are static ASCII names and need no escaping. Messages and the
/// journals' stored records are written with it.
pub(crate) struct Object<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Object<'o> {
    pub(crate) fn open(out: &'o mut String) -> Self {
        out.push('{');
        Self { out, first: true }
    }

    pub(crate) fn key(&mut self, key: &str) -> &mut String {
        if !std::mem::replace(&mut self.first, false) {
            self.out.push(',');
        }
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    pub(crate) fn string(&mut self, key: &str, value: &str) -> &mut Self {
        let out = self.key(key);
        push_json_string(out, value);
        self
    }

    pub(crate) fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        self.key(key).push_str(json);
        self
    }

    fn message_type(&mut self, message_type: MessageType) -> &mut Self {
        self.string("type", message_type.as_str())
    }

    fn request_id(&mut self, id: &RequestId) -> &mut Self {
        self.string("requestId", id.as_str())
    }

    /// A member whose key is any text (escaped), with a string value.
    pub(crate) fn string_key(&mut self, key: &str, value: &str) -> &mut Self {
        if !std::mem::replace(&mut self.first, false) {
            self.out.push(',');
        }
        push_json_string(self.out, key);
        self.out.push(':');
        push_json_string(self.out, value);
        self
    }

    /// A whole number, as serde_json writes a `u64`.
    pub(crate) fn number(&mut self, key: &str, value: u64) -> &mut Self {
        use std::fmt::Write as _;
        let _ = write!(self.key(key), "{value}");
        self
    }

    /// An array of strings, each escaped.
    pub(crate) fn strings<'s>(&mut self, key: &str, items: impl IntoIterator<Item = &'s str>) -> &mut Self {
        let out = self.key(key);
        out.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(out, item);
        }
        out.push(']');
        self
    }

    /// `true` or `false`.
    pub(crate) fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.raw(key, if value { "true" } else { "false" })
    }

    pub(crate) fn close(&mut self) {
        self.out.push('}');
    }
}

/// Appends `text` as a JSON string, quotes included, escaped as serde_json and `JSON.stringify` escape it: `"`
/// and `\` after a backslash, the control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, everything
/// else as it is.
///
/// The crate writes its JSON text with this and [`push_json_value`] rather than with serde_json's serializer: one
/// writer instead of a copy of serde's per output type (`Vec<u8>`, a capped writer) and per serialized type
/// (about 7.6 KB of the wasm, 2.3 KB gzipped, measured 2026-12-06).
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(text.len() + 2);
    out.push('"');
    let mut start = 0;
    for (at, byte) in text.bytes().enumerate() {
        let short = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'\n' => 'n',
            b'\r' => 'r',
            b'\t' => 't',
            0x08 => 'b',
            0x0c => 'f',
            0..=0x1f => 'u',
            _ => continue,
        };
        // Every escaped byte is ASCII, so `at` is a character boundary.
        out.push_str(&text[start..at]);
        out.push('\\');
        out.push(short);
        if short == 'u' {
            out.push_str("00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        start = at + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Appends `value` as compact JSON text, as serde_json writes it (an object's members in the map's order, numbers
/// as `serde_json::Number` writes them), until `out` holds more than `cap` bytes; answers whether all of it fit.
pub(crate) fn push_json_value(out: &mut String, value: &Value, cap: usize) -> bool {
    use std::fmt::Write as _;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => {
            let _ = write!(out, "{number}");
        }
        Value::String(text) => push_json_string(out, clip(text, cap.saturating_sub(out.len()).saturating_add(1))),
        Value::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                if !push_json_value(out, item, cap) {
                    return false;
                }
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (at, (key, item)) in members.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                push_json_string(out, key);
                out.push(':');
                if !push_json_value(out, item, cap) {
                    return false;
                }
            }
            out.push('}');
        }
    }
    out.len() <= cap
}

/// The longest start of `text` of at most `max` bytes that ends at a character boundary.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `value` as compact JSON text, as serde_json writes it.
pub(crate) fn json_text_of(value: &Value) -> String {
    let mut out = String::new();
    push_json_value(&mut out, value, usize::MAX);
    out
}

impl Message {
    /// The message as compact JSON text, ready to post (on a port) or to `JSON.parse` (for a window).
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(self.encoded_len_hint());
        self.encode_into(&mut out);
        out
    }

    /// Appends the message's JSON text to `out`.
    pub fn encode_into(&self, out: &mut String) {
        let mut object = Object::open(out);
        object.message_type(self.message_type());
        match self {
            Self::GetToolsRequest { request_id, bridge } => {
                object.request_id(request_id);
                if *bridge {
                    object.raw("bridge", "1");
                }
            }
            Self::GetToolsResponse(response) => {
                object.request_id(&response.request_id);
                let out = object.key("tools");
                out.push('[');
                for (i, tool) in response.tools.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode_tool(out, tool);
                }
                out.push(']');
                if response.bridge {
                    object.raw("bridge", "1");
                }
            }
            Self::ExecuteRequest(request) => {
                object.request_id(&request.request_id).string("name", request.name.as_str());
                object.raw("args", request.args.as_str());
                if request.resend {
                    object.raw("resend", "1");
                }
            }
            Self::ExecuteResponse(response) => encode_outcome(&mut object, response),
            Self::CancelTool { request_id } | Self::CallStatusRequest { request_id } => {
                object.request_id(request_id);
            }
            Self::Connect { request_id, utf8_batches } | Self::Connected { request_id, utf8_batches } => {
                object.request_id(request_id);
                if *utf8_batches {
                    object.raw("utf8Batches", "1");
                }
            }
            Self::CallStatusResponse(status) => {
                object.request_id(&status.request_id).string("state", status.state.as_str());
                object.raw("durable", if status.durable { "true" } else { "false" });
            }
            Self::CallAck { request_ids } => {
                object.strings("requestIds", request_ids.iter().map(RequestId::as_str));
            }
            Self::ToolsChanged | Self::GoingAway => {}
        }
        object.close();
    }

    /// Roughly how long the JSON text will be, so that a large result is copied into a buffer once.
    fn encoded_len_hint(&self) -> usize {
        const FRAME: usize = 160;
        FRAME
            + match self {
                Self::GetToolsResponse(response) => response.tools.iter().map(tool_len_hint).sum(),
                Self::ExecuteRequest(request) => request.args.as_str().len(),
                Self::ExecuteResponse(ExecuteResponse { outcome: Ok(result), .. }) => result.as_str().len(),
                Self::ExecuteResponse(ExecuteResponse { outcome: Err(error), .. }) => error.message.len(),
                Self::CallAck { request_ids } => request_ids.iter().map(|id| id.as_str().len() + 3).sum(),
                _ => 0,
            }
    }
}

fn tool_len_hint(tool: &ToolDescriptor) -> usize {
    let json = |text: &Option<JsonText>| text.as_ref().map_or(0, |t| t.as_str().len());
    100 + tool.name.as_str().len()
        + tool.description.len()
        + json(&tool.input_schema)
        + json(&tool.annotations)
        + tool.origin.as_ref().map_or(0, String::len)
}

fn encode_tool(out: &mut String, tool: &ToolDescriptor) {
    let mut object = Object::open(out);
    object.string("name", tool.name.as_str()).string("description", &tool.description);
    if let Some(schema) = &tool.input_schema {
        object.raw("inputSchema", schema.as_str());
    }
    if let Some(origin) = &tool.origin {
        object.string("origin", origin);
    }
    if let Some(annotations) = &tool.annotations {
        object.raw("annotations", annotations.as_str());
    }
    object.close();
}

fn encode_outcome(object: &mut Object<'_>, response: &ExecuteResponse) {
    object.request_id(&response.request_id);
    match &response.outcome {
        Ok(result) => {
            object.raw("success", "true").raw("result", result.as_str());
        }
        Err(error) => encode_error(object, error),
    }
}

fn encode_error(object: &mut Object<'_>, error: &ToolError) {
    object.raw("success", "false").string("error", &error.message);
    if let Some(status) = error.status {
        object.key("status").push_str(&status.to_string());
    }
    match &error.retry_after {
        Some(RetryAfter::Seconds(seconds)) if seconds.is_finite() => {
            push_number(object.key("retryAfter"), *seconds);
        }
        Some(RetryAfter::Text(text)) => {
            object.string("retryAfter", text);
        }
        _ => {}
    }
    if let Some(name) = error.name {
        object.string("errorName", name);
    }
    object.string("code", error.kind.as_str());
}

/// Writes a finite number as JavaScript would: whole numbers without a fraction, others in their shortest form
/// that reads back to the same `f64`.
fn push_number(out: &mut String, number: f64) {
    use std::fmt::Write as _;
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
    if number.fract() == 0.0 && number.abs() < EXACT_INTEGERS {
        let _ = write!(out, "{}", number as i64);
    } else if let Some(number) = serde_json::Number::from_f64(number) {
        // serde_json's shortest round-trip form (it is linked anyway), not `{:?}`: core's float formatting would be
        // a second float printer in the download.
        let _ = write!(out, "{number}");
    } else {
        out.push_str("null");
    }
}

/// The messages as one port batch: a JSON array of their texts.
pub fn encode_batch(messages: &[Message]) -> String {
    let mut out = String::with_capacity(messages.iter().map(Message::encoded_len_hint).sum::<usize>() + 2);
    out.push('[');
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        message.encode_into(&mut out);
    }
    out.push(']');
    out
}

/// The messages as as few port batches as the limits allow (`Limits::max_batch_len` messages and
/// `Limits::max_batch_bytes` bytes each, a single larger message getting a batch of its own), in order.
pub fn encode_batches(messages: &[Message], limits: &Limits) -> Vec<String> {
    let mut encoded: Vec<String> = messages.iter().map(Message::encode).collect();
    let mut batches = Vec::new();
    while !encoded.is_empty() {
        batches.push(take_batch(&mut encoded, limits.max_batch_len, limits.max_batch_bytes));
    }
    batches
}

/// One port batch from the front of `encoded` (envelopes already encoded, in order): as many as fit in `max_len`
/// envelopes and `max_bytes` bytes (brackets and commas counted), at least one (a single larger envelope gets a
/// batch of its own). They leave `encoded`.
pub fn take_batch(encoded: &mut Vec<String>, max_len: usize, max_bytes: usize) -> String {
    // `[`, then each envelope with the comma before it; the `]` is counted when the next one is weighed.
    let mut size = 1;
    let mut take = 0;
    for envelope in encoded.iter() {
        let comma = usize::from(take > 0);
        if take > 0 && (take >= max_len.max(1) || size + comma + envelope.len() + 1 > max_bytes) {
            break;
        }
        size += comma + envelope.len();
        take += 1;
    }
    let mut batch = String::with_capacity(size + 1);
    batch.push('[');
    for (i, envelope) in encoded.drain(..take).enumerate() {
        if i > 0 {
            batch.push(',');
        }
        batch.push_str(&envelope);
    }
    batch.push(']');
    batch
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ids::RequestId;

    /// The writer of this file against serde_json's serializer, which wrote the crate's JSON text before.
    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-7),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(-0.0),
            json!(1e21),
            json!(1e-7),
            json!(0.1 + 0.2),
            json!(f64::MAX),
            json!(5e-324),
            json!(""),
            json!(every_control),
            json!("quote \" backslash \\ slash / del \u{7f} é \u{2028} 😀"),
            json!([]),
            json!({}),
            json!([1, [2, [3, {"a": null}]], "x"]),
            json!({"b": 1, "a": {"__proto__": [true]}, "\n": "\u{1}"}),
        ];
        for value in values {
            let mut out = String::new();
            assert!(push_json_value(&mut out, &value, usize::MAX));
            assert_eq!(out, serde_json::to_string(&value).unwrap(), "{value:?}");
        }
    }

    #[test]
    fn a_capped_value_stops_soon_after_the_cap() {
        let huge = json!([["x".repeat(1_000_000)], "y".repeat(1_000_000)]);
        let mut out = String::new();
        assert!(!push_json_value(&mut out, &huge, 100));
        assert!(out.len() <= 104, "a few bytes past the cap, not a megabyte: {} bytes", out.len());
        assert!(out.starts_with("[[\"xxx"), "{out}");
        let mut out = String::new();
        assert!(push_json_value(&mut out, &json!(["é"]), 6), "exactly the cap fits");
        assert_eq!(out, "[\"é\"]");
        let mut out = String::new();
        assert!(!push_json_value(&mut out, &json!(["éé"]), 6));
        assert!(out.is_char_boundary(out.len()));
    }

    #[test]
    fn strings_are_escaped_like_json_stringify() {
        let error = ToolError::new(crate::outcome::ErrorKind::ToolError, "a\"b\\c\u{1}");
        let message = Message::from(ExecuteResponse::failure(RequestId::new("c1").unwrap(), error));
        assert!(message.encode().contains(r#""error":"a\"b\\c\u0001""#), "{}", message.encode());
        let mut out = String::new();
        push_json_string(&mut out, "a\"b\\c\nd\u{1}e\u{7f}é\u{2028}");
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001e\u{7f}é\u{2028}\"");
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        for (number, text) in
            [(30.0, "30"), (0.0, "0"), (1.5, "1.5"), (1e-7, "1e-7"), (0.1 + 0.2, "0.30000000000000004")]
        {
            let mut out = String::new();
            push_number(&mut out, number);
            assert_eq!(out, text);
        }
    }
}
