//! Validated identifiers that travel in messages: request ids and tool names.

use std::fmt;

use thiserror::Error;

/// Why a request id or a tool name was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IdError {
    /// The text is empty.
    #[error("{what} is empty: it needs 1 to {max} characters")]
    Empty {
        /// `"requestId"` or `"tool name"`.
        what: &'static str,
        /// The longest accepted length.
        max: usize,
    },
    /// The text is longer than allowed.
    #[error("{what} is {len} characters long: at most {max} are allowed")]
    TooLong {
        /// `"requestId"` or `"tool name"`.
        what: &'static str,
        /// The length that was given.
        len: usize,
        /// The longest accepted length.
        max: usize,
    },
    /// The text holds a character outside the allowed set.
    #[error("{what} holds {} at position {position}: only {allowed} are allowed", crate::quote::quoted_char(*.found))]
    BadCharacter {
        /// `"requestId"` or `"tool name"`.
        what: &'static str,
        /// The first refused character.
        found: char,
        /// Its position, counted in characters from 0.
        position: usize,
        /// The allowed set, in words.
        allowed: &'static str,
    },
}

fn check(text: &str, what: &'static str, allowed: &'static str, ok: fn(u8) -> bool) -> Result<(), IdError> {
    const MAX: usize = 128;
    if text.is_empty() {
        return Err(IdError::Empty { what, max: MAX });
    }
    if let Some((position, found)) = text.chars().enumerate().find(|(_, c)| !c.is_ascii() || !ok(*c as u8)) {
        return Err(IdError::BadCharacter { what, found, position, allowed });
    }
    if text.len() > MAX {
        return Err(IdError::TooLong { what, len: text.len(), max: MAX });
    }
    Ok(())
}

/// The id that pairs a request with its response: 1 to 128 characters of `[A-Za-z0-9_.:-]`.
///
/// For a tool call it is also the call's identity on the wire: the provider's journal keys calls by the caller's
/// origin and this id, so a repeated request with the same id never runs the tool twice.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(String);

impl RequestId {
    /// Checks `text` and wraps it.
    pub fn new(text: impl Into<String>) -> Result<Self, IdError> {
        let text = text.into();
        check(&text, "requestId", "letters, digits and _ . : -", |b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-')
        })?;
        Ok(Self(text))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id this crate made from its own alphabet (see `session::random`), taken without a check.
    pub(crate) fn made(text: String) -> Self {
        debug_assert!(Self::new(text.clone()).is_ok());
        Self(text)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tool name as the WebMCP draft allows it: 1 to 128 characters of `[A-Za-z0-9_.-]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolName(String);

impl ToolName {
    /// Checks `text` and wraps it.
    pub fn new(text: impl Into<String>) -> Result<Self, IdError> {
        let text = text.into();
        check(&text, "tool name", "letters, digits and _ . -", |b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
        })?;
        Ok(Self(text))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids() {
        assert!(RequestId::new("a").is_ok());
        assert!(RequestId::new("call_01:x.y-z").is_ok());
        assert!(RequestId::new("x".repeat(128)).is_ok());
        assert_eq!(RequestId::new("x".repeat(129)), Err(IdError::TooLong { what: "requestId", len: 129, max: 128 }));
        assert_eq!(RequestId::new(""), Err(IdError::Empty { what: "requestId", max: 128 }));
        assert!(matches!(RequestId::new("a b"), Err(IdError::BadCharacter { found: ' ', position: 1, .. })));
        assert!(matches!(RequestId::new("é"), Err(IdError::BadCharacter { found: 'é', position: 0, .. })));
    }

    #[test]
    fn tool_names() {
        assert!(ToolName::new("add_to_cart").is_ok());
        assert!(ToolName::new("v1.search-products").is_ok());
        assert!(matches!(ToolName::new("a:b"), Err(IdError::BadCharacter { found: ':', .. })));
        assert_eq!(ToolName::new("").unwrap_err().to_string(), "tool name is empty: it needs 1 to 128 characters");
    }
}
