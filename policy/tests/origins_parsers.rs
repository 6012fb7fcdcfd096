//! The URL parser is a capability (`origin::UrlParser`): the rules on top of it must give the same lists and the
//! same errors whichever parser it is. Natively, the `url` crate is compared with itself with its reasons hidden
//! (`new URL()` in the browser throws a bare `TypeError`), which tests how a failure is explained from what the
//! parser says about the entry's host and port alone. bridge/tests/url_parsers.rs compares the browser's parser
//! with the `url` crate on the same entries (tests/data/origin_entries.txt).
#![cfg(feature = "url")]
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "data/origin_corpus.rs"]
mod origin_corpus;

use interpane_policy::origin::{UrlCrate, UrlParseError, UrlParser, UrlParts};
use interpane_policy::{OriginList, ParseOptions};
use origin_corpus::{corpus, describe};

/// The `url` crate, saying no more than the browser does when it fails.
struct Unexplained;

impl UrlParser for Unexplained {
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError> {
        UrlCrate.parse_url(text).map_err(|_| UrlParseError::Unexplained)
    }
}

/// What parsing `entry` as a list (wildcards on) gives, as text to compare.
fn outcome(entry: &str, parser: &dyn UrlParser) -> String {
    origin_corpus::outcome(entry, ParseOptions::default().allow_wildcards(true), parser)
}

#[test]
fn a_parser_that_gives_no_reasons_gets_the_same_errors() {
    let entries = corpus();
    assert!(entries.len() > 250, "{}", entries.len());
    let mut differences = Vec::new();
    for entry in &entries {
        let (reference, explained) = (outcome(entry, &UrlCrate), outcome(entry, &Unexplained));
        if reference != explained {
            differences.push(format!("{entry:?}\n  url crate: {reference}\n  explained: {explained}"));
        }
    }
    assert!(differences.is_empty(), "{} differences:\n{}", differences.len(), differences.join("\n"));
}

#[test]
fn the_default_methods_use_the_url_crate() {
    for entry in corpus() {
        let by_default = describe(OriginList::parse_with(&entry, ParseOptions::default().allow_wildcards(true)));
        assert_eq!(by_default, outcome(&entry, &UrlCrate), "{entry:?}");
    }
}

/// The url crate with Chromium's way with a few characters in a host: escaped (`*` as `%2A`, a space as `%20`)
/// instead of refused.
struct EscapingHosts;

impl UrlParser for EscapingHosts {
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError> {
        // The url crate refuses a space: parse with a stand-in letter and escape it back.
        let mut parts = UrlCrate.parse_url(&text.replace("%20", "q"))?;
        let escaped = |host: String| host.replace('*', "%2A").replace('q', "%20");
        parts.host = parts.host.map(|host| if text.contains("%20") { escaped(host) } else { host.replace('*', "%2A") });
        Ok(parts)
    }
}

#[test]
fn a_host_escaped_instead_of_refused_gets_the_standards_error() {
    // Regression (the browser test): Chromium's `new URL("https://a.*.com").hostname` is "a.%2A.com", and
    // "https://a%20b.example" parses with the host "a%20b.example"; the url crate keeps the `*` and refuses the space.
    for entry in ["https://a.*.com", "https://ex*ample.com", "https://u@*.example.com", "https://*.*.a.example"] {
        assert_eq!(outcome(entry, &EscapingHosts), outcome(entry, &UrlCrate), "{entry}");
        assert!(outcome(entry, &UrlCrate).starts_with("err malformed_wildcard"), "{entry}");
    }
    let entry = "https://a%20b.example";
    assert_eq!(outcome(entry, &EscapingHosts), outcome(entry, &UrlCrate));
    assert!(outcome(entry, &UrlCrate).contains("(it is not a valid domain name)"));
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::{Unexplained, UrlCrate, outcome};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Random authorities of the characters that make hosts and ports fail.
        #[test]
        fn failures_are_explained_as_the_url_crate_explains_them(
            scheme in "(https|http|HTTP|foo\\.bar)",
            slashes in "(//|///|/\\\\)",
            authority in "[a-z0-9.:\\[\\]%@*_<>|^x-]{0,16}",
            tail in "(|/|/a|\\?|#)",
        ) {
            let entry = format!("{scheme}:{slashes}{authority}{tail}");
            prop_assert_eq!(outcome(&entry, &UrlCrate), outcome(&entry, &Unexplained), "{:?}", entry);
        }
    }
}

/// The `url` crate, recording each text it is given. When it says it maps Unicode hosts itself, it converts the one
/// name these tests use as a browser would (the url crate as this crate builds it has no Unicode tables).
#[derive(Default)]
struct Recording {
    maps_unicode_hosts: bool,
    given: std::cell::RefCell<Vec<String>>,
}

impl UrlParser for Recording {
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError> {
        self.given.borrow_mut().push(text.to_owned());
        if self.maps_unicode_hosts {
            UrlCrate.parse_url(&text.replace("bücher", "xn--bcher-kva"))
        } else {
            UrlCrate.parse_url(text)
        }
    }

    fn maps_unicode_hosts(&self) -> bool {
        self.maps_unicode_hosts
    }
}

#[test]
fn a_parser_that_maps_unicode_hosts_gets_them_as_written() {
    let parser = Recording { maps_unicode_hosts: true, ..Recording::default() };
    assert_eq!(outcome("https://bücher.example", &parser), "ok https://xn--bcher-kva.example []");
    assert_eq!(parser.given.borrow().first().map(String::as_str), Some("https://bücher.example"));
    // Unicode in a path is the path's error, with the origin as advice, as with the crate's own conversion.
    assert_eq!(outcome("https://bücher.example/ü", &parser), outcome("https://bücher.example/ü", &UrlCrate));
    // A percent-encoded name is refused before any parser sees it.
    let encoded = outcome("https://b%C3%BCcher.example", &parser);
    assert!(encoded.contains("percent-encoded"), "{encoded}");
    assert_eq!(encoded, outcome("https://b%C3%BCcher.example", &UrlCrate));
}

#[test]
fn a_parser_that_does_not_map_unicode_hosts_is_given_ascii_only() {
    let parser = Recording::default();
    for entry in corpus() {
        assert_eq!(outcome(&entry, &parser), outcome(&entry, &UrlCrate), "{entry:?}");
    }
    let given = parser.given.borrow();
    assert!(given.iter().any(|text| text.contains("xn--bcher-kva")), "the corpus has Unicode names");
    let unicode: Vec<_> = given.iter().filter(|text| !text.is_ascii()).collect();
    assert!(unicode.is_empty(), "{unicode:?}");
}
