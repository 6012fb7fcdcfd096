//! The inputs and decisions of the consumer journal.

use thiserror::Error;

use crate::envelope::JsonText;
use crate::ids::{RequestId, ToolName};
use crate::journal::entry::ProviderWindow;
use crate::journal::outcome::CallOutcome;

/// The most wire ids in one `WEBMCP_CALL_ACK`.
pub const MAX_ACK_BATCH: usize = 512;

/// Interrupted: the page reloaded while a call to a plain WebMCP peer was in flight.
pub const PLAIN_PEER_UNANSWERED: &str = "the page reloaded while this call was in flight, and the provider (a plain \
     WebMCP page) cannot say whether it ran: it may or may not have taken effect";
/// Interrupted: the provider page went away after the call was sent.
pub const PROVIDER_GONE: &str =
    "the provider page went away while this call was in flight: it may or may not have taken effect";
/// Interrupted: the provider page went away before the call was sent.
pub const PROVIDER_GONE_BEFORE_SEND: &str = "the provider page went away before this call was sent: it did not run";
/// Interrupted: the provider cannot prove that it never received the call.
pub const PROVIDER_NOT_DURABLE: &str = "the provider has no record of this call, but its journal does not survive its \
     reloads, so it may have run before one: it may or may not have taken effect";
/// Interrupted: a sent call stayed unanswered longer than journals keep calls.
pub const TOO_OLD_SENT: &str = "this call stayed unanswered for longer than the journal keeps calls: it may or may \
     not have taken effect, and it will not be sent again";
/// Interrupted: a recorded call was never sent, and is older than journals keep calls.
pub const TOO_OLD_RECORDED: &str =
    "this call was never sent and is older than the journal keeps calls: it did not run, and it will not be sent";
/// Refused: the outcome a settled call's `callId` replays once its own outcome no longer fits the bytes the journal
/// keeps for replays ([`JournalConfig::settled_outcome_bytes_max`](crate::journal::JournalConfig)).
pub const OUTCOME_NOT_KEPT: &str = "this callId's call settled earlier, and its outcome is no longer kept (the caller \
     keeps its newest outcomes, 512 KiB of them by default): it will not run again";
/// Failed (`timeout`): the caller's time limit passed.
pub const TIMED_OUT: &str = "no answer came within the call's time limit; the provider was asked to stop it";

/// A call the page wants to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCall {
    /// The caller's idempotency key, if it gave one (1 to 256 characters).
    pub call_id: Option<String>,
    /// A fresh random wire id (at least 96 random bits) made by the bridge.
    pub wire_id: RequestId,
    /// The tool to call.
    pub tool: ToolName,
    /// The window to call it in.
    pub provider: ProviderWindow,
    /// The arguments.
    pub args: JsonText,
}

/// What to do with a new call.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// The call is recorded: call [`ConsumerJournal::mark_sent`](super::ConsumerJournal::mark_sent), then post it.
    New,
    /// The `callId` settled earlier: settle the caller's promise with this recorded outcome; nothing is sent.
    Replay {
        /// The wire id of the earlier call.
        wire_id: RequestId,
        /// How it ended.
        outcome: CallOutcome,
    },
    /// The `callId` is in flight: settle the caller's promise with that call's `Settled`; nothing is sent.
    Join {
        /// The wire id of the call in flight.
        wire_id: RequestId,
    },
}

/// Why a new call was refused. Nothing was recorded or sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum StartError {
    /// The `callId` was first used for another tool or another window.
    #[error(
        "callId {} was first used to call `{first_tool}` in {first_origin} ({first_locator}): a callId \
         names one call, so use a new callId for another tool or window",
        crate::quote::quoted(.call_id)
    )]
    CallIdReused {
        /// The reused key.
        call_id: String,
        /// The tool of its first use.
        first_tool: ToolName,
        /// The provider origin of its first use.
        first_origin: String,
        /// The provider locator of its first use.
        first_locator: String,
    },
    /// Too many calls of this page are unsettled.
    #[error("{limit} calls of this page are still unsettled: wait for some to settle before making more")]
    TooManyUnsettled {
        /// The limit (`unsettled_calls_max`).
        limit: usize,
    },
    /// The wire id is already recorded (the bridge must make a fresh random one).
    #[error("wire id {0} is already recorded: make a fresh random one for each call")]
    WireIdInUse(RequestId),
    /// The `callId` or the provider window cannot be recorded.
    #[error("this call cannot be recorded: {0}")]
    Invalid(String),
}

/// What the bridge posts as `WEBMCP_EXECUTE_TOOL_REQUEST`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecuteRequest {
    /// The `requestId`.
    pub wire_id: RequestId,
    /// The tool `name`.
    pub tool: ToolName,
    /// Where to post it.
    pub provider: ProviderWindow,
    /// The `args`, as the journal recorded them (checked when recorded, or when read back from storage).
    pub args: JsonText,
    /// A re-send after the provider said it never received the call: the bridge adds `"resend": 1`, and the
    /// provider passes it to [`ProviderJournal::on_resend`](crate::journal::ProviderJournal::on_resend).
    pub resend: bool,
}

/// What the bridge sends to the provider after a call settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followup {
    /// Nothing.
    Nothing,
    /// `WEBMCP_CALL_ACK` for this wire id (batched), then [`ConsumerJournal::mark_acked`](super::ConsumerJournal::mark_acked).
    Ack,
    /// `WEBMCP_CANCEL_TOOL` for this wire id: the call was stopped (or timed out) after it was sent.
    Cancel,
}

/// A call that just ended: the bridge settles its promise (and any joined ones) and fires `toolresult`.
/// Each call started with [`Start::New`] produces exactly one, across reloads of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// The caller's idempotency key (the wire id when the caller gave none).
    pub call_id: String,
    /// The call id on the wire.
    pub wire_id: RequestId,
    /// The tool called.
    pub tool: ToolName,
    /// The window called.
    pub provider: ProviderWindow,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Milliseconds from recording to settling.
    pub duration_ms: u64,
    /// Whether an earlier page started the call.
    pub recovered: bool,
    /// What to send to the provider now.
    pub followup: Followup,
}

/// What a reopened journal asks the bridge to do for the calls an earlier page left.
#[derive(Debug, Clone, PartialEq)]
pub enum Recovery {
    /// Never sent: call [`ConsumerJournal::mark_sent`](super::ConsumerJournal::mark_sent), then post it.
    Send(ExecuteRequest),
    /// Sent to a bridge provider with no answer: post `WEBMCP_CALL_STATUS_REQUEST`, then pass the answer to
    /// [`ConsumerJournal::on_status`](super::ConsumerJournal::on_status) or
    /// [`ConsumerJournal::on_response`](super::ConsumerJournal::on_response).
    AskStatus {
        /// The call.
        wire_id: RequestId,
        /// Where to ask.
        provider: ProviderWindow,
    },
    /// Outcomes recorded but not yet acknowledged: post one `WEBMCP_CALL_ACK`, then call `mark_acked`.
    Ack {
        /// Where to post it.
        provider: ProviderWindow,
        /// At most [`MAX_ACK_BATCH`] wire ids.
        wire_ids: Vec<RequestId>,
    },
    /// The call settled while the page opened (it cannot be resumed): report it like any other.
    Settled(Settled),
}

/// What a bridge provider said in `WEBMCP_CALL_STATUS_RESPONSE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderStatus {
    /// The call runs; its response follows.
    Running,
    /// The provider has no record of the call.
    Unknown {
        /// Whether that proves the call never ran (its journal survives its reloads).
        durable: bool,
    },
}

/// What to do after a status answer.
#[derive(Debug, Clone, PartialEq)]
pub enum StatusDecision {
    /// Nothing: the response will come (or the call was already re-sent by this page).
    Wait,
    /// The provider never received the call: post it again, with the same wire id.
    Resend(ExecuteRequest),
    /// The call settled.
    Settled(Settled),
    /// The wire id is not a call in flight of this page: ignore the answer.
    Ignored,
}
