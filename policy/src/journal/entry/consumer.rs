//! A consumer entry (`webmcp:c:<wire id>`): one call this page made, from recorded to settled.

use std::borrow::Cow;

use super::read::{FieldError, Fields};
use super::{
    CONSUMER_PREFIX, ENTRY_VERSION, EntryError, StoredError, StoredOwner, decode_versioned, is_origin_text,
    stored_json, write_error, write_owner,
};
use crate::envelope::JsonText;
use crate::envelope::encode::Object;
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
            return Err(EntryError::field(
                "p",
                format!("origin {} is not a serialized origin", crate::quote::quoted(&self.origin)),
            ));
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

    /// The stored form: compact JSON, its members in the order of `StoredCall`'s fields.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(256 + self.args.as_ref().map_or(0, |args| args.as_str().len()));
        let mut entry = Object::open(&mut out);
        entry.number("v", ENTRY_VERSION);
        write_owner(&mut entry, "o", &self.owner);
        entry.string("w", self.wire_id.as_str()).string("k", &self.call_id).string("n", self.tool.as_str());
        Object::open(entry.key("p"))
            .string("o", &self.provider.origin)
            .string("l", &self.provider.locator)
            .bool("b", self.provider.bridge)
            .close();
        if let Some(args) = &self.args {
            entry.string("a", args.as_str());
        }
        let state = match &self.phase {
            CallPhase::Recorded => "recorded",
            CallPhase::Sent { .. } => "sent",
            CallPhase::Settled { .. } => "settled",
        };
        entry.string("s", state).number("c", self.created_at);
        match &self.phase {
            CallPhase::Recorded => {}
            CallPhase::Sent { sent_at } => {
                entry.number("ts", *sent_at);
            }
            CallPhase::Settled { sent_at, settled_at, outcome, ack } => {
                if let Some(sent_at) = sent_at {
                    entry.number("ts", *sent_at);
                }
                entry.number("te", *settled_at);
                write_outcome(&mut entry, "r", outcome);
                entry.string("ack", ack_name(*ack));
            }
        }
        entry.close();
        out
    }

    /// Decodes and checks a stored value; never panics, whatever `text` holds.
    pub fn decode(text: &str) -> Result<Self, EntryError> {
        let stored = StoredCall::read(decode_versioned(text)?)?;
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
                return Err(EntryError::field(
                    "s",
                    format!("state {} does not fit the fields present", crate::quote::quoted(state)),
                ));
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
        other => Err(EntryError::field("ack", format!("{} is not none, due or sent", crate::quote::quoted(other)))),
    }
}

/// A consumer entry as stored, version aside (see [`ConsumerEntry::encode`]).
struct StoredCall<'a> {
    o: StoredOwner<'a>,
    w: Cow<'a, str>,
    k: Cow<'a, str>,
    n: Cow<'a, str>,
    p: StoredProvider<'a>,
    /// The arguments' JSON text; empty once settled.
    a: Cow<'a, str>,
    s: Cow<'a, str>,
    c: u64,
    ts: Option<u64>,
    te: Option<u64>,
    r: Option<StoredOutcome<'a>>,
    ack: Option<Cow<'a, str>>,
}

impl<'a> StoredCall<'a> {
    fn read(mut fields: Fields<'a>) -> Result<Self, FieldError> {
        let call = Self {
            o: StoredOwner::read(&mut fields, "o"),
            w: fields.string("w"),
            k: fields.string("k"),
            n: fields.string("n"),
            p: StoredProvider::read(&mut fields, "p"),
            a: fields.string_or_empty("a"),
            s: fields.string("s"),
            c: fields.u64("c"),
            ts: fields.opt_u64("ts"),
            te: fields.opt_u64("te"),
            r: StoredOutcome::read(&mut fields, "r"),
            ack: fields.opt_string("ack"),
        };
        fields.finish()?;
        Ok(call)
    }
}

/// The window called: `{"o":"<origin>","l":"<locator>","b":<bridge>}`.
struct StoredProvider<'a> {
    o: Cow<'a, str>,
    l: Cow<'a, str>,
    b: bool,
}

impl<'a> StoredProvider<'a> {
    fn read(call: &mut Fields<'a>, name: &str) -> Self {
        let mut fields = call.object(name);
        let provider = Self { o: fields.string("o"), l: fields.string("l"), b: fields.bool("b", None) };
        call.nested(fields);
        provider
    }
}

/// A call outcome: `{"s":"completed","r":"<json>"}`, `{"s":"failed","e":{…}}`, `{"s":"stopped"}` or
/// `{"s":"interrupted","m":"…"}`.
struct StoredOutcome<'a> {
    s: Cow<'a, str>,
    r: Option<Cow<'a, str>>,
    e: Option<StoredError<'a>>,
    m: Option<Cow<'a, str>>,
}

/// Writes `outcome` as the value of `key`.
fn write_outcome(object: &mut Object<'_>, key: &str, outcome: &CallOutcome) {
    let mut stored = Object::open(object.key(key));
    stored.string("s", outcome.status().as_str());
    match outcome {
        CallOutcome::Completed { result } => {
            stored.string("r", result.as_str());
        }
        CallOutcome::Failed(error) => write_error(&mut stored, "e", error),
        CallOutcome::Stopped => {}
        CallOutcome::Interrupted { message } => {
            stored.string("m", message);
        }
    }
    stored.close();
}

impl<'a> StoredOutcome<'a> {
    fn read(call: &mut Fields<'a>, name: &str) -> Option<Self> {
        let mut fields = call.opt_object(name)?;
        let outcome = Self {
            s: fields.string("s"),
            r: fields.opt_string("r"),
            e: StoredError::read(&mut fields, "e"),
            m: fields.opt_string("m"),
        };
        call.nested(fields);
        Some(outcome)
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
            (status, ..) => {
                Err(EntryError::field("r", format!("outcome {} does not fit its fields", crate::quote::quoted(status))))
            }
        }
    }
}
