//! The stored form of journal entries: compact JSON with a version field, decoded into checked values.
//!
//! Every decoder returns `Result` and checks each field, so an entry that a page script or another library
//! wrote under our keys is discarded with a warning rather than trusted. Whatever the journals write, they can
//! read back: the checks here are the ones `start`, `on_response` and `on_finish` apply before writing.
//! Any change to a stored form must bump [`ENTRY_VERSION`].

pub(crate) mod consumer;
pub(crate) mod provider;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

pub use consumer::{AckState, CallPhase, ConsumerEntry, ProviderWindow};
pub use provider::{ProviderEntry, ProviderMeta, RecordState};

use super::owner::Owner;
use crate::envelope::JsonText;
use crate::outcome::{ErrorKind, MAX_ERROR_MESSAGE_CHARS, RetryAfter, ToolError, standard_error_name};

/// The format version written in every entry (`"v"`).
pub const ENTRY_VERSION: u64 = 1;
/// The prefix of consumer entry keys: `webmcp:c:<wire id>`. The `webmcp:` keys kept their names when the project
/// was renamed (interpane): a page that upgrades keeps its journals, so no call runs twice across the upgrade.
pub const CONSUMER_PREFIX: &str = "webmcp:c:";
/// The prefix of provider entry keys: `webmcp:p:<caller origin> <wire id>`, and `webmcp:p:!<tab> <slot>` for a
/// provider's own notes.
pub const PROVIDER_PREFIX: &str = "webmcp:p:";
/// The longest origin text accepted in an entry, in bytes.
pub const MAX_ORIGIN_BYTES: usize = 2048;

/// Why a stored value is not a journal entry this bridge can use.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EntryError {
    /// The value is not a JSON object with a numeric `"v"`.
    #[error("it is not a journal entry ({0})")]
    NotAnEntry(String),
    /// The entry was written by another format version.
    #[error("it was written in journal format {found}, and this bridge reads format {ENTRY_VERSION}")]
    OtherVersion {
        /// The version found.
        found: u64,
    },
    /// The entry has this version but its fields do not decode.
    #[error("it is malformed: {0}")]
    Malformed(String),
    /// A field decodes but its value is out of range.
    #[error("its field `{field}` is out of range: {problem}")]
    BadField {
        /// The stored field name.
        field: &'static str,
        /// What is wrong, in words.
        problem: String,
    },
    /// The key under which the entry was found does not match what the entry says.
    #[error("its key does not match its content")]
    KeyMismatch,
}

impl EntryError {
    pub(crate) fn field(field: &'static str, problem: impl Into<String>) -> Self {
        Self::BadField { field, problem: problem.into() }
    }
}

#[derive(Deserialize)]
struct VersionProbe {
    v: Value,
}

/// A stored form, which carries its format version.
trait Versioned {
    fn version(&self) -> u64;
}

/// Decodes `text` as a current-version entry of type `T`, telling an other-version entry from a malformed one.
/// A valid entry is parsed once; only a refused one is parsed again, to say why.
fn decode_versioned<'de, T: Deserialize<'de> + Versioned>(text: &'de str) -> Result<T, EntryError> {
    if !text.trim_start().starts_with('{') {
        return Err(EntryError::NotAnEntry(NOT_AN_OBJECT.into()));
    }
    match serde_json::from_str::<T>(text) {
        Ok(stored) if stored.version() == ENTRY_VERSION => Ok(stored),
        Ok(stored) => Err(EntryError::OtherVersion { found: stored.version() }),
        Err(error) => Err(why_refused(text, &error)),
    }
}

const NOT_AN_OBJECT: &str = "not a JSON object with a version \"v\"";

/// Why `text`, which did not decode as a current entry, was refused: not JSON, no version, another version,
/// or `error` in an entry of this version.
fn why_refused(text: &str, error: &serde_json::Error) -> EntryError {
    let probe: VersionProbe = match serde_json::from_str(text) {
        Ok(probe) => probe,
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            return EntryError::NotAnEntry(NOT_AN_OBJECT.into());
        }
        Err(e) => return EntryError::NotAnEntry(format!("not JSON: {e}")),
    };
    match probe.v.as_u64() {
        Some(ENTRY_VERSION) => EntryError::Malformed(error.to_string()),
        Some(found) => EntryError::OtherVersion { found },
        None => EntryError::NotAnEntry(format!("its version is {}", probe.v)),
    }
}

fn encode<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs of strings, integers and JSON values cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// The deepest nesting accepted in stored JSON text: serde_json's own limit, which every text a journal writes
/// was checked against when it was made.
const MAX_STORED_DEPTH: usize = 128;

/// Stored `text` as a [`JsonText`], if it is one complete JSON value: how arguments and results read back from
/// storage (where they may have been damaged) are checked, once, when the journal opens.
/// An unescaped (owned) text is kept without a copy.
pub(crate) fn stored_json(text: Cow<'_, str>) -> Option<JsonText> {
    match text {
        Cow::Borrowed(text) => JsonText::parse_within(text, usize::MAX, MAX_STORED_DEPTH).ok(),
        Cow::Owned(text) => JsonText::parse_owned_within(text, usize::MAX, MAX_STORED_DEPTH).ok(),
    }
}

/// Whether `text` can be an origin in an entry and a key: printable ASCII without spaces, not starting with `!`,
/// and not the serialization of an opaque origin, `"null"` (opaque origins cannot be told apart, and the bridge never
/// answers them).
pub(crate) fn is_origin_text(text: &str) -> bool {
    !text.is_empty()
        && text != crate::origin::OPAQUE_SERIALIZATION
        && text.len() <= MAX_ORIGIN_BYTES
        && !text.starts_with('!')
        && text.bytes().all(|b| b.is_ascii_graphic())
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredOwner<'a> {
    t: Cow<'a, str>,
    s: Cow<'a, str>,
}

impl<'a> StoredOwner<'a> {
    fn of(owner: &'a Owner) -> Self {
        Self { t: Cow::Borrowed(owner.tab()), s: Cow::Borrowed(owner.slot()) }
    }

    fn check(&self) -> Result<Owner, EntryError> {
        Owner::new(self.t.as_ref(), self.s.as_ref()).map_err(|e| EntryError::field("o", e.to_string()))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredError<'a> {
    k: Cow<'a, str>,
    m: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    st: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ra: Option<Value>,
}

impl<'a> StoredError<'a> {
    fn of(error: &'a ToolError) -> Self {
        Self {
            k: Cow::Borrowed(error.kind.as_str()),
            m: Cow::Borrowed(&error.message),
            n: error.name.map(Cow::Borrowed),
            st: error.status.map(u64::from),
            ra: error.retry_after.as_ref().map(RetryAfter::to_json).filter(|v| !v.is_null()),
        }
    }

    fn check(self) -> Result<ToolError, EntryError> {
        let kind = ErrorKind::from_wire(&self.k);
        if kind.as_str() != self.k {
            return Err(EntryError::field("k", format!("unknown error code {:?}", self.k)));
        }
        if self.m.chars().count() > MAX_ERROR_MESSAGE_CHARS {
            return Err(EntryError::field("m", format!("longer than {MAX_ERROR_MESSAGE_CHARS} characters")));
        }
        let name = match self.n {
            None => None,
            Some(n) => Some(
                standard_error_name(&n)
                    .ok_or_else(|| EntryError::field("n", format!("{n:?} is not a standard error name")))?,
            ),
        };
        let status = match self.st {
            None => None,
            Some(s @ 100..=599) => Some(s as u16),
            Some(s) => {
                return Err(EntryError::field("st", format!("{s} is not from 100 to 599")));
            }
        };
        let retry_after = match self.ra {
            None => None,
            Some(ra) => Some(
                RetryAfter::from_json(&ra)
                    .ok_or_else(|| EntryError::field("ra", format!("{ra} is not a number >= 0")))?,
            ),
        };
        Ok(ToolError { kind, message: self.m.into_owned(), name, status, retry_after })
    }
}

#[cfg(test)]
mod tests;
