//! The stored form of journal entries: compact JSON with a version field, decoded into checked values.
//!
//! Every decoder returns `Result` and checks each field, so an entry that a page script or another library
//! wrote under our keys is discarded with a warning rather than trusted. Whatever the journals write, they can
//! read back: the checks here are the ones `start`, `on_response` and `on_finish` apply before writing.
//! Any change to a stored form must bump [`ENTRY_VERSION`].

pub(crate) mod consumer;
pub(crate) mod provider;
pub(crate) mod read;

use std::borrow::Cow;

use crate::envelope::json::Raw;
use thiserror::Error;

pub use consumer::{AckState, CallPhase, ConsumerEntry, ProviderWindow};
pub use provider::{ProviderEntry, ProviderMeta, RecordState};

use self::read::Fields;
use super::owner::Owner;
use crate::envelope::JsonText;
use crate::envelope::encode::Object;
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

/// Reads `text` as an entry of the current version: its members (see [`read`]), after its version `"v"`, which is
/// taken out. Tells another version, or a value that is not an entry, from a malformed entry.
fn decode_versioned(text: &str) -> Result<Fields<'_>, EntryError> {
    if !text.trim_start().starts_with('{') {
        return Err(EntryError::NotAnEntry(NOT_AN_OBJECT.into()));
    }
    let mut fields = Fields::parse(text).map_err(|e| EntryError::NotAnEntry(format!("not JSON: {e}")))?;
    // A version given twice is no version.
    let Ok(Some(version)) = fields.take("v") else {
        return Err(EntryError::NotAnEntry(NOT_AN_OBJECT.into()));
    };
    match read::whole_number(version) {
        Some(ENTRY_VERSION) => Ok(fields),
        Some(found) => Err(EntryError::OtherVersion { found }),
        None => Err(EntryError::NotAnEntry(format!("its version is {}", version.get()))),
    }
}

const NOT_AN_OBJECT: &str = "not a JSON object with a version \"v\"";

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

/// A record's owner: `{"t":"<tab>","s":"<slot>"}`.
struct StoredOwner<'a> {
    t: Cow<'a, str>,
    s: Cow<'a, str>,
}

impl<'a> StoredOwner<'a> {
    /// Reads the owner in the field `name` of `record`.
    fn read(record: &mut Fields<'a>, name: &str) -> Self {
        let mut fields = record.object(name);
        let owner = Self { t: fields.string("t"), s: fields.string("s") };
        record.nested(fields);
        owner
    }

    fn check(&self) -> Result<Owner, EntryError> {
        Owner::new(self.t.as_ref(), self.s.as_ref()).map_err(|e| EntryError::field("o", e.to_string()))
    }
}

/// Writes `owner` as the value of `key`.
fn write_owner(object: &mut Object<'_>, key: &str, owner: &Owner) {
    Object::open(object.key(key)).string("t", owner.tab()).string("s", owner.slot()).close();
}

/// A tool's error: `{"k":"<code>","m":"<message>"}`, with `"n"` (its name), `"st"` (a status) and `"ra"` (retry
/// after: a number, or a string holding one) when it has them.
struct StoredError<'a> {
    k: Cow<'a, str>,
    m: Cow<'a, str>,
    n: Option<Cow<'a, str>>,
    st: Option<u64>,
    ra: Option<Raw<'a>>,
}

/// Writes `error` as the value of `key`.
fn write_error(object: &mut Object<'_>, key: &str, error: &ToolError) {
    let mut stored = Object::open(object.key(key));
    stored.string("k", error.kind.as_str()).string("m", &error.message);
    if let Some(name) = error.name {
        stored.string("n", name);
    }
    if let Some(status) = error.status {
        stored.number("st", u64::from(status));
    }
    // A number is written as serde_json writes an `f64` (`30.0`, `1.5`), as it always was.
    if let Some(retry_after) = error.retry_after.as_ref().map(RetryAfter::to_json).filter(|v| !v.is_null()) {
        stored.raw("ra", &crate::envelope::encode::json_text_of(&retry_after));
    }
    stored.close();
}

impl<'a> StoredError<'a> {
    /// Reads the error in the field `name` of `outer`, if there is one.
    fn read(outer: &mut Fields<'a>, name: &str) -> Option<Self> {
        let mut fields = outer.opt_object(name)?;
        let error = Self {
            k: fields.string("k"),
            m: fields.string("m"),
            n: fields.opt_string("n"),
            st: fields.opt_u64("st"),
            ra: fields.opt_raw("ra"),
        };
        outer.nested(fields);
        Some(error)
    }

    fn check(self) -> Result<ToolError, EntryError> {
        let kind = ErrorKind::from_wire(&self.k);
        if kind.as_str() != self.k {
            return Err(EntryError::field("k", format!("unknown error code {}", crate::quote::quoted(&self.k))));
        }
        if self.m.chars().count() > MAX_ERROR_MESSAGE_CHARS {
            return Err(EntryError::field("m", format!("longer than {MAX_ERROR_MESSAGE_CHARS} characters")));
        }
        let name = match self.n {
            None => None,
            Some(n) => Some(standard_error_name(&n).ok_or_else(|| {
                EntryError::field("n", format!("{} is not a standard error name", crate::quote::quoted(&n)))
            })?),
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
            Some(ra) => {
                let value = crate::envelope::parse_json(ra.get()).ok();
                let retry_after = value.as_ref().and_then(RetryAfter::from_json);
                Some(retry_after.ok_or_else(|| EntryError::field("ra", format!("{} is not a number >= 0", ra.get())))?)
            }
        };
        Ok(ToolError { kind, message: self.m.into_owned(), name, status, retry_after })
    }
}

#[cfg(test)]
mod tests;
