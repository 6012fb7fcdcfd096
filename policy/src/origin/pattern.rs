//! One entry of an origin list: an exact [`Origin`] or a subdomain [`WildcardOrigin`], and the options that
//! decide which entries are accepted.

use std::fmt;
use std::sync::Arc;

use super::entry::parse_pattern;
use super::host::is_label_sequence;
use super::{Origin, OriginError, UrlParser};

/// How an origin list is parsed. `ParseOptions::default()` is the strict form: no wildcards.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::{OriginList, ParseOptions};
///
/// let list = OriginList::parse_with("https://*.example.com", ParseOptions::default().allow_wildcards(true))?;
/// assert!(list.allows("https://shop.example.com"));
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Accept subdomain wildcards such as `https://*.example.com` (`allowWildcards` in JS). Off by default.
    pub allow_wildcards: bool,
}

impl ParseOptions {
    /// These options with wildcards accepted (`true`) or refused (`false`).
    #[must_use]
    pub const fn allow_wildcards(mut self, allow: bool) -> Self {
        self.allow_wildcards = allow;
        self
    }
}

/// A subdomain wildcard such as `https://*.example.com:8443`: it allows every origin with the same scheme and
/// port whose host ends with `.example.com` after at least one more label, and never `https://example.com`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WildcardOrigin {
    /// The canonical text, such as `https://*.example.com:8443`.
    serialized: Arc<str>,
    /// Where the `*` is in `serialized`.
    star: usize,
}

impl WildcardOrigin {
    /// Builds a wildcard from canonical parts (checked by the caller): `base` is the domain after `*.`.
    pub(crate) fn from_parts(scheme: &str, base: &str, port: Option<u16>) -> Self {
        let mut text = format!("{scheme}://*.{base}");
        if let Some(port) = port {
            text.push(':');
            text.push_str(&port.to_string());
        }
        Self { star: scheme.len() + "://".len(), serialized: Arc::from(text) }
    }

    /// The canonical text, such as `https://*.example.com`.
    pub fn as_str(&self) -> &str {
        &self.serialized
    }

    /// `"https"` or `"http"`.
    pub fn scheme(&self) -> &str {
        self.serialized.get(..self.star - "://".len()).unwrap_or_default()
    }

    /// The domain under which subdomains are allowed, such as `example.com`.
    pub fn base(&self) -> &str {
        let after = self.serialized.get(self.star + "*.".len()..).unwrap_or_default();
        after.rsplit_once(':').map_or(after, |(base, _)| base)
    }

    /// Whether `origin` (canonical, as in `event.origin`) is a subdomain origin this wildcard allows. Allocates
    /// nothing: it slices `origin` around the wildcard's fixed prefix and suffix.
    pub fn matches(&self, origin: &str) -> bool {
        let (prefix, suffix) = (&self.serialized[..self.star], &self.serialized[self.star + 1..]);
        origin.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(suffix)).is_some_and(is_label_sequence)
    }
}

impl fmt::Display for WildcardOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.serialized)
    }
}

impl fmt::Debug for WildcardOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WildcardOrigin({:?})", &*self.serialized)
    }
}

/// One canonical entry of an origin list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OriginPattern {
    /// Exactly this origin.
    Exact(Origin),
    /// The subdomain origins of a domain (only when wildcards are enabled).
    Wildcard(WildcardOrigin),
}

impl OriginPattern {
    /// Parses one entry (surrounding whitespace ignored) with the rules of [`OriginList`](super::OriginList),
    /// with the `url` crate as the URL parser.
    #[cfg(feature = "url")]
    pub fn parse(entry: &str, options: ParseOptions) -> Result<Self, OriginError> {
        Self::parse_using(entry, options, &super::UrlCrate)
    }

    /// `parse` (feature `url`) with `parser` as the URL parser (the browser's, in the `interpane` crate).
    pub fn parse_using(entry: &str, options: ParseOptions, parser: &dyn UrlParser) -> Result<Self, OriginError> {
        parse_pattern(entry.trim(), options, parser)
    }

    /// The canonical text of the entry.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Exact(origin) => origin.as_str(),
            Self::Wildcard(wildcard) => wildcard.as_str(),
        }
    }

    /// Whether this entry allows `origin` (canonical, as in `event.origin`).
    pub fn matches(&self, origin: &str) -> bool {
        match self {
            Self::Exact(exact) => exact.as_str() == origin,
            Self::Wildcard(wildcard) => wildcard.matches(origin),
        }
    }

    /// Whether this entry is a wildcard.
    pub fn is_wildcard(&self) -> bool {
        matches!(self, Self::Wildcard(_))
    }
}

impl fmt::Display for OriginPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
