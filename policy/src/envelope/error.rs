//! Why a message of ours was refused: which field, and what is wrong with it.

use thiserror::Error;

use super::json::{JsonKind, SyntaxError};
use super::message::{ExecuteResponse, MessageType};
use crate::ids::{IdError, RequestId};
use crate::outcome::{ErrorKind, ToolError};

/// A refused message: what is wrong, and what is known of the message (its type, its `requestId`).
///
/// A provider answers a refused `WEBMCP_EXECUTE_TOOL_REQUEST` that still had a valid `requestId`, so that the
/// caller is not left waiting: [`EnvelopeError::error_reply`] builds that answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{problem}")]
pub struct EnvelopeError {
    message_type: Option<MessageType>,
    request_id: Option<RequestId>,
    problem: Problem,
}

/// A message or batch that is not valid JSON.
pub(super) fn syntax(error: SyntaxError) -> EnvelopeError {
    EnvelopeError::new(Problem::Syntax(error))
}

impl EnvelopeError {
    /// An error about a message whose type is not known (yet).
    pub(crate) fn new(problem: Problem) -> Self {
        Self { message_type: None, request_id: None, problem }
    }

    /// An error about a message of `message_type`.
    pub(crate) fn about(message_type: MessageType, request_id: Option<RequestId>, problem: Problem) -> Self {
        Self { message_type: Some(message_type), request_id, problem }
    }

    /// What is wrong.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The type of the refused message, when it got as far as being recognized as ours.
    pub fn message_type(&self) -> Option<MessageType> {
        self.message_type
    }

    /// The refused message's `requestId`, when it had a valid one.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request_id.as_ref()
    }

    /// The category, for grouping console warnings.
    pub fn category(&self) -> ErrorCategory {
        match &self.problem {
            Problem::TooLarge { .. } => ErrorCategory::TooLarge,
            Problem::TooDeep { .. } => ErrorCategory::TooDeep,
            Problem::Syntax(_) => ErrorCategory::InvalidJson,
            Problem::Field { problem: FieldProblem::ProtoKey, .. } => ErrorCategory::ProtoKey,
            Problem::Field { .. } => ErrorCategory::Malformed,
            Problem::NotABatch { .. } | Problem::BatchTooLong { .. } | Problem::BatchTooLarge { .. } => {
                ErrorCategory::BadBatch
            }
        }
    }

    /// The failure response a provider sends for a refused `WEBMCP_EXECUTE_TOOL_REQUEST` that had a valid
    /// `requestId`: `invalid_args` when the arguments were wrong, `refused` otherwise. `None` for any other
    /// message, which gets no reply.
    pub fn error_reply(&self) -> Option<ExecuteResponse> {
        if self.message_type != Some(MessageType::ExecuteToolRequest) {
            return None;
        }
        let request_id = self.request_id.clone()?;
        let kind = match &self.problem {
            Problem::Field { field, .. } if field.starts_with("args") || field.starts_with("inputObject") => {
                ErrorKind::InvalidArgs
            }
            _ => ErrorKind::Refused,
        };
        let message = format!("{} refused: {}", MessageType::ExecuteToolRequest, self.problem);
        Some(ExecuteResponse { request_id, outcome: Err(ToolError::new(kind, message)) })
    }
}

/// What is wrong with a message or a batch.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Problem {
    /// The message is larger than `Limits::max_message_bytes`.
    #[error("message is {bytes} bytes: the limit is {limit}")]
    TooLarge {
        /// The size of the message's JSON text.
        bytes: usize,
        /// The largest size allowed.
        limit: usize,
    },
    /// Arrays and objects nest deeper than `Limits::max_depth`.
    #[error("nesting deeper than {limit} levels")]
    TooDeep {
        /// The deepest nesting allowed, the envelope counting as 1.
        limit: usize,
    },
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(SyntaxError),
    /// A field breaks a rule of the protocol.
    #[error("{field}: {problem}")]
    Field {
        /// The field's path, such as `requestId`, `tools[3].name` or `args.user.__proto__`.
        field: String,
        /// What is wrong with it.
        problem: FieldProblem,
    },
    /// A port batch is not a JSON array.
    #[error("a batch is a JSON array of messages, not {found}")]
    NotABatch {
        /// What the batch text holds instead.
        found: JsonKind,
    },
    /// A port batch holds more messages than `Limits::max_batch_len`.
    #[error("batch holds {len} messages: at most {limit} are allowed")]
    BatchTooLong {
        /// How many messages it holds.
        len: usize,
        /// The most allowed.
        limit: usize,
    },
    /// A port batch is larger than `Limits::max_batch_bytes`.
    #[error("batch is {bytes} bytes: the limit is {limit}")]
    BatchTooLarge {
        /// The size of the batch's JSON text.
        bytes: usize,
        /// The largest size allowed.
        limit: usize,
    },
}

impl Problem {
    /// The problem `problem` with the field at `field`.
    pub(crate) fn field(field: impl Into<String>, problem: FieldProblem) -> Self {
        Self::Field { field: field.into(), problem }
    }
}

/// What is wrong with one field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FieldProblem {
    /// A required field is absent.
    #[error("missing")]
    Missing,
    /// The field appears twice in the same object.
    #[error("appears more than once")]
    Repeated,
    /// The field holds the wrong kind of value.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What it must hold, in words.
        expected: &'static str,
        /// What it holds.
        found: JsonKind,
    },
    /// A request id or tool name breaks its rule.
    #[error("{0}")]
    Id(IdError),
    /// A text is too long.
    #[error("is {chars} characters long: at most {limit} are allowed")]
    TooLong {
        /// Its length in characters.
        chars: usize,
        /// The longest allowed.
        limit: usize,
    },
    /// A list is too long.
    #[error("holds {count} entries: at most {limit} are allowed")]
    TooMany {
        /// How many entries it holds.
        count: usize,
        /// The most allowed.
        limit: usize,
    },
    /// Arguments hold a `__proto__` key.
    #[error(
        "a \"__proto__\" key is refused: code that copies the arguments into an object could give it another prototype"
    )]
    ProtoKey,
    /// A string that must hold JSON text does not.
    #[error("the string does not hold valid JSON: {0}")]
    EmbeddedSyntax(SyntaxError),
    /// A string that must hold a JSON object holds another kind of value.
    #[error("the string holds {found}: expected {expected}")]
    EmbeddedNotObject {
        /// What it must hold, such as `a JSON object`.
        expected: &'static str,
        /// What the string holds.
        found: JsonKind,
    },
    /// A string that must be one of a few words is not.
    #[error("expected {expected}, found {}", crate::quote::quoted(.found))]
    NotOneOf {
        /// The accepted words.
        expected: &'static str,
        /// The text found (its first 40 characters).
        found: String,
    },
    /// Two tools of a response have the same name.
    #[error("{} is listed more than once", crate::quote::quoted(.name))]
    DuplicateTool {
        /// The repeated name.
        name: String,
    },
}

/// Groups refusals for console warnings: a page warns once per category and origin, then at most once a minute.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// A message larger than the limit.
    TooLarge,
    /// A message nested deeper than the limit.
    TooDeep,
    /// Text that is not JSON.
    InvalidJson,
    /// A message of ours with a missing or invalid field.
    Malformed,
    /// Arguments with a `__proto__` key.
    ProtoKey,
    /// A port batch that is not an array of messages within the limits.
    BadBatch,
}

impl ErrorCategory {
    /// A short name, for logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TooLarge => "too_large",
            Self::TooDeep => "too_deep",
            Self::InvalidJson => "invalid_json",
            Self::Malformed => "malformed",
            Self::ProtoKey => "proto_key",
            Self::BadBatch => "bad_batch",
        }
    }
}
