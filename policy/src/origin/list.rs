//! [`OriginList`]: the parsed form of `expose-tools-to`, `fromOrigins` and a tool's `exposedTo`.

use std::fmt;
use std::sync::Arc;

use crate::sorted_map::SortedSet;

use super::{Origin, OriginListError, OriginListWarning, OriginPattern, ParseOptions, UrlParser, WildcardOrigin};

/// A list of origins, canonical and deduplicated, that answers "is this origin allowed?" fast.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::OriginList;
///
/// let list = OriginList::parse("https://shop.example, https://PAY.example:443/")?;
/// assert!(list.allows("https://pay.example")); // an event.origin, as the browser serializes it
/// assert!(!list.allows("https://evil.example"));
/// assert_eq!(list.to_string(), "https://shop.example,https://pay.example");
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
///
/// [`allows`](Self::allows) is exact on the canonical text: a binary search of the exact entries (ten comparisons
/// for a thousand), then one slice comparison per wildcard; it allocates nothing. Each canonical string is stored
/// once, shared by the ordered entries and the sorted table. (The table was a hash set, about 25 ns whatever the
/// size; sorted, a lookup takes 6 ns with one entry and 110 ns with a thousand (criterion bench `origins`), and the
/// hash set's code was 2 KB of the download, gzipped: issue 24.)
#[derive(Clone, Default)]
pub struct OriginList {
    /// The entries in the order written, duplicates merged.
    entries: Vec<OriginPattern>,
    /// The exact entries' canonical text.
    exact: SortedSet<Arc<str>>,
    /// The wildcard entries, in order.
    wildcards: Vec<WildcardOrigin>,
    /// What was accepted but may deserve a fix.
    warnings: Vec<OriginListWarning>,
}

impl OriginList {
    /// The list that allows nothing.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Parses a comma-separated list (the `expose-tools-to` attribute form) without wildcards.
    ///
    /// Whitespace around entries is ignored; an empty or all-whitespace text is the empty list. The error names
    /// the first refused entry, its position from 1, and what to write instead. The URL parser is the `url` crate
    /// (cargo feature `url`); [`parse_using`](Self::parse_using) takes another.
    #[cfg(feature = "url")]
    pub fn parse(text: &str) -> Result<Self, OriginListError> {
        Self::parse_using(text, ParseOptions::default(), &super::UrlCrate)
    }

    /// Parses a comma-separated list with `options`, with the `url` crate as the URL parser.
    #[cfg(feature = "url")]
    pub fn parse_with(text: &str, options: ParseOptions) -> Result<Self, OriginListError> {
        Self::parse_using(text, options, &super::UrlCrate)
    }

    /// Builds a list from separate entries (the JS array form); entry N of an error is the item at index N - 1.
    /// An empty iterator is the empty list; an empty item is an error. The URL parser is the `url` crate.
    #[cfg(feature = "url")]
    pub fn from_entries<I>(entries: I, options: ParseOptions) -> Result<Self, OriginListError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        Self::from_entries_using(entries, options, &super::UrlCrate)
    }

    /// Parses a comma-separated list with `options` and `parser` as the URL parser: the rules and the errors are
    /// the same whichever parser it is (the `interpane` crate passes the browser's `new URL()`).
    ///
    /// ```
    /// # #[cfg(feature = "url")] {
    /// use interpane_policy::{OriginList, ParseOptions, origin::UrlCrate};
    ///
    /// let list = OriginList::parse_using("https://Shop.example:443", ParseOptions::default(), &UrlCrate)?;
    /// assert_eq!(list.to_string(), "https://shop.example");
    /// # }
    /// # Ok::<(), interpane_policy::OriginListError>(())
    /// ```
    pub fn parse_using(text: &str, options: ParseOptions, parser: &dyn UrlParser) -> Result<Self, OriginListError> {
        if text.trim().is_empty() {
            return Ok(Self::empty());
        }
        Self::from_entries_using(text.split(','), options, parser)
    }

    /// `from_entries` (feature `url`) with `parser` as the URL parser.
    pub fn from_entries_using<I>(
        entries: I,
        options: ParseOptions,
        parser: &dyn UrlParser,
    ) -> Result<Self, OriginListError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut list = Self::empty();
        // Where each canonical entry was first written, to report duplicates.
        let mut first_seen: Vec<usize> = Vec::new();
        for (index, entry) in entries.into_iter().enumerate() {
            let entry = entry.as_ref();
            let pattern = OriginPattern::parse_using(entry, options, parser)
                .map_err(|problem| OriginListError::new(index, entry, problem))?;
            if let Some(earlier) = list.position_of(&pattern) {
                list.warnings.push(OriginListWarning::Duplicate {
                    index,
                    entry: entry.trim().to_owned(),
                    first_index: first_seen[earlier],
                    canonical: pattern.as_str().to_owned(),
                });
                continue;
            }
            list.push(pattern);
            first_seen.push(index);
        }
        list.warn_covered(&first_seen);
        Ok(list)
    }

    /// Where an entry equal to `pattern` is, if the list has one: a binary search rules out most exact entries.
    fn position_of(&self, pattern: &OriginPattern) -> Option<usize> {
        if let OriginPattern::Exact(origin) = pattern
            && !self.exact.contains(origin.as_str())
        {
            return None;
        }
        self.entries.iter().position(|entry| entry == pattern)
    }

    fn push(&mut self, pattern: OriginPattern) {
        match &pattern {
            OriginPattern::Exact(origin) => {
                self.exact.insert(Arc::clone(origin.shared()));
            }
            OriginPattern::Wildcard(wildcard) => self.wildcards.push(wildcard.clone()),
        }
        self.entries.push(pattern);
    }

    /// Adds a warning for each exact entry that a wildcard of the list already allows.
    fn warn_covered(&mut self, first_seen: &[usize]) {
        for (exact_at, entry) in self.entries.iter().enumerate() {
            let OriginPattern::Exact(origin) = entry else {
                continue;
            };
            let covering = self.entries.iter().enumerate().find(|(_, p)| p.is_wildcard() && p.matches(origin.as_str()));
            if let Some((wildcard_at, wildcard)) = covering {
                self.warnings.push(OriginListWarning::Covered {
                    index: first_seen[exact_at],
                    canonical: origin.as_str().to_owned(),
                    wildcard_index: first_seen[wildcard_at],
                    wildcard: wildcard.as_str().to_owned(),
                });
            }
        }
    }

    /// Whether `origin` (canonical, as the browser reports it in `event.origin`) is allowed. `"null"` never is.
    /// Text that is not canonical (`https://PAY.example`) matches nothing.
    pub fn allows(&self, origin: &str) -> bool {
        self.exact.contains(origin) || self.wildcards.iter().any(|wildcard| wildcard.matches(origin))
    }

    /// What the list accepted but may deserve a fix: merged duplicates, exact origins a wildcard already allows.
    pub fn warnings(&self) -> &[OriginListWarning] {
        &self.warnings
    }

    /// Whether the list allows nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of entries, duplicates merged.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether any entry is a wildcard.
    pub fn has_wildcards(&self) -> bool {
        !self.wildcards.is_empty()
    }

    /// The canonical entries, in the order written.
    pub fn iter(&self) -> std::slice::Iter<'_, OriginPattern> {
        self.entries.iter()
    }
}

impl<'a> IntoIterator for &'a OriginList {
    type Item = &'a OriginPattern;
    type IntoIter = std::slice::Iter<'a, OriginPattern>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Two lists are equal when they have the same canonical entries in the same order (warnings aside).
impl PartialEq for OriginList {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Eq for OriginList {}

/// The canonical form: entries joined by `,` without spaces. It parses back to an equal list (with wildcards
/// enabled when the list has any).
impl fmt::Display for OriginList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, entry) in self.entries.iter().enumerate() {
            if at > 0 {
                f.write_str(",")?;
            }
            f.write_str(entry.as_str())?;
        }
        Ok(())
    }
}

impl fmt::Debug for OriginList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(OriginPattern::as_str)).finish()
    }
}

/// Parses with [`OriginList::parse`] (no wildcards).
#[cfg(feature = "url")]
impl std::str::FromStr for OriginList {
    type Err = OriginListError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// The list of one exact origin, parsed already (no URL parser needed).
impl From<Origin> for OriginList {
    fn from(origin: Origin) -> Self {
        let mut list = Self::empty();
        list.push(OriginPattern::Exact(origin));
        list
    }
}

#[cfg(all(test, feature = "url"))]
mod tests {
    use super::*;
    use crate::origin::OriginError;

    #[test]
    fn a_wildcard_error_is_the_same_through_every_door() {
        let error = OriginList::parse("https://*.example.com").unwrap_err();
        assert_eq!(error.problem(), &OriginError::WildcardsDisabled);
        assert_eq!(
            OriginPattern::parse("https://*.example.com", ParseOptions::default()),
            Err(OriginError::WildcardsDisabled)
        );
    }
}
