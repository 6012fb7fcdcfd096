//! Decoding: JSON text (or a `serde_json::Value`) to a [`Message`], or "not ours", or a refusal that names the
//! field.
//!
//! One pass reads the envelope's members, checking the syntax and depth of every value and noting where each
//! known field sits; then the fields are read out of their spans according to the message's `type` (see
//! `fields.rs`).

use serde_json::Value;

use super::error::{EnvelopeError, Problem};
use super::fields::interpret;
use super::message::{Message, MessageType};
use super::scan::{JsonKind, Scanner, SyntaxError, ValueScan};
use super::text::{ByteCount, write_value};
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
    let mut scanner = Scanner::new(text);
    let read = read_message(&mut scanner, limits).and_then(|read| scanner.finish().map(|()| read));
    interpret(text, read.map_err(syntax)?, limits)
}

/// Decodes one message from a `serde_json::Value`, with the same result as [`decode`] of its compact JSON text,
/// with one exception: a value that is not ours is [`Decoded::NotOurs`] whatever its size (it is never written
/// out as text).
pub fn decode_value(value: &Value, limits: &Limits) -> Result<Decoded, EnvelopeError> {
    let ours = value.get("type").and_then(Value::as_str).and_then(MessageType::from_wire);
    if ours.is_none() {
        return Ok(Decoded::NotOurs);
    }
    let mut size = ByteCount::default();
    write_value(&mut size, value);
    if size.0 > limits.max_message_bytes {
        return Err(EnvelopeError::new(Problem::TooLarge { bytes: size.0, limit: limits.max_message_bytes }));
    }
    let mut text = String::with_capacity(size.0);
    write_value(&mut text, value);
    decode(&text, limits)
}

/// Decodes a port batch: a JSON array of messages, each decoded on its own, so that one bad message does not
/// drop the others. The batch as a whole is refused when it is not a JSON array, is not valid JSON, is larger
/// than `Limits::max_batch_bytes` or holds more than `Limits::max_batch_len` messages.
pub fn decode_batch(text: &str, limits: &Limits) -> Result<Vec<Result<Decoded, EnvelopeError>>, EnvelopeError> {
    if text.len() > limits.max_batch_bytes {
        return Err(EnvelopeError::new(Problem::BatchTooLarge { bytes: text.len(), limit: limits.max_batch_bytes }));
    }
    let mut scanner = Scanner::new(text);
    if scanner.peek() != Some(b'[') {
        let found = scanner.scan_value(0).map_err(syntax)?.kind;
        scanner.finish().map_err(syntax)?;
        return Err(EnvelopeError::new(Problem::NotABatch { found }));
    }
    let mut decoded = Vec::new();
    let mut len = 0;
    scanner
        .read_array(|s| {
            len += 1;
            if len > limits.max_batch_len {
                decoded.clear();
                return s.scan_value(0).map(|_| ());
            }
            s.peek();
            let start = s.pos;
            let read = read_message(s, limits)?;
            decoded.push(if s.pos - start > limits.max_message_bytes {
                Err(EnvelopeError::new(Problem::TooLarge { bytes: s.pos - start, limit: limits.max_message_bytes }))
            } else {
                interpret(text, read, limits)
            });
            Ok(())
        })
        .and_then(|()| scanner.finish())
        .map_err(syntax)?;
    if len > limits.max_batch_len {
        return Err(EnvelopeError::new(Problem::BatchTooLong { len, limit: limits.max_batch_len }));
    }
    Ok(decoded)
}

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
            Self::Bridge => "bridge",
        }
    }
}

/// What one pass over a message found.
#[derive(Debug, Default)]
pub(super) struct Envelope {
    /// Our `type`, when some `type` member names one of ours.
    pub(super) message_type: Option<MessageType>,
    /// Where each known field's value is (the first one, when repeated).
    pub(super) slots: [Option<ValueScan>; FIELD_COUNT],
    /// The first known field that appears twice.
    pub(super) repeated: Option<Field>,
    /// Whether some value nests deeper than allowed.
    pub(super) too_deep: bool,
}

/// The result of reading one value as a message.
pub(super) enum Read {
    /// A value that is not an object: never ours.
    NotAnObject,
    /// An object, with its fields located.
    Object(Box<Envelope>),
}

/// Reads one value at the scanner's position as a message envelope, checking its syntax and depth.
fn read_message(scanner: &mut Scanner<'_>, limits: &Limits) -> Result<Read, SyntaxError> {
    if scanner.peek() != Some(b'{') {
        // Depth 0: only checked, so no path information is kept for any level.
        scanner.scan_value(0)?;
        return Ok(Read::NotAnObject);
    }
    let text = scanner.text();
    let member_depth = limits.max_depth.saturating_sub(1);
    let mut envelope = Box::new(Envelope { too_deep: limits.max_depth == 0, ..Envelope::default() });
    scanner.read_object(|s, key| {
        let scan = s.scan_value(member_depth)?;
        envelope.too_deep |= scan.too_deep;
        let Some(field) = Field::of(&key.unescape()) else {
            return Ok(());
        };
        if field == Field::Type
            && scan.kind == JsonKind::String
            && let Some(found) = MessageType::from_wire(&scan.raw_str(text).unescape())
        {
            envelope.message_type.get_or_insert(found);
        }
        let Some(slot) = envelope.slots.get_mut(field as usize) else {
            return Ok(());
        };
        if slot.is_some() {
            envelope.repeated.get_or_insert(field);
        } else {
            *slot = Some(scan);
        }
        Ok(())
    })?;
    Ok(Read::Object(envelope))
}
