//! Which page wrote a journal entry: its tab and its frame slot.

use std::fmt;

use thiserror::Error;

/// The longest tab id accepted, in characters.
pub const MAX_TAB_ID_CHARS: usize = 64;
/// The longest frame slot accepted, in characters.
pub const MAX_SLOT_CHARS: usize = 256;

/// Why a tab id or a frame slot was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OwnerError {
    /// The tab id is empty, too long, or holds a character other than letters, digits, `_` and `-`.
    #[error("tab id {} is not 1 to 64 characters of letters, digits, _ and -: make it from random bytes", crate::quote::quoted(.0))]
    BadTab(String),
    /// The slot is empty, too long, or holds a character other than letters, digits, `/`, `_`, `.` and `-`.
    #[error("frame slot {} is not 1 to 256 characters of letters, digits, / _ . and - (such as \"top/1/0\")", crate::quote::quoted(.0))]
    BadSlot(String),
}

/// The page that owns journal entries: a tab id (random, renewed in a duplicated tab) and a frame slot (the
/// frame's path from the top window, such as `top/1/0`). A journal resumes and answers only its owner's entries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Owner {
    tab: String,
    slot: String,
}

impl Owner {
    /// Checks both parts and makes an owner.
    pub fn new(tab: impl Into<String>, slot: impl Into<String>) -> Result<Self, OwnerError> {
        let (tab, slot) = (tab.into(), slot.into());
        if !is_token(&tab, MAX_TAB_ID_CHARS, |b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')) {
            return Err(OwnerError::BadTab(tab));
        }
        if !is_token(&slot, MAX_SLOT_CHARS, |b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'.' | b'-')) {
            return Err(OwnerError::BadSlot(slot));
        }
        Ok(Self { tab, slot })
    }

    /// The tab id.
    pub fn tab(&self) -> &str {
        &self.tab
    }

    /// The frame slot.
    pub fn slot(&self) -> &str {
        &self.slot
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.tab, self.slot)
    }
}

fn is_token(text: &str, max: usize, ok: fn(u8) -> bool) -> bool {
    !text.is_empty() && text.len() <= max && text.bytes().all(ok)
}
