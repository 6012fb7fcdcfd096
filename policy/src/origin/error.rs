//! Why an origin entry was refused, and what a list reports without refusing it.

use std::fmt;

use thiserror::Error;

/// What is wrong with one entry of an origin list. Every message says what to write instead.
///
/// [`OriginListError`] adds the entry's text and position; [`OriginError::kind`] gives a category to branch on.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OriginError {
    /// The entry is `*`.
    #[error("a wildcard cannot be used; list the origins, such as https://widget.example")]
    AnyOrigin,
    /// The entry is `null`, the opaque origin.
    #[error(
        "an opaque origin (null) cannot be named: every sandboxed frame and data: URL has it; list real origins, \
         such as https://widget.example"
    )]
    NullOrigin,
    /// The entry is empty or only whitespace (`a,,b`, a trailing comma, an empty array item).
    #[error("the entry is empty; remove it (and its extra comma), or write an origin such as https://widget.example")]
    Empty,
    /// The entry holds whitespace or a control character inside it.
    #[error(
        "it holds whitespace or a control character; separate origins with commas, such as \
         https://a.example,https://b.example"
    )]
    Whitespace,
    /// One array item holds a comma.
    #[error(
        "it holds a comma; put each origin in its own item, such as [\"https://a.example\", \"https://b.example\"]"
    )]
    Comma,
    /// The entry does not start with `https://` or `http://`.
    #[error("an origin starts with its scheme and ://{}", did_you_mean(suggestion.as_deref(), ", such as https://widget.example"))]
    MissingScheme {
        /// The origin the entry probably meant, when one can be guessed.
        suggestion: Option<String>,
    },
    /// The entry is not a URL at all.
    #[error("it is not a URL ({reason}); write an origin such as https://widget.example")]
    NotAUrl {
        /// What the URL parser found wrong.
        reason: String,
    },
    /// The scheme is neither `https` nor `http`.
    #[error(
        "the scheme {scheme}: cannot be listed; write an https origin (http only for localhost, *.localhost, \
         127.0.0.0/8 and [::1]), such as https://widget.example"
    )]
    UnsupportedScheme {
        /// The scheme, lowercase, without `:`.
        scheme: String,
    },
    /// The entry has a user name or a password.
    #[error("origins have no user name or password: did you mean {suggestion}?")]
    Credentials {
        /// The entry without them.
        suggestion: String,
    },
    /// The entry has a path other than one `/`.
    #[error("origins have no path: did you mean {suggestion}?")]
    Path {
        /// The entry without it.
        suggestion: String,
    },
    /// The entry has a query (`?`).
    #[error("origins have no query: did you mean {suggestion}?")]
    Query {
        /// The entry without it.
        suggestion: String,
    },
    /// The entry has a fragment (`#`).
    #[error("origins have no fragment: did you mean {suggestion}?")]
    Fragment {
        /// The entry without it.
        suggestion: String,
    },
    /// `http` on a host that is not potentially trustworthy.
    #[error("http is only allowed for localhost, *.localhost, 127.0.0.0/8 and [::1]: did you mean {suggestion}?")]
    InsecureHttp {
        /// The same origin over https.
        suggestion: String,
    },
    /// The host is not a valid domain name or IP address.
    #[error("the host is not valid ({reason}); write a domain name or an IP address, such as https://widget.example")]
    InvalidHost {
        /// What is wrong with it.
        reason: String,
    },
    /// The port is not a number from 1 to 65535.
    #[error("the port is not valid; write a number from 1 to 65535, such as https://widget.example:8443")]
    InvalidPort,
    /// A well-formed wildcard, but wildcards were not enabled.
    #[error(
        "wildcards are off; list the origins, or enable wildcards with `allowWildcards: true` in JS \
         (`ParseOptions::default().allow_wildcards(true)` in Rust)"
    )]
    WildcardsDisabled,
    /// A wildcard directly on a public suffix, such as `https://*.com` or `https://*.co.uk`.
    #[error(
        "a wildcard cannot cover a public suffix ({suffix}), where anyone can register a name; \
         put it on a domain you control, such as https://*.widget.example"
    )]
    WildcardOnPublicSuffix {
        /// The suffix the wildcard would have covered.
        suffix: String,
    },
    /// A `*` anywhere but as the whole first label of the host of an origin.
    #[error(
        "a wildcard must be the whole first label of the host, after the scheme{}",
        did_you_mean(suggestion.as_deref(), ", such as https://*.widget.example")
    )]
    MalformedWildcard {
        /// The wildcard the entry probably meant, when one can be guessed.
        suggestion: Option<String>,
    },
}

/// `": did you mean X?"` when there is a guess, else the `fallback` text.
fn did_you_mean(suggestion: Option<&str>, fallback: &str) -> String {
    match suggestion {
        Some(suggestion) => format!(": did you mean {suggestion}?"),
        None => fallback.to_owned(),
    }
}

impl OriginError {
    /// The category of this error, to branch on without matching fields.
    pub fn kind(&self) -> OriginErrorKind {
        match self {
            Self::AnyOrigin => OriginErrorKind::AnyOrigin,
            Self::NullOrigin => OriginErrorKind::NullOrigin,
            Self::Empty => OriginErrorKind::Empty,
            Self::Whitespace => OriginErrorKind::Whitespace,
            Self::Comma => OriginErrorKind::Comma,
            Self::MissingScheme { .. } => OriginErrorKind::MissingScheme,
            Self::NotAUrl { .. } => OriginErrorKind::NotAUrl,
            Self::UnsupportedScheme { .. } => OriginErrorKind::UnsupportedScheme,
            Self::Credentials { .. } => OriginErrorKind::Credentials,
            Self::Path { .. } => OriginErrorKind::Path,
            Self::Query { .. } => OriginErrorKind::Query,
            Self::Fragment { .. } => OriginErrorKind::Fragment,
            Self::InsecureHttp { .. } => OriginErrorKind::InsecureHttp,
            Self::InvalidHost { .. } => OriginErrorKind::InvalidHost,
            Self::InvalidPort => OriginErrorKind::InvalidPort,
            Self::WildcardsDisabled => OriginErrorKind::WildcardsDisabled,
            Self::WildcardOnPublicSuffix { .. } => OriginErrorKind::WildcardOnPublicSuffix,
            Self::MalformedWildcard { .. } => OriginErrorKind::MalformedWildcard,
        }
    }

    /// The entry this error suggests writing instead, when it has one.
    pub fn suggestion(&self) -> Option<&str> {
        match self {
            Self::Credentials { suggestion }
            | Self::Path { suggestion }
            | Self::Query { suggestion }
            | Self::Fragment { suggestion }
            | Self::InsecureHttp { suggestion } => Some(suggestion),
            Self::MissingScheme { suggestion } | Self::MalformedWildcard { suggestion } => suggestion.as_deref(),
            _ => None,
        }
    }
}

/// The category of an [`OriginError`]: one per variant, without fields, with a stable name for JS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OriginErrorKind {
    /// `*`.
    AnyOrigin,
    /// `null`.
    NullOrigin,
    /// An empty entry.
    Empty,
    /// Whitespace inside an entry.
    Whitespace,
    /// A comma inside an array item.
    Comma,
    /// No `https://` or `http://`.
    MissingScheme,
    /// Not a URL.
    NotAUrl,
    /// A scheme other than `https` and `http`.
    UnsupportedScheme,
    /// A user name or password.
    Credentials,
    /// A path.
    Path,
    /// A query.
    Query,
    /// A fragment.
    Fragment,
    /// `http` on a host that is not potentially trustworthy.
    InsecureHttp,
    /// An invalid host.
    InvalidHost,
    /// An invalid port.
    InvalidPort,
    /// A wildcard while wildcards are off.
    WildcardsDisabled,
    /// A wildcard on a public suffix.
    WildcardOnPublicSuffix,
    /// A misplaced or malformed wildcard.
    MalformedWildcard,
}

impl OriginErrorKind {
    /// A stable snake_case name, such as `"insecure_http"`, for JS code to branch on.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AnyOrigin => "any_origin",
            Self::NullOrigin => "null_origin",
            Self::Empty => "empty",
            Self::Whitespace => "whitespace",
            Self::Comma => "comma",
            Self::MissingScheme => "missing_scheme",
            Self::NotAUrl => "not_a_url",
            Self::UnsupportedScheme => "unsupported_scheme",
            Self::Credentials => "credentials",
            Self::Path => "path",
            Self::Query => "query",
            Self::Fragment => "fragment",
            Self::InsecureHttp => "insecure_http",
            Self::InvalidHost => "invalid_host",
            Self::InvalidPort => "invalid_port",
            Self::WildcardsDisabled => "wildcards_disabled",
            Self::WildcardOnPublicSuffix => "wildcard_on_public_suffix",
            Self::MalformedWildcard => "malformed_wildcard",
        }
    }
}

impl fmt::Display for OriginErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest part of an entry that messages quote, in characters; longer entries are cut with `…`.
const QUOTED_CHARS: usize = 100;

/// Writes `entry` as a quoted, escaped string, cut to [`QUOTED_CHARS`] characters.
fn write_quoted(f: &mut fmt::Formatter<'_>, entry: &str) -> fmt::Result {
    match entry.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => write!(f, "{}…", crate::quote::quoted(&entry[..cut])),
        None => write!(f, "{}", crate::quote::quoted(entry)),
    }
}

/// An origin list was refused: which entry, where, and why.
///
/// Displays as `entry 2 ("*"): a wildcard cannot be used; list the origins, such as https://widget.example`.
/// Positions count from 1; for the array form, entry N is the item at index N - 1 ([`Self::index`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginListError {
    index: usize,
    entry: String,
    problem: OriginError,
}

impl OriginListError {
    pub(crate) fn new(index: usize, entry: &str, problem: OriginError) -> Self {
        Self { index, entry: entry.trim().to_owned(), problem }
    }

    /// The entry's position, counted from 1.
    pub fn position(&self) -> usize {
        self.index + 1
    }

    /// The entry's position, counted from 0: its array index in the array form.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The entry as it was written, without surrounding whitespace.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// What is wrong with the entry.
    pub fn problem(&self) -> &OriginError {
        &self.problem
    }

    /// The category, to branch on.
    pub fn kind(&self) -> OriginErrorKind {
        self.problem.kind()
    }
}

impl fmt::Display for OriginListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entry {} (", self.position())?;
        write_quoted(f, &self.entry)?;
        write!(f, "): {}", self.problem)
    }
}

/// The message already holds the problem's text, so [`std::error::Error::source`] is `None`.
impl std::error::Error for OriginListError {}

/// Something an origin list accepted but that its author may want to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OriginListWarning {
    /// An entry is the same origin as an earlier one once canonical; the two were merged.
    Duplicate {
        /// The later entry's index, from 0.
        index: usize,
        /// The later entry as written, without surrounding whitespace.
        entry: String,
        /// The earlier entry's index, from 0.
        first_index: usize,
        /// The canonical form both share.
        canonical: String,
    },
    /// An exact origin that a wildcard of the same list already allows; both were kept.
    Covered {
        /// The exact entry's index, from 0.
        index: usize,
        /// The exact entry's canonical form.
        canonical: String,
        /// The index of the wildcard that covers it, from 0.
        wildcard_index: usize,
        /// The wildcard's canonical form.
        wildcard: String,
    },
}

impl fmt::Display for OriginListWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Duplicate { index, entry, first_index, canonical } => {
                write!(f, "entry {} (", index + 1)?;
                write_quoted(f, entry)?;
                write!(f, ") repeats entry {} ({canonical}); the two were merged", first_index + 1)
            }
            Self::Covered { index, canonical, wildcard_index, wildcard } => write!(
                f,
                "entry {} ({canonical}) is already allowed by entry {} ({wildcard}); remove one of them",
                index + 1,
                wildcard_index + 1
            ),
        }
    }
}
