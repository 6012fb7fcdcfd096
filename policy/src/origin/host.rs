//! Rules about hosts: which bytes a canonical host name may hold, which hosts may use `http`, and which domains
//! are public suffixes that a wildcard may not cover.

use std::net::Ipv4Addr;

/// Whether `byte` may appear inside a label of a host name this crate accepts: lowercase ASCII letters, digits,
/// `-` and `_`. Hosts arrive canonical (lowercase, punycode), so this refuses nothing a real site uses.
pub(crate) const fn is_label_byte(byte: u8) -> bool {
    matches!(byte, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_')
}

/// Whether `labels` is one or more non-empty labels of [`is_label_byte`] bytes joined by single dots (no leading,
/// trailing or doubled dot). Allocation-free: the hot path of wildcard matching uses it.
pub(crate) fn is_label_sequence(labels: &str) -> bool {
    !labels.is_empty() && labels.split('.').all(|label| !label.is_empty() && label.bytes().all(is_label_byte))
}

/// What is wrong with a canonical domain name, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DomainProblem {
    /// It holds `*` somewhere: a misplaced wildcard.
    Star,
    /// A label is empty (`a..example`, `.example`).
    EmptyLabel,
    /// It holds this character, which host names here cannot hold.
    Character(char),
    /// It holds a `%` escape: a character the URL parser cannot hold in a domain, escaped instead of refused.
    Escaped,
}

/// Checks a domain as the URL parser canonicalized it (lowercase, punycode). One trailing dot is allowed: it
/// names a distinct origin (`https://example.com.`), as in browsers.
///
/// The URL Standard never leaves a `%` in a domain (it decodes escapes, then refuses `%` and the other forbidden
/// domain code points), and the url crate follows it; Chromium's parser escapes a few characters instead of
/// refusing them (`*` as `%2A`, a space as `%20`). So `%2A` is read as the `*` it stands for, and any other escape
/// is refused as the standard refuses the character: the result is the same with either parser.
pub(crate) fn check_domain(domain: &str) -> Result<(), DomainProblem> {
    let star = ["%2A", "%2a"].iter().any(|escape| domain.contains(escape));
    if domain.replace("%2A", "").replace("%2a", "").contains('%') {
        return Err(DomainProblem::Escaped);
    }
    if star || domain.contains('*') {
        return Err(DomainProblem::Star);
    }
    let body = domain.strip_suffix('.').unwrap_or(domain);
    for label in body.split('.') {
        if label.is_empty() {
            return Err(DomainProblem::EmptyLabel);
        }
        if let Some(bad) = label.chars().find(|c| !c.is_ascii() || !is_label_byte(*c as u8)) {
            return Err(DomainProblem::Character(bad));
        }
    }
    Ok(())
}

/// Whether a page served from `host` (canonical: `localhost`, `127.0.0.1`, `[::1]`) over `http` is potentially
/// trustworthy, so that `http` may be listed: `localhost`, a name under `.localhost`, an address in `127.0.0.0/8`,
/// or `[::1]` (the one canonical form of the IPv6 loopback).
pub(crate) fn is_trustworthy_text(host: &str) -> bool {
    match host.parse::<Ipv4Addr>() {
        Ok(address) => address.octets()[0] == 127,
        Err(_) => host == "[::1]" || host == "localhost" || host.ends_with(".localhost"),
    }
}

/// Common public suffixes of more than one label, under which anyone can register a name. Not the whole Public
/// Suffix List: a wildcard on a suffix missing here is accepted (see docs/origins.md).
const MULTI_LABEL_PUBLIC_SUFFIXES: &[&str] = &[
    // Country-code second levels.
    "ac.jp",
    "ac.nz",
    "ac.uk",
    "ac.za",
    "co.id",
    "co.il",
    "co.in",
    "co.jp",
    "co.ke",
    "co.kr",
    "co.nz",
    "co.th",
    "co.uk",
    "co.za",
    "com.ar",
    "com.au",
    "com.br",
    "com.cn",
    "com.co",
    "com.eg",
    "com.hk",
    "com.mx",
    "com.my",
    "com.ng",
    "com.pe",
    "com.ph",
    "com.pk",
    "com.pl",
    "com.sa",
    "com.sg",
    "com.tr",
    "com.tw",
    "com.ua",
    "com.vn",
    "edu.au",
    "edu.cn",
    "gov.au",
    "gov.br",
    "gov.cn",
    "gov.in",
    "gov.uk",
    "go.jp",
    "govt.nz",
    "ltd.uk",
    "me.uk",
    "ne.jp",
    "net.au",
    "net.br",
    "net.cn",
    "net.in",
    "net.nz",
    "net.uk",
    "nhs.uk",
    "or.jp",
    "or.kr",
    "org.au",
    "org.br",
    "org.cn",
    "org.in",
    "org.nz",
    "org.uk",
    "org.za",
    "plc.uk",
    "sch.uk",
    // Hosting platforms whose users each get a subdomain.
    "appspot.com",
    "azurewebsites.net",
    "blogspot.com",
    "cloudfront.net",
    "firebaseapp.com",
    "fly.dev",
    "github.io",
    "gitlab.io",
    "glitch.me",
    "herokuapp.com",
    "netlify.app",
    "onrender.com",
    "pages.dev",
    "vercel.app",
    "web.app",
    "workers.dev",
];

/// Whether a wildcard on `base` (the domain after `*.`, canonical, without a trailing dot) would cover a public
/// suffix's first level: `base` is a single label (`com`, `localhost`) or a known multi-label public suffix.
pub(crate) fn is_public_suffix(base: &str) -> bool {
    !base.contains('.') || MULTI_LABEL_PUBLIC_SUFFIXES.contains(&base)
}
