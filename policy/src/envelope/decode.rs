//! Decoding: JSON text (or a `serde_json::Value`) to a [`Message`], or "not ours", or a refusal that names the
//! field.
//!
//! serde_json reads the envelope's members, checking the syntax of every value and keeping each known field as a
//! `RawValue`; the depth of every member is measured (`shape.rs`); then the fields are read according to the
//! message's `type` (see `fields.rs`).

use serde_json::Value;
use serde_json::value::RawValue;

use super::error::{EnvelopeError, Problem};
use super::fields::interpret;
use super::json::{JsonKind, SyntaxError, for_each_element, for_each_member, raw, string};
use super::message::{Message, MessageType};
use super::shape::too_deep;
use crate::limits::Limits;

/// What a text or value turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// Not a message of ours (not an object, no string `type`, or a `type` that is not ours): ignore it
    /// without a reply, because other libraries share the `message` event.
    NotOurs,
    /// A well-formed message of ours.
    Message(Message),
}

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
    let text = serde_json::to_string(value).unwrap_or_default();
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

/// The whitespace JSON allows between tokens.
const WHITESPACE: [char; 4] = [' ', '\t', '\n', '\r'];

pub(super) fn syntax(error: SyntaxError) -> EnvelopeError {
    EnvelopeError::new(Problem::Syntax(error))
}

/// The top-level fields of our messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Type,
    RequestId,
    Name,
    Args,
    InputObject,
    Tools,
    Success,
    Result,
    Error,
    Status,
    RetryAfter,
    ErrorName,
    Code,
    State,
    Durable,
    RequestIds,
    Resend,
    Utf8Batches,
    Bridge,
}

/// How many fields there are (`Bridge` stays the last variant).
pub(super) const FIELD_COUNT: usize = Field::Bridge as usize + 1;

impl Field {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "type" => Self::Type,
            "requestId" => Self::RequestId,
            "name" => Self::Name,
            "args" => Self::Args,
            "inputObject" => Self::InputObject,
            "tools" => Self::Tools,
            "success" => Self::Success,
            "result" => Self::Result,
            "error" => Self::Error,
            "status" => Self::Status,
            "retryAfter" => Self::RetryAfter,
            "errorName" => Self::ErrorName,
            "code" => Self::Code,
            "state" => Self::State,
            "durable" => Self::Durable,
            "requestIds" => Self::RequestIds,
            "resend" => Self::Resend,
            "utf8Batches" => Self::Utf8Batches,
            "bridge" => Self::Bridge,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Type => "type",
            Self::RequestId => "requestId",
            Self::Name => "name",
            Self::Args => "args",
            Self::InputObject => "inputObject",
            Self::Tools => "tools",
            Self::Success => "success",
            Self::Result => "result",
            Self::Error => "error",
            Self::Status => "status",
            Self::RetryAfter => "retryAfter",
            Self::ErrorName => "errorName",
            Self::Code => "code",
            Self::State => "state",
            Self::Durable => "durable",
            Self::RequestIds => "requestIds",
            Self::Resend => "resend",
            Self::Utf8Batches => "utf8Batches",
            Self::Bridge => "bridge",
        }
    }
}

/// What one pass over a message found.
#[derive(Debug, Default)]
pub(super) struct Envelope<'t> {
    /// Our `type`, when some `type` member names one of ours.
    pub(super) message_type: Option<MessageType>,
    /// Each known field's value (the first one, when repeated).
    pub(super) slots: [Option<&'t RawValue>; FIELD_COUNT],
    /// The first known field that appears twice.
    pub(super) repeated: Option<Field>,
    /// Whether some value nests deeper than allowed.
    pub(super) too_deep: bool,
}

/// The result of reading one value as a message.
pub(super) enum Read<'t> {
    /// A value that is not an object: never ours.
    NotAnObject,
    /// An object, with its fields located.
    Object(Box<Envelope<'t>>),
}

/// Reads `text`, one JSON value, as a message envelope, checking its syntax and depth.
fn read_message<'t>(text: &'t str, limits: &Limits) -> Result<Read<'t>, SyntaxError> {
    if JsonKind::of(text.trim_start_matches(WHITESPACE)) != JsonKind::Object {
        raw(text)?;
        return Ok(Read::NotAnObject);
    }
    let member_depth = limits.max_depth.saturating_sub(1);
    let mut envelope = Box::new(Envelope { too_deep: limits.max_depth == 0, ..Envelope::default() });
    for_each_member(text, |key, value| {
        envelope.too_deep = envelope.too_deep || too_deep(value.get(), member_depth);
        let Some(field) = Field::of(&string(key.get())) else {
            return;
        };
        if field == Field::Type
            && let Some(found) = type_of(value)
        {
            envelope.message_type.get_or_insert(found);
        }
        let Some(slot) = envelope.slots.get_mut(field as usize) else {
            return;
        };
        if slot.is_some() {
            envelope.repeated.get_or_insert(field);
        } else {
            *slot = Some(value);
        }
    })?;
    Ok(Read::Object(envelope))
}

/// The message type a `type` member names, if it is a string naming one of ours.
fn type_of(value: &RawValue) -> Option<MessageType> {
    let text = value.get();
    (JsonKind::of(text) == JsonKind::String).then(|| MessageType::from_wire(&string(text))).flatten()
}
