//! The URL parser that origin parsing stands on, as a capability: [`UrlParser`].
//!
//! An entry of an origin list is parsed as a URL by a parser that the caller passes in, and this crate's own rules
//! (schemes, what an origin may not have, trustworthy http hosts, public suffixes, wildcards, the advice in every
//! error) are applied to the parts it returns, the same for every parser. Natively the parser is the `url` crate
//! ([`UrlCrate`], cargo feature `url`, on by default); in the browser the `interpane` crate passes the browser's own
//! `new URL()`, so that the `url` crate (and its IDNA code) stays out of the download. A browser test parses a
//! corpus of entries with both and compares the results.

/// A URL parser (the WHATWG URL Standard's), asked for the parts of one absolute URL.
///
/// Implementations parse; they decide nothing about origins. `text` has a scheme followed by `://`; it is ASCII
/// unless the parser says it maps Unicode hosts itself ([`maps_unicode_hosts`](Self::maps_unicode_hosts)).
pub trait UrlParser {
    /// The parts of the URL `text`, or why it is not one.
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError>;

    /// Whether this parser converts a host written in Unicode to its ASCII form itself, with the URL Standard's
    /// domain to ASCII (UTS 46's mapping and Punycode) and its checks of `xn--` labels, as a browser's `new URL()`
    /// does; it is then given entries as they were written. When it does not (the default, and [`UrlCrate`] as
    /// this crate builds it, without Unicode tables), entries reach it with their host already in ASCII: converted
    /// by this crate for names in lowercase NFC letters with the feature `url`, refused with advice to write the
    /// `xn--` form otherwise.
    fn maps_unicode_hosts(&self) -> bool {
        false
    }
}

/// The parts of a parsed URL that an origin entry is checked against, each canonical as the URL Standard
/// serializes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct UrlParts {
    /// The scheme, lowercase, without `:` (`https`).
    pub scheme: String,
    /// The host: a domain (lowercase, punycode), an IPv4 address in dotted decimal, or an IPv6 address in
    /// brackets (`[::1]`); `None` when the URL has none.
    pub host: Option<String>,
    /// The port, `None` when there is none or it is the scheme's default.
    pub port: Option<u16>,
    /// Whether the URL has a user name or a password.
    pub credentials: bool,
    /// The path (`/` for `https://a.example` and `https://a.example/`).
    pub path: String,
    /// Whether the URL has a query, even an empty one (`https://a.example/?`).
    pub query: bool,
    /// Whether the URL has a fragment, even an empty one (`https://a.example/#`).
    pub fragment: bool,
}

impl UrlParts {
    /// Parts with the given scheme, host and path and nothing else (for implementations, which fill in the rest).
    pub fn new(scheme: impl Into<String>, host: Option<String>, path: impl Into<String>) -> Self {
        Self { scheme: scheme.into(), host, path: path.into(), ..Self::default() }
    }
}

/// Why a [`UrlParser`] could not parse a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlParseError {
    /// The host is empty.
    EmptyHost,
    /// The host is not a valid domain name.
    InvalidDomain,
    /// The host holds a character that hosts cannot hold.
    InvalidDomainCharacter,
    /// The host ends in a number but is not a valid IPv4 address.
    InvalidIpv4,
    /// The host is in brackets but is not a valid IPv6 address.
    InvalidIpv6,
    /// The port is not a number up to 65535.
    InvalidPort,
    /// Another reason, in the parser's words.
    Other(String),
    /// The parser does not say why (the browser's `new URL()` throws a bare `TypeError`). The entry's error is
    /// then found by asking the same parser about the entry's host and port alone (see `explain`).
    Unexplained,
}

/// The reason for a failure that the parser left [`UrlParseError::Unexplained`], found with the same parser: the
/// URL Standard fails an http(s) URL only on its host or its port (credentials, path, query and fragment are
/// percent-encoded, never refused), and reads the host before the port.
///
/// `text` is split as the URL Standard splits an authority (any slashes after `://`, then up to the
/// first `/`, `\`, `?` or `#`; the host after the last `@`; the port after the first `:` outside brackets), and the
/// parser is asked about `scheme://host` alone and about `scheme://host` with the host's last label replaced.
/// Nothing here decides whether a URL is valid: only which of the parser's failures this one was.
pub(crate) fn explain(text: &str, parser: &dyn UrlParser) -> UrlParseError {
    let Some((scheme, after)) = text.split_once("://") else { return UrlParseError::Unexplained };
    let rest = after.trim_start_matches(['/', '\\']);
    let authority = &rest[..rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host_port)| host_port);
    let mut in_brackets = false;
    let colon = host_port.find(|c| {
        match c {
            '[' => in_brackets = true,
            ']' => in_brackets = false,
            _ => {}
        }
        c == ':' && !in_brackets
    });
    let host = &host_port[..colon.unwrap_or(host_port.len())];
    if host.is_empty() {
        return UrlParseError::EmptyHost;
    }
    let host_alone = parser.parse_url(&format!("{scheme}://{host}"));
    if host_alone.is_ok() {
        // The host is good on its own: the port is what failed (or, if there is none, nothing this can name).
        return if colon.is_some() { UrlParseError::InvalidPort } else { UrlParseError::Unexplained };
    }
    if host.starts_with('[') {
        return UrlParseError::InvalidIpv6;
    }
    // Another scheme's host is opaque: it fails only on a character hosts cannot hold (its scheme is refused once
    // it parses).
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https" | "ws" | "wss" | "ftp") {
        return UrlParseError::InvalidDomainCharacter;
    }
    // A host whose last label is a number is read as an IPv4 address; it failed as one when the same host with a
    // name for that label is a good domain.
    let decoded = percent_decoded(host);
    let body = decoded.strip_suffix('.').unwrap_or(&decoded);
    let (labels, last) = body.rsplit_once('.').unwrap_or(("", body));
    if is_number(last) {
        let named = if labels.is_empty() { "a".to_owned() } else { format!("{labels}.a") };
        if parser.parse_url(&format!("{scheme}://{named}")).is_ok() {
            return UrlParseError::InvalidIpv4;
        }
    }
    UrlParseError::InvalidDomain
}

/// Whether `label` is a number in the URL Standard's sense ("ends in a number"): decimal digits, or `0x` and hex
/// digits.
fn is_number(label: &str) -> bool {
    let hex = label.strip_prefix("0x").or_else(|| label.strip_prefix("0X"));
    match hex {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// `text` with its `%XX` escapes decoded (lossily, for the check above only).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[at] == b'%'
            && let (Some(high), Some(low)) =
                (bytes.get(at + 1).copied().and_then(hex), bytes.get(at + 2).copied().and_then(hex))
        {
            out.push((high * 16 + low) as u8);
            at += 3;
            continue;
        }
        out.push(bytes[at]);
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The `url` crate as a [`UrlParser`]: the parser of native builds, and the reference the browser's is compared
/// with. Cargo feature `url` (on by default).
#[cfg(feature = "url")]
#[derive(Debug, Clone, Copy, Default)]
pub struct UrlCrate;

#[cfg(feature = "url")]
impl UrlParser for UrlCrate {
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError> {
        use url::ParseError;
        let url = url::Url::parse(text).map_err(|error| match error {
            ParseError::EmptyHost => UrlParseError::EmptyHost,
            ParseError::IdnaError => UrlParseError::InvalidDomain,
            ParseError::InvalidIpv4Address => UrlParseError::InvalidIpv4,
            ParseError::InvalidIpv6Address => UrlParseError::InvalidIpv6,
            ParseError::InvalidDomainCharacter => UrlParseError::InvalidDomainCharacter,
            ParseError::InvalidPort => UrlParseError::InvalidPort,
            other => UrlParseError::Other(other.to_string()),
        })?;
        Ok(UrlParts {
            scheme: url.scheme().to_owned(),
            host: url.host().map(|host| host.to_string()),
            port: url.port(),
            credentials: !url.username().is_empty() || url.password().is_some(),
            path: url.path().to_owned(),
            query: url.query().is_some(),
            fragment: url.fragment().is_some(),
        })
    }
}
