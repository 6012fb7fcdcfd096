//! Decoding: JSON text (or a `serde_json::Value`) to a [`Message`](super::Message), or "not ours", or a refusal
//! that names the field.
//!
//! The crate's JSON reader (`json.rs`) reads the envelope's members, checking the syntax of every value and keeping
//! each known field as a raw slice of the text, and the depth of every member is measured (`locate.rs`, `shape.rs`); then the fields are read
//! according to the message's `type` (`fields.rs`).

use serde_json::Value;

use super::error::{EnvelopeError, Problem, syntax};
use super::fields::interpret;
use super::json::{JsonKind, for_each_element, raw};
use super::locate::{WHITESPACE, read_message};
use super::message::{Decoded, MessageType};
use crate::limits::Limits;

/// Decodes one message from its JSON text (`JSON.stringify(event.data)`).
///
/// Checks, in this order: the size (`Limits::max_message_bytes`), the JSON syntax, whether the message is ours,
/// the nesting depth, then every field of its type. A text that is not JSON is an error, not [`Decoded::NotOurs`].
pub fn decode(text: &str, limits: &Limits) -> Result<Decoded, EnvelopeError> {
    if text.len() > limits.max_message_bytes {
        return Err(EnvelopeError::new(Problem::TooLarge { bytes: text.len(), limit: limits.max_message_bytes }));
    }
    interpret(read_message(text, limits).map_err(syntax)?, limits)
}

/// Decodes one message from a `serde_json::Value`, with the same result as [`decode`] of its compact JSON text,
/// with one exception: a value that is not ours is [`Decoded::NotOurs`] whatever its size (it is never written
/// out as text).
pub fn decode_value(value: &Value, limits: &Limits) -> Result<Decoded, EnvelopeError> {
    let ours = value.get("type").and_then(Value::as_str).and_then(MessageType::from_wire);
    if ours.is_none() {
        return Ok(Decoded::NotOurs);
    }
    let text = super::encode::json_text_of(value);
    decode(&text, limits)
}

/// Decodes a port batch: a JSON array of messages, each decoded on its own, so that one bad message does not
/// drop the others. The batch as a whole is refused when it is not a JSON array, is not valid JSON, is larger
/// than `Limits::max_batch_bytes` or holds more than `Limits::max_batch_len` messages.
pub fn decode_batch(text: &str, limits: &Limits) -> Result<Vec<Result<Decoded, EnvelopeError>>, EnvelopeError> {
    if text.len() > limits.max_batch_bytes {
        return Err(EnvelopeError::new(Problem::BatchTooLarge { bytes: text.len(), limit: limits.max_batch_bytes }));
    }
    if JsonKind::of(text.trim_start_matches(WHITESPACE)) != JsonKind::Array {
        let found = JsonKind::of(raw(text).map_err(syntax)?.get());
        return Err(EnvelopeError::new(Problem::NotABatch { found }));
    }
    let mut decoded = Vec::new();
    let len = for_each_element(text, limits.max_batch_len, |message| {
        let message = message.get();
        decoded.push(if message.len() > limits.max_message_bytes {
            Err(EnvelopeError::new(Problem::TooLarge { bytes: message.len(), limit: limits.max_message_bytes }))
        } else {
            // serde_json has checked the element: reading it again cannot fail.
            read_message(message, limits).map_err(syntax).and_then(|read| interpret(read, limits))
        });
    })
    .map_err(syntax)?;
    if len > limits.max_batch_len {
        return Err(EnvelopeError::new(Problem::BatchTooLong { len, limit: limits.max_batch_len }));
    }
    Ok(decoded)
}
