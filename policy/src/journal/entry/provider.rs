//! Provider entries: one record per call received (`webmcp:p:<caller origin> <wire id>`), and one note per
//! owner (`webmcp:p:!<tab> <slot>`) saying since when its records may be incomplete.

use std::borrow::Cow;

use super::read::{FieldError, Fields};
use super::{
    ENTRY_VERSION, EntryError, PROVIDER_PREFIX, StoredError, StoredOwner, decode_versioned, is_origin_text,
    stored_json, write_error, write_owner,
};
use crate::envelope::encode::Object;
use crate::ids::{RequestId, ToolName};
use crate::journal::outcome::ToolOutcome;
use crate::journal::owner::Owner;

/// Where a received call stands at its provider.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordState {
    /// Recorded before the tool was called; the tool runs in this page.
    Running,
    /// The tool finished; the outcome is kept until the caller acknowledges it.
    Done(ToolOutcome),
    /// The page that ran it went away: it may or may not have taken effect. It never runs again.
    Interrupted,
    /// The caller stopped it (before it started, or while it ran). It never runs (again).
    Cancelled,
    /// It ran and the caller acknowledged its outcome, which is no longer kept.
    Acked,
    /// It ran, and its outcome was dropped before the caller acknowledged it.
    Expired,
}

impl RecordState {
    /// The stored name of the state.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done(_) => "done",
            Self::Interrupted => "interrupted",
            Self::Cancelled => "cancelled",
            Self::Acked => "acked",
            Self::Expired => "expired",
        }
    }
}

/// One call received by a provider, as stored under `webmcp:p:<caller origin> <wire id>`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderEntry {
    pub(crate) owner: Owner,
    pub(crate) caller_origin: String,
    pub(crate) wire_id: RequestId,
    pub(crate) tool: Option<ToolName>,
    pub(crate) state: RecordState,
    pub(crate) started_at: u64,
    pub(crate) updated_at: u64,
}

/// The key of the provider record of `wire_id` from `caller_origin`.
pub(crate) fn record_key(caller_origin: &str, wire_id: &RequestId) -> String {
    format!("{PROVIDER_PREFIX}{caller_origin} {wire_id}")
}

/// The key of the provider note of `owner`.
pub(crate) fn meta_key(owner: &Owner) -> String {
    format!("{PROVIDER_PREFIX}!{} {}", owner.tab(), owner.slot())
}

impl ProviderEntry {
    /// The key of the entry: `webmcp:p:<caller origin> <wire id>`.
    pub fn key(&self) -> String {
        record_key(&self.caller_origin, &self.wire_id)
    }

    /// The page that owns the entry.
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// The caller's origin.
    pub fn caller_origin(&self) -> &str {
        &self.caller_origin
    }

    /// The call id on the wire.
    pub fn wire_id(&self) -> &RequestId {
        &self.wire_id
    }

    /// The tool requested (none for a cancel that came before any request).
    pub fn tool(&self) -> Option<&ToolName> {
        self.tool.as_ref()
    }

    /// Where the call stands.
    pub fn state(&self) -> &RecordState {
        &self.state
    }

    /// When the call was first received.
    pub fn started_at(&self) -> u64 {
        self.started_at
    }

    /// When the state last changed.
    pub fn updated_at(&self) -> u64 {
        self.updated_at
    }

    /// The stored form: compact JSON, its members in the order of `StoredRecord`'s fields.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(200);
        let mut entry = Object::open(&mut out);
        entry.number("v", ENTRY_VERSION);
        write_owner(&mut entry, "o", &self.owner);
        entry.string("c", &self.caller_origin).string("w", self.wire_id.as_str());
        if let Some(tool) = &self.tool {
            entry.string("n", tool.as_str());
        }
        entry.string("s", self.state.name()).number("t0", self.started_at).number("t1", self.updated_at);
        if let RecordState::Done(outcome) = &self.state {
            let mut stored = Object::open(entry.key("r"));
            match outcome {
                ToolOutcome::Completed { result } => {
                    stored.string("ok", result.as_str());
                }
                ToolOutcome::Failed(error) => write_error(&mut stored, "e", error),
            }
            stored.close();
        }
        entry.close();
        out
    }

    /// Decodes and checks a stored value; never panics, whatever `text` holds.
    pub fn decode(text: &str) -> Result<Self, EntryError> {
        let stored = StoredRecord::read(decode_versioned(text)?)?;
        let owner = stored.o.check()?;
        if !is_origin_text(&stored.c) {
            return Err(EntryError::field("c", "not a serialized origin"));
        }
        let wire_id = RequestId::new(stored.w.as_ref()).map_err(|e| EntryError::field("w", e.to_string()))?;
        let tool = match stored.n {
            None => None,
            Some(n) => Some(ToolName::new(n.as_ref()).map_err(|e| EntryError::field("n", e.to_string()))?),
        };
        if stored.t1 < stored.t0 {
            return Err(EntryError::field("t1", "earlier than the call was received"));
        }
        let state = match (stored.s.as_ref(), stored.r) {
            ("running", None) => RecordState::Running,
            ("done", Some(outcome)) => RecordState::Done(outcome.check()?),
            ("interrupted", None) => RecordState::Interrupted,
            ("cancelled", None) => RecordState::Cancelled,
            ("acked", None) => RecordState::Acked,
            ("expired", None) => RecordState::Expired,
            (state, _) => {
                return Err(EntryError::field(
                    "s",
                    format!("state {} does not fit its fields", crate::quote::quoted(state)),
                ));
            }
        };
        if tool.is_none() && state != RecordState::Cancelled {
            return Err(EntryError::field("n", "only a cancelled call may lack a tool name"));
        }
        Ok(Self {
            owner,
            caller_origin: stored.c.into_owned(),
            wire_id,
            tool,
            state,
            started_at: stored.t0,
            updated_at: stored.t1,
        })
    }
}

/// A provider's note about its own records: they may lack calls received up to `horizon` (records were dropped
/// to respect the count limit, or the storage failed), so "never received" is not proven for those calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderMeta {
    pub(crate) owner: Owner,
    pub(crate) horizon: u64,
}

impl ProviderMeta {
    /// The page that owns the note.
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// Calls received up to this time may have been forgotten.
    pub fn horizon(&self) -> u64 {
        self.horizon
    }

    /// The key of the note: `webmcp:p:!<tab> <slot>`.
    pub fn key(&self) -> String {
        meta_key(&self.owner)
    }

    /// The stored form: compact JSON, `{"v":1,"o":{…},"h":<horizon>}`.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(80);
        let mut note = Object::open(&mut out);
        note.number("v", ENTRY_VERSION);
        write_owner(&mut note, "o", &self.owner);
        note.number("h", self.horizon).close();
        out
    }

    /// Decodes and checks a stored value; never panics, whatever `text` holds.
    pub fn decode(text: &str) -> Result<Self, EntryError> {
        let mut fields = decode_versioned(text)?;
        let owner = StoredOwner::read(&mut fields, "o");
        let horizon = fields.u64("h");
        fields.finish()?;
        Ok(Self { owner: owner.check()?, horizon })
    }
}

/// A provider record as stored, version aside (see [`ProviderEntry::encode`]).
struct StoredRecord<'a> {
    o: StoredOwner<'a>,
    c: Cow<'a, str>,
    w: Cow<'a, str>,
    n: Option<Cow<'a, str>>,
    s: Cow<'a, str>,
    t0: u64,
    t1: u64,
    r: Option<StoredToolOutcome<'a>>,
}

impl<'a> StoredRecord<'a> {
    fn read(mut fields: Fields<'a>) -> Result<Self, FieldError> {
        let record = Self {
            o: StoredOwner::read(&mut fields, "o"),
            c: fields.string("c"),
            w: fields.string("w"),
            n: fields.opt_string("n"),
            s: fields.string("s"),
            t0: fields.u64("t0"),
            t1: fields.u64("t1"),
            r: StoredToolOutcome::read(&mut fields, "r"),
        };
        fields.finish()?;
        Ok(record)
    }
}

/// A provider's answer: `{"ok":"<json>"}` or `{"e":{…}}`.
struct StoredToolOutcome<'a> {
    ok: Option<Cow<'a, str>>,
    e: Option<StoredError<'a>>,
}

impl<'a> StoredToolOutcome<'a> {
    fn read(record: &mut Fields<'a>, name: &str) -> Option<Self> {
        let mut fields = record.opt_object(name)?;
        let outcome = Self { ok: fields.opt_string("ok"), e: StoredError::read(&mut fields, "e") };
        record.nested(fields);
        Some(outcome)
    }

    fn check(self) -> Result<ToolOutcome, EntryError> {
        match (self.ok, self.e) {
            (Some(result), None) => stored_json(result)
                .map(|result| ToolOutcome::Completed { result })
                .ok_or_else(|| EntryError::field("r", "an outcome is a JSON result or an error")),
            (None, Some(error)) => Ok(ToolOutcome::Failed(error.check()?)),
            _ => Err(EntryError::field("r", "an outcome is a JSON result or an error")),
        }
    }
}
