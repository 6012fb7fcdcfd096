//! Locating an envelope's fields: one pass of the JSON reader over a message's members that checks the syntax of
//! every value, measures its depth, and keeps each known top-level field as a raw slice for `fields.rs` to read.

use crate::envelope::json::Raw;

use super::json::{JsonKind, SyntaxError, for_each_member, raw, string};
use super::message::MessageType;
use super::shape::too_deep;
use crate::limits::Limits;

/// The whitespace JSON allows between tokens.
pub(super) const WHITESPACE: [char; 4] = [' ', '\t', '\n', '\r'];

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
    pub(super) slots: [Option<Raw<'t>>; FIELD_COUNT],
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
pub(super) fn read_message<'t>(text: &'t str, limits: &Limits) -> Result<Read<'t>, SyntaxError> {
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
fn type_of(value: Raw<'_>) -> Option<MessageType> {
    let text = value.get();
    (JsonKind::of(text) == JsonKind::String).then(|| MessageType::from_wire(&string(text))).flatten()
}
