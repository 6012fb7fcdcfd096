//! How a call ended: what a provider answers ([`ToolOutcome`]) and what its caller learns ([`CallOutcome`]).

use std::fmt;

use crate::byte_scan::escaped_len;
use crate::envelope::JsonText;
pub use crate::envelope::cap_result;
use crate::outcome::{ErrorKind, RetryAfter, ToolError, cap_error_message, standard_error_name};

/// What a provider answers for a call, as `WEBMCP_EXECUTE_TOOL_RESPONSE` carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// `success: true`, with the result as JSON text.
    Completed {
        /// The result, as JSON text.
        result: JsonText,
    },
    /// `success: false`, with the error.
    Failed(ToolError),
}

impl ToolOutcome {
    /// The same outcome within bounds: a result longer than `result_cap_chars` becomes
    /// `{"truncated":true,"preview":"…"}` (see [`cap_result`]); an error keeps a capped message and only a valid
    /// name, status and retryAfter.
    pub fn capped(self, result_cap_chars: usize) -> Self {
        match self {
            Self::Completed { result } => Self::Completed { result: cap_result(result, result_cap_chars) },
            Self::Failed(error) => Self::Failed(sanitize_error(error)),
        }
    }

    /// The bytes of its texts as a journal entry stores them (JSON escaped, UTF-8; at least what `sessionStorage`
    /// counts, which is UTF-16 code units): what a provider's held results count against their budget.
    pub(crate) fn stored_bytes(&self) -> usize {
        match self {
            Self::Completed { result } => escaped_len(result.as_str()),
            Self::Failed(error) => error_stored_bytes(error),
        }
    }
}

/// The bytes of an error's message and name as a journal entry stores them (see [`ToolOutcome::stored_bytes`]).
fn error_stored_bytes(error: &ToolError) -> usize {
    escaped_len(&error.message) + error.name.map_or(0, escaped_len)
}

/// How a call ended for its caller: the `status` of the `toolresult` event and the promise's settlement.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The tool ran and returned this result (JSON text).
    Completed {
        /// The result, as JSON text.
        result: JsonText,
    },
    /// The call failed: the tool threw, or the provider refused it.
    Failed(ToolError),
    /// The caller stopped the call (its signal aborted).
    Stopped,
    /// A page went away while the call ran: it may or may not have taken effect.
    Interrupted {
        /// What happened, in words for the caller.
        message: String,
    },
}

/// The four ways a call can end, as the `status` field of `toolresult` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutcomeStatus {
    /// `"completed"`.
    Completed,
    /// `"failed"`.
    Failed,
    /// `"stopped"`.
    Stopped,
    /// `"interrupted"`.
    Interrupted,
}

impl OutcomeStatus {
    /// The name used in events and in the journal.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
            Self::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for OutcomeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The message of the error a stopped call rejects with.
pub const STOPPED_MESSAGE: &str = "the call was stopped by its caller";

impl CallOutcome {
    /// Which of the four ways this is.
    pub fn status(&self) -> OutcomeStatus {
        match self {
            Self::Completed { .. } => OutcomeStatus::Completed,
            Self::Failed(_) => OutcomeStatus::Failed,
            Self::Stopped => OutcomeStatus::Stopped,
            Self::Interrupted { .. } => OutcomeStatus::Interrupted,
        }
    }

    /// The error the caller's promise rejects with, or `None` for a completed call.
    pub fn error(&self) -> Option<ToolError> {
        match self {
            Self::Completed { .. } => None,
            Self::Failed(error) => Some(error.clone()),
            Self::Stopped => Some(ToolError::new(ErrorKind::Cancelled, STOPPED_MESSAGE)),
            Self::Interrupted { message } => Some(ToolError::new(ErrorKind::Interrupted, message)),
        }
    }

    /// How a provider's answer reads to its caller: an error of kind `interrupted` is an interruption.
    pub(crate) fn from_response(outcome: ToolOutcome) -> Self {
        match outcome {
            ToolOutcome::Completed { result } => Self::Completed { result },
            ToolOutcome::Failed(error) if error.kind == ErrorKind::Interrupted => {
                Self::Interrupted { message: error.message }
            }
            ToolOutcome::Failed(error) => Self::Failed(error),
        }
    }

    /// The same outcome within the journal's bounds (see [`ToolOutcome::capped`]).
    pub(crate) fn capped(self, result_cap_chars: usize) -> Self {
        match self {
            Self::Completed { result } => Self::Completed { result: cap_result(result, result_cap_chars) },
            Self::Failed(error) => Self::Failed(sanitize_error(error)),
            Self::Stopped => Self::Stopped,
            Self::Interrupted { message } => Self::Interrupted { message: cap_error_message(&message) },
        }
    }

    /// The bytes of its texts as a journal entry stores them (see [`ToolOutcome::stored_bytes`]): what a caller's
    /// settled outcomes count against their budget.
    pub(crate) fn stored_bytes(&self) -> usize {
        match self {
            Self::Completed { result } => escaped_len(result.as_str()),
            Self::Failed(error) => error_stored_bytes(error),
            Self::Interrupted { message } => escaped_len(message),
            Self::Stopped => 0,
        }
    }
}

/// The characters of `{"truncated":true,"preview":""}`, the least a truncated result takes.
pub const TRUNCATED_WRAPPER_CHARS: usize = 31;

/// Keeps an error within the protocol's rules: a capped message, a standard name, a status from 100 to 599 and a
/// valid retryAfter; anything else is dropped.
pub(crate) fn sanitize_error(error: ToolError) -> ToolError {
    ToolError {
        kind: error.kind,
        message: cap_error_message(&error.message),
        name: error.name.and_then(standard_error_name),
        status: error.status.filter(|s| (100..=599).contains(s)),
        retry_after: error.retry_after.and_then(|r| RetryAfter::from_json(&r.to_json())),
    }
}
