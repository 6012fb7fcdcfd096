//! Parsing one entry of an origin list: the text checks, then a URL parser (a [`UrlParser`]: the `url` crate or
//! the browser's) for canonical form, then our rules on top (schemes, what an origin may not have, trustworthy
//! http hosts, wildcards), the same whichever parser it was.

use std::net::Ipv4Addr;

use super::host::{DomainProblem, check_domain, is_public_suffix, is_trustworthy_text};
use super::url_parser::{UrlParseError, UrlParser, UrlParts, explain};
use super::{Origin, OriginError, OriginPattern, ParseOptions, WildcardOrigin};

/// The label that stands in for `*` while the URL parser canonicalizes a wildcard's host.
const STAND_IN: &str = "a";

/// Parses one trimmed entry into an exact origin or, when `options` allow it, a wildcard.
pub(crate) fn parse_pattern(
    text: &str,
    options: ParseOptions,
    parser: &dyn UrlParser,
) -> Result<OriginPattern, OriginError> {
    check_text(text)?;
    check_scheme_prefix(text)?;
    let Some(scheme_end) = text.find("://") else {
        return Err(missing_scheme(text, parser));
    };
    let (scheme, authority) = (&text[..scheme_end], &text[scheme_end + "://".len()..]);
    if scheme.contains('*') {
        return Err(OriginError::MalformedWildcard { suggestion: None });
    }
    if !is_scheme_syntax(scheme) {
        return Err(OriginError::MissingScheme { suggestion: guess_origin(authority, parser) });
    }
    if !authority.starts_with('*') {
        return parse_url(text, parser).map(OriginPattern::Exact);
    }
    let Some(rest) = authority.strip_prefix("*.") else {
        return Err(OriginError::MalformedWildcard { suggestion: None });
    };
    if !options.allow_wildcards {
        return Err(OriginError::WildcardsDisabled);
    }
    parse_wildcard(scheme, rest, parser).map(OriginPattern::Wildcard)
}

/// Refuses a scheme other than `https` and `http` even when it has no `//` (`data:…`, `javascript:…`,
/// `blob:https://…`), and a `*` before the first `:`. A host and port without a scheme (`localhost:8080`) passes,
/// to be reported as a missing scheme.
fn check_scheme_prefix(text: &str) -> Result<(), OriginError> {
    let Some((scheme, after)) = text.split_once(':') else {
        return Ok(());
    };
    if scheme.contains('*') && !scheme.starts_with("*.") {
        return Err(OriginError::MalformedWildcard { suggestion: None });
    }
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let port_like = digits > 0 && matches!(after.as_bytes().get(digits), None | Some(b'/'));
    let lower = scheme.to_ascii_lowercase();
    // A dot or `localhost` before the colon reads as a host with a bad port, not as a scheme.
    let host_like = scheme.contains('.') || lower == "localhost";
    if is_scheme_syntax(scheme) && !port_like && !host_like && lower != "https" && lower != "http" {
        return Err(OriginError::UnsupportedScheme { scheme: lower });
    }
    Ok(())
}

/// Whether `scheme` is written as URL schemes are: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme_syntax(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|first| first.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// Parses one trimmed entry that must be an exact origin.
pub(crate) fn parse_exact(text: &str, parser: &dyn UrlParser) -> Result<Origin, OriginError> {
    match parse_pattern(text, ParseOptions::default(), parser)? {
        OriginPattern::Exact(origin) => Ok(origin),
        // Unreachable with wildcards off; refused the same way for safety.
        OriginPattern::Wildcard(_) => Err(OriginError::WildcardsDisabled),
    }
}

/// The checks on the raw text that come before URL parsing.
fn check_text(text: &str) -> Result<(), OriginError> {
    if text.is_empty() {
        return Err(OriginError::Empty);
    }
    if text == "*" {
        return Err(OriginError::AnyOrigin);
    }
    if text.eq_ignore_ascii_case("null") {
        return Err(OriginError::NullOrigin);
    }
    // The URL parser would silently drop tabs and newlines; refuse them with every other space.
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(OriginError::Whitespace);
    }
    if text.contains(',') {
        return Err(OriginError::Comma);
    }
    Ok(())
}

/// The error for an entry without `://`, with a guess at what was meant.
fn missing_scheme(text: &str, parser: &dyn UrlParser) -> OriginError {
    if let Some(rest) = text.strip_prefix("*.") {
        let suggestion = parse_wildcard("https", rest, parser).ok().map(|w| w.as_str().to_owned());
        return OriginError::MalformedWildcard { suggestion };
    }
    OriginError::MissingScheme { suggestion: guess_origin(text, parser) }
}

/// What an entry without `://` probably meant: `https:a.example` -> `https://a.example`, `shop.example/app` ->
/// `https://shop.example`, `localhost:8080` -> `http://localhost:8080`.
fn guess_origin(text: &str, parser: &dyn UrlParser) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let (scheme, rest, given) = if lower.starts_with("https:") {
        ("https", &text["https:".len()..], true)
    } else if lower.starts_with("http:") {
        ("http", &text["http:".len()..], true)
    } else {
        ("https", text, false)
    };
    let rest = rest.trim_start_matches(['/', '\\']);
    let origin = match parse_url(&format!("{scheme}://{rest}"), parser) {
        Ok(origin) => origin,
        Err(error) => return error.suggestion().map(str::to_owned),
    };
    if !given && is_trustworthy_text(origin.host()) {
        return Some(format!("http://{}", &origin.as_str()["https://".len()..]));
    }
    Some(origin.as_str().to_owned())
}

/// `text` with its host in ASCII, and its `xn--` labels checked (see `idn.rs`), for a URL parser that does neither
/// (built without Unicode tables); a host percent-encoding non-ASCII bytes is refused whatever the parser.
fn with_ascii_host<'t>(text: &'t str, parser: &dyn UrlParser) -> Result<std::borrow::Cow<'t, str>, OriginError> {
    let Some((scheme, after)) = text.split_once("://") else { return Ok(std::borrow::Cow::Borrowed(text)) };
    // The URL parser skips any more slashes before the host of an http(s) URL (`https:///a.example`).
    let rest = after.trim_start_matches(['/', '\\']);
    let slashes = &after[..after.len() - rest.len()];
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    // Credentials are refused later, with the canonical origin as advice; convert the host after them.
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    if host_port.starts_with('[') {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    if encodes_non_ascii(host_port) {
        // The URL parser would decode it into a name this parser never checked.
        return Err(OriginError::InvalidHost { reason: "it is percent-encoded; write the name itself".to_owned() });
    }
    if parser.maps_unicode_hosts() {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let (host, port) = match host_port.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => (host, Some(port)),
        _ => (host_port, None),
    };
    // Without the url crate, this crate has no conversion of its own (it is the bridge's build, whose browser
    // parser maps hosts itself): an entry that needs one is refused below.
    #[cfg(not(feature = "url"))]
    let ascii = host.to_owned();
    #[cfg(feature = "url")]
    let ascii = super::idn::host_to_ascii(host)?;
    if ascii == host {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    let userinfo = userinfo.map(|u| format!("{u}@")).unwrap_or_default();
    let port = port.map(|p| format!(":{p}")).unwrap_or_default();
    Ok(std::borrow::Cow::Owned(format!("{scheme}://{slashes}{userinfo}{ascii}{port}{tail}")))
}

/// Whether `text` holds a percent-encoded byte that is not ASCII (`%80` to `%FF`).
fn encodes_non_ascii(text: &str) -> bool {
    text.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && matches!(w[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F') && w[2].is_ascii_hexdigit())
}

/// Parses an entry with a scheme and checks every rule; the result is canonical.
fn parse_url(text: &str, parser: &dyn UrlParser) -> Result<Origin, OriginError> {
    let text = &*with_ascii_host(text, parser)?;
    if !text.is_ascii() && !parser.maps_unicode_hosts() {
        // Unicode left outside the host this parser found (`https:///ü.example` reads as a host to the URL
        // parser): never hand it to a URL parser that has no Unicode tables.
        let unicode_at = text.find(|c: char| !c.is_ascii()).unwrap_or(0);
        let rest_at = text.find("://").map_or(0, |at| at + 3);
        let path_at = text[rest_at..].find(['/', '\\', '?', '#']).map(|at| rest_at + at).filter(|at| *at > rest_at);
        return match path_at.filter(|at| *at < unicode_at) {
            // Unicode in a path: the error is the path's, with the origin before it as advice.
            Some(at) => parse_url(&text[..at], parser)
                .and_then(|origin| Err(OriginError::Path { suggestion: origin.as_str().to_owned() })),
            None => {
                Err(OriginError::InvalidHost { reason: "write internationalized names in their xn-- form".to_owned() })
            }
        };
    }
    let url = parser.parse_url(text).map_err(|error| match error {
        UrlParseError::Unexplained => from_url_error(explain(text, parser)),
        error => from_url_error(error),
    })?;
    let scheme = url.scheme.as_str();
    if scheme != "https" && scheme != "http" {
        return Err(OriginError::UnsupportedScheme { scheme: scheme.to_owned() });
    }
    let Some(host) = url.host.as_deref().filter(|host| !host.is_empty()) else {
        return Err(OriginError::InvalidHost { reason: "it is empty".to_owned() });
    };
    // The parser's canonical host is an IPv6 address in brackets, an IPv4 address in dotted decimal (a name that
    // ends in a number is read as one), or else a domain.
    if !host.starts_with('[') && host.parse::<Ipv4Addr>().is_err() {
        check_domain(host).map_err(domain_error)?;
    }
    let port = match url.port {
        Some(0) => return Err(OriginError::InvalidPort),
        port => port,
    };
    if scheme == "http" && !is_trustworthy_text(host) {
        let https_port = port.filter(|port| *port != 443);
        let suggestion = Origin::from_parts("https", host, https_port).as_str().to_owned();
        return Err(OriginError::InsecureHttp { suggestion });
    }
    let origin = Origin::from_parts(scheme, host, port);
    check_nothing_more(text, &url, origin.as_str())?;
    Ok(origin)
}

/// Refuses what an origin cannot have: credentials, a path beyond one `/`, a query, a fragment.
fn check_nothing_more(text: &str, url: &UrlParts, canonical: &str) -> Result<(), OriginError> {
    let suggestion = || canonical.to_owned();
    // `https://@a.example` parses with empty credentials: look at the text too.
    let after_scheme = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '\\', '?', '#']).next().unwrap_or_default();
    if url.credentials || authority.contains('@') {
        return Err(OriginError::Credentials { suggestion: suggestion() });
    }
    // The URL parser resolves `/./` and `/%2e` to `/`: look at the text too.
    let path = after_scheme[authority.len()..].split(['?', '#']).next().unwrap_or_default();
    if url.path != "/" || !matches!(path, "" | "/") {
        return Err(OriginError::Path { suggestion: suggestion() });
    }
    if url.query {
        return Err(OriginError::Query { suggestion: suggestion() });
    }
    if url.fragment {
        return Err(OriginError::Fragment { suggestion: suggestion() });
    }
    Ok(())
}

/// Parses the part of a wildcard entry after `scheme://*.` and checks it.
fn parse_wildcard(scheme: &str, rest: &str, parser: &dyn UrlParser) -> Result<WildcardOrigin, OriginError> {
    let stand_in_start = format!("://{STAND_IN}.");
    // A suggestion for the stand-in host becomes one for the wildcard. When the stand-in left the host
    // (`*.a.example@b.example` makes it a user name), the `*` was not a host label after all.
    let wildcard_of = |suggestion: String| match suggestion.split_once(&stand_in_start) {
        Some((scheme, rest)) => Ok(format!("{scheme}://*.{rest}")),
        None => Err(OriginError::MalformedWildcard { suggestion: None }),
    };
    let origin = parse_url(&format!("{scheme}://{STAND_IN}.{rest}"), parser).map_err(|error| {
        let rewritten = match error {
            OriginError::Credentials { suggestion } => {
                wildcard_of(suggestion).map(|suggestion| OriginError::Credentials { suggestion })
            }
            OriginError::Path { suggestion } => {
                wildcard_of(suggestion).map(|suggestion| OriginError::Path { suggestion })
            }
            OriginError::Query { suggestion } => {
                wildcard_of(suggestion).map(|suggestion| OriginError::Query { suggestion })
            }
            OriginError::Fragment { suggestion } => {
                wildcard_of(suggestion).map(|suggestion| OriginError::Fragment { suggestion })
            }
            OriginError::InsecureHttp { suggestion } => {
                wildcard_of(suggestion).map(|suggestion| OriginError::InsecureHttp { suggestion })
            }
            other => Ok(other),
        };
        rewritten.unwrap_or_else(|malformed| malformed)
    })?;
    // The URL parser refuses `a.1.2.3` (a name ending in a number), so the host is a domain that starts with the
    // stand-in label; anything else is refused all the same.
    let base = origin.host().strip_prefix(STAND_IN).and_then(|h| h.strip_prefix('.')).unwrap_or_default();
    let bare = base.strip_suffix('.').unwrap_or(base);
    if bare.is_empty() {
        return Err(OriginError::MalformedWildcard { suggestion: None });
    }
    if is_public_suffix(bare) {
        return Err(OriginError::WildcardOnPublicSuffix { suffix: bare.to_owned() });
    }
    Ok(WildcardOrigin::from_parts(origin.scheme(), base, origin.port()))
}

/// The error for a domain that the URL parser accepted but our rules refuse.
fn domain_error(problem: DomainProblem) -> OriginError {
    match problem {
        DomainProblem::Star => OriginError::MalformedWildcard { suggestion: None },
        DomainProblem::EmptyLabel => OriginError::InvalidHost { reason: "it has an empty label".to_owned() },
        // The url crate's reason for the characters a parser may escape (a space, ...).
        DomainProblem::Escaped => OriginError::InvalidHost { reason: "it is not a valid domain name".to_owned() },
        DomainProblem::Character(c) => OriginError::InvalidHost {
            reason: format!("it holds {}; hosts hold letters, digits, - and _", crate::quote::quoted_char(c)),
        },
    }
}

/// Maps a URL parser error to ours.
fn from_url_error(error: UrlParseError) -> OriginError {
    let invalid_host = |reason: &str| OriginError::InvalidHost { reason: reason.to_owned() };
    match error {
        UrlParseError::EmptyHost => invalid_host("it is empty"),
        UrlParseError::InvalidDomain => invalid_host("it is not a valid domain name"),
        UrlParseError::InvalidIpv4 => invalid_host("it is not a valid IPv4 address"),
        UrlParseError::InvalidIpv6 => invalid_host("it is not a valid IPv6 address"),
        UrlParseError::InvalidDomainCharacter => invalid_host("it holds a character that hosts cannot hold"),
        UrlParseError::InvalidPort => OriginError::InvalidPort,
        UrlParseError::Other(reason) => OriginError::NotAUrl { reason },
        UrlParseError::Unexplained => OriginError::NotAUrl { reason: "the URL parser could not read it".to_owned() },
    }
}
