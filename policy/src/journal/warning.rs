//! What a journal tells the console: entries it could not use, and storage that stopped working.

use std::fmt;

use super::entry::EntryError;
use super::store::StoreError;

/// A problem the bridge reports once on the console. None of them stops the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JournalWarning {
    /// A stored value under a journal key could not be used, and was removed.
    Discarded {
        /// Its key.
        key: String,
        /// Why it could not be used.
        error: EntryError,
    },
    /// An entry written in another format version (by another build of the bridge) was left alone.
    OtherVersion {
        /// Its key.
        key: String,
        /// Its version.
        found: u64,
    },
    /// A write failed even after pruning; the journal now lives in memory only, for the rest of this page.
    StorageLost {
        /// The last write error.
        error: StoreError,
        /// Whether a provider could leave a note that tells later pages its records are incomplete. When it
        /// could not, it refuses new calls until a write succeeds again. Always true for a consumer journal.
        noted: bool,
    },
}

impl fmt::Display for JournalWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Discarded { key, error } => {
                write!(f, "interpane: discarded the journal entry {}: {error}", crate::quote::quoted(key))
            }
            Self::OtherVersion { key, found } => write!(
                f,
                "interpane: left the journal entry {} alone: it belongs to format {found}, written by \
                 another version of the bridge",
                crate::quote::quoted(key)
            ),
            Self::StorageLost { error, noted: true } => write!(
                f,
                "interpane: {error}. Calls are now journaled in memory only: after a reload of this page, \
                 calls made before it cannot be resumed or proven to have run"
            ),
            Self::StorageLost { error, noted: false } => write!(
                f,
                "interpane: {error}. Calls are now journaled in memory only, and new calls to this page are \
                 refused until its storage accepts a write, since a later page could not tell that they ran"
            ),
        }
    }
}
