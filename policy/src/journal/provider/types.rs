//! The decisions of the provider journal, and the errors it answers with.

use crate::journal::outcome::ToolOutcome;
use crate::outcome::ToolError;

/// Answer to a call that ran in a page that went away.
pub const INTERRUPTED_MESSAGE: &str =
    "the provider page reloaded while this call ran: it may or may not have taken effect, and it will not run again";
/// Answer to a call its caller stopped.
pub const CANCELLED_MESSAGE: &str = "the caller stopped this call: it will not run (again)";
/// Answer to a call whose result was dropped before it was acknowledged.
pub const EXPIRED_MESSAGE: &str = "this call ran, and its result was dropped before it was delivered (it was not \
     acknowledged in time): it will not run again";
/// Answer to a call whose outcome was already acknowledged.
pub const DELIVERED_MESSAGE: &str = "this call's outcome was already delivered and acknowledged: it will not run again";
/// Answer to a call that another page of this tab received.
pub const OTHER_PAGE_MESSAGE: &str = "another page of this tab received this call: it may or may not have taken \
     effect, and this page will not run it";
/// Answer to a re-sent call that this page has no record of and can no longer prove it never received.
pub const RESEND_UNPROVEN_MESSAGE: &str = "this page has no record of this call but may have forgotten it (records \
     were dropped, or its storage failed), so it did not run it again: it may or may not have taken effect";
/// Answer when the provider cannot record a call.
pub const CANNOT_RECORD_MESSAGE: &str = "the provider cannot record calls (its storage is failing), so it did not \
     run this one: retry later";
/// Answer when the caller's origin cannot be recorded.
pub const BAD_ORIGIN_MESSAGE: &str = "the caller's origin cannot be recorded, so the call did not run";

/// What to do with `WEBMCP_EXECUTE_TOOL_REQUEST`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecuteDecision {
    /// Recorded as running: call the tool, then [`ProviderJournal::on_finish`](super::ProviderJournal::on_finish).
    Run,
    /// The call runs already: its response will be sent when it finishes.
    AlreadyRunning,
    /// The call was received before: answer with this outcome; the tool does not run.
    Reply(ToolOutcome),
    /// Refused and not recorded (so the same request may be tried again): answer with this error.
    Refuse(ToolError),
}

/// What to do with `WEBMCP_CANCEL_TOOL`. Nothing is sent back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelDecision {
    /// The call runs: abort its `AbortSignal`; its late result will be discarded.
    AbortRunning,
    /// The call was not received yet: a record now makes sure it never starts.
    Recorded,
    /// Nothing to do (it finished, or was already stopped or interrupted).
    Nothing,
}

/// What to answer to `WEBMCP_CALL_STATUS_REQUEST`.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusAnswer {
    /// Send this outcome as `WEBMCP_EXECUTE_TOOL_RESPONSE`.
    Outcome(ToolOutcome),
    /// Send `WEBMCP_CALL_STATUS_RESPONSE` with `state: "running"`; the response follows when the tool finishes.
    Running,
    /// Send `WEBMCP_CALL_STATUS_RESPONSE` with `state: "unknown"` and this `durable`.
    Unknown {
        /// Whether "unknown" proves that the call never ran here: the journal survives reloads and has forgotten
        /// nothing within the age limit.
        durable: bool,
    },
}
