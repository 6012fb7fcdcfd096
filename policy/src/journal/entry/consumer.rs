//! A consumer entry (`webmcp:c:<wire id>`): one call this page made, from recorded to settled.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{
    CONSUMER_PREFIX, ENTRY_VERSION, EntryError, StoredError, StoredOwner, decode_versioned, encode, is_origin_text,
    stored_json,
};
use crate::envelope::JsonText;
use crate::ids::{RequestId, ToolName};
use crate::journal::outcome::CallOutcome;
use crate::journal::owner::Owner;
use crate::outcome::MAX_ERROR_MESSAGE_CHARS;

/// The longest `callId` accepted, in characters.
pub const MAX_CALL_ID_CHARS: usize = 256;
/// The longest provider locator accepted, in bytes.
pub const MAX_LOCATOR_BYTES: usize = 2048;

/// The window a call goes to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProviderWindow {
    /// The provider's origin, as the response event of its tool list reported it.
    pub origin: String,
    /// What the bridge uses to find that window again after a reload (such as a frame path); at most 2048 bytes,
    /// no control characters.
    pub locator: String,
    /// Whether the provider announced `"bridge": 1` (it speaks status, cancel and ack).
    pub bridge: bool,
}

impl ProviderWindow {
    /// A provider window.
    pub fn new(origin: impl Into<String>, locator: impl Into<String>, bridge: bool) -> Self {
        Self { origin: origin.into(), locator: locator.into(), bridge }
    }

    /// Checks the origin and the locator against the rules of the stored form.
    pub(crate) fn check(&self) -> Result<(), EntryError> {
        if !is_origin_text(&self.origin) {
            return Err(EntryError::field("p", format!("origin {:?} is not a serialized origin", self.origin)));
        }
        if self.locator.len() > MAX_LOCATOR_BYTES || self.locator.chars().any(char::is_control) {
            return Err(EntryError::field("p", "the locator is longer than 2048 bytes or holds a control character"));
        }
        Ok(())
    }
}

/// Whether the provider still keeps an outcome that this page recorded, until it is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AckState {
    /// Nothing to acknowledge: the outcome did not come from a bridge provider's response.
    NotNeeded,
    /// The outcome came from a bridge provider, which keeps it until `WEBMCP_CALL_ACK`.
    Due,
    /// The acknowledgement was sent.
    Sent,
}

/// Where a call stands.
#[derive(Debug, Clone, PartialEq)]
pub enum CallPhase {
    /// Recorded, and the request was never posted.
    Recorded,
    /// The request was posted (the state was written first).
    Sent {
        /// When it was first posted.
        sent_at: u64,
    },
    /// The call ended and its `Settled` was reported.
    Settled {
        /// When it was first posted, if it was.
        sent_at: Option<u64>,
        /// When it settled.
        settled_at: u64,
        /// How it ended.
        outcome: CallOutcome,
        /// Whether the provider must be told that the outcome is recorded.
        ack: AckState,
    },
}

/// One call of the consumer journal, as stored under `webmcp:c:<wire id>`.
///
/// A settled entry no longer keeps the call's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerEntry {
    pub(crate) owner: Owner,
    pub(crate) wire_id: RequestId,
    pub(crate) call_id: String,
    pub(crate) tool: ToolName,
    pub(crate) provider: ProviderWindow,
    pub(crate) args: Option<JsonText>,
    pub(crate) created_at: u64,
    pub(crate) phase: CallPhase,
}

/// Checks a `callId`: 1 to [`MAX_CALL_ID_CHARS`] characters.
pub(crate) fn check_call_id(call_id: &str) -> Result<(), EntryError> {
    if call_id.is_empty() || call_id.chars().count() > MAX_CALL_ID_CHARS {
        return Err(EntryError::field("k", format!("a callId has 1 to {MAX_CALL_ID_CHARS} characters")));
    }
    Ok(())
}

impl ConsumerEntry {
    /// The key of the entry: `webmcp:c:<wire id>`.
    pub fn key(&self) -> String {
        consumer_key(&self.wire_id)
    }

    /// The page that owns the entry.
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// The call id on the wire.
    pub fn wire_id(&self) -> &RequestId {
        &self.wire_id
    }

    /// The caller's idempotency key (the wire id when the caller gave none).
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool called.
    pub fn tool(&self) -> &ToolName {
        &self.tool
    }

    /// The window called.
    pub fn provider(&self) -> &ProviderWindow {
        &self.provider
    }

    /// The arguments as JSON text (none once settled).
    pub fn args(&self) -> Option<&JsonText> {
        self.args.as_ref()
    }

    /// When the call was recorded.
    pub fn created_at(&self) -> u64 {
        self.created_at
    }

    /// Where the call stands.
    pub fn phase(&self) -> &CallPhase {
        &self.phase
    }

    /// The stored form: compact JSON.
    pub fn encode(&self) -> String {
        let (state, sent_at, settled_at, outcome, ack) = match &self.phase {
            CallPhase::Recorded => ("recorded", None, None, None, None),
            CallPhase::Sent { sent_at } => ("sent", Some(*sent_at), None, None, None),
            CallPhase::Settled { sent_at, settled_at, outcome, ack } => {
                ("settled", *sent_at, Some(*settled_at), Some(StoredOutcome::of(outcome)), Some(ack_name(*ack)))
            }
        };
        encode(&StoredCall {
            v: ENTRY_VERSION,
            o: StoredOwner::of(&self.owner),
            w: Cow::Borrowed(self.wire_id.as_str()),
            k: Cow::Borrowed(&self.call_id),
            n: Cow::Borrowed(self.tool.as_str()),
            p: StoredProvider {
                o: Cow::Borrowed(&self.provider.origin),
                l: Cow::Borrowed(&self.provider.locator),
                b: self.provider.bridge,
            },
            a: Cow::Borrowed(self.args.as_ref().map_or("", JsonText::as_str)),
            s: Cow::Borrowed(state),
            c: self.created_at,
            ts: sent_at,
            te: settled_at,
            r: outcome,
            ack: ack.map(Cow::Borrowed),
        })
    }

    /// Decodes and checks a stored value; never panics, whatever `text` holds.
    pub fn decode(text: &str) -> Result<Self, EntryError> {
        let stored: StoredCall<'_> = decode_versioned(text)?;
        let owner = stored.o.check()?;
        let wire_id = RequestId::new(stored.w.as_ref()).map_err(|e| EntryError::field("w", e.to_string()))?;
        check_call_id(&stored.k)?;
        let tool = ToolName::new(stored.n.as_ref()).map_err(|e| EntryError::field("n", e.to_string()))?;
        let provider = ProviderWindow::new(stored.p.o, stored.p.l, stored.p.b);
        provider.check()?;
        let c = stored.c;
        let after_creation = |field: &'static str, at: Option<u64>| match at {
            Some(at) if at < c => Err(EntryError::field(field, "earlier than the call was recorded")),
            _ => Ok(at),
        };
        let sent_at = after_creation("ts", stored.ts)?;
        let settled_at = after_creation("te", stored.te)?;
        let phase = match (stored.s.as_ref(), sent_at, settled_at, stored.r, stored.ack) {
            ("recorded", None, None, None, None) => CallPhase::Recorded,
            ("sent", Some(sent_at), None, None, None) => CallPhase::Sent { sent_at },
            ("settled", sent_at, Some(settled_at), Some(outcome), Some(ack)) => {
                if sent_at.is_some_and(|s| s > settled_at) {
                    return Err(EntryError::field("ts", "later than the call settled"));
                }
                CallPhase::Settled { sent_at, settled_at, outcome: outcome.check()?, ack: parse_ack(&ack)? }
            }
            (state, ..) => {
                return Err(EntryError::field("s", format!("state {state:?} does not fit the fields present")));
            }
        };
        let args = match phase {
            CallPhase::Settled { .. } if !stored.a.is_empty() => {
                return Err(EntryError::field("a", "a settled call keeps no arguments"));
            }
            CallPhase::Settled { .. } => None,
            CallPhase::Recorded | CallPhase::Sent { .. } => match stored_json(stored.a) {
                Some(args) => Some(args),
                None => return Err(EntryError::field("a", "the arguments are not JSON text")),
            },
        };
        Ok(Self { owner, wire_id, call_id: stored.k.into_owned(), tool, provider, args, created_at: c, phase })
    }
}

/// The key of the consumer entry of `wire_id`.
pub(crate) fn consumer_key(wire_id: &RequestId) -> String {
    format!("{CONSUMER_PREFIX}{wire_id}")
}

fn no_text(text: &str) -> bool {
    text.is_empty()
}

fn ack_name(ack: AckState) -> &'static str {
    match ack {
        AckState::NotNeeded => "none",
        AckState::Due => "due",
        AckState::Sent => "sent",
    }
}

fn parse_ack(text: &str) -> Result<AckState, EntryError> {
    match text {
        "none" => Ok(AckState::NotNeeded),
        "due" => Ok(AckState::Due),
        "sent" => Ok(AckState::Sent),
        other => Err(EntryError::field("ack", format!("{other:?} is not none, due or sent"))),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredCall<'a> {
    v: u64,
    o: StoredOwner<'a>,
    w: Cow<'a, str>,
    k: Cow<'a, str>,
    n: Cow<'a, str>,
    p: StoredProvider<'a>,
    #[serde(default, skip_serializing_if = "no_text")]
    a: Cow<'a, str>,
    s: Cow<'a, str>,
    c: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    te: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    r: Option<StoredOutcome<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ack: Option<Cow<'a, str>>,
}

impl super::Versioned for StoredCall<'_> {
    fn version(&self) -> u64 {
        self.v
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredProvider<'a> {
    o: Cow<'a, str>,
    l: Cow<'a, str>,
    b: bool,
}

/// A call outcome: `{"s":"completed","r":"<json>"}`, `{"s":"failed","e":{…}}`, `{"s":"stopped"}` or
/// `{"s":"interrupted","m":"…"}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredOutcome<'a> {
    s: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    r: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    e: Option<StoredError<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    m: Option<Cow<'a, str>>,
}

impl<'a> StoredOutcome<'a> {
    fn of(outcome: &'a CallOutcome) -> Self {
        let status = Cow::Borrowed(outcome.status().as_str());
        let empty = Self { s: status, r: None, e: None, m: None };
        match outcome {
            CallOutcome::Completed { result } => Self { r: Some(Cow::Borrowed(result.as_str())), ..empty },
            CallOutcome::Failed(error) => Self { e: Some(StoredError::of(error)), ..empty },
            CallOutcome::Stopped => empty,
            CallOutcome::Interrupted { message } => Self { m: Some(Cow::Borrowed(message)), ..empty },
        }
    }

    fn check(self) -> Result<CallOutcome, EntryError> {
        match (self.s.as_ref(), self.r, self.e, self.m) {
            ("completed", Some(result), None, None) => match stored_json(result) {
                Some(result) => Ok(CallOutcome::Completed { result }),
                None => Err(EntryError::field("r", "outcome \"completed\" does not fit its fields")),
            },
            ("failed", None, Some(error), None) => Ok(CallOutcome::Failed(error.check()?)),
            ("stopped", None, None, None) => Ok(CallOutcome::Stopped),
            ("interrupted", None, None, Some(message)) if message.chars().count() <= MAX_ERROR_MESSAGE_CHARS => {
                Ok(CallOutcome::Interrupted { message: message.into_owned() })
            }
            (status, ..) => Err(EntryError::field("r", format!("outcome {status:?} does not fit its fields"))),
        }
    }
}
