//! The differential test of origin parsing (issue 24): the bridge parses origin lists with the browser's
//! `new URL()` (`interpane::BrowserUrl`), natively the url crate does (`interpane_policy::origin::UrlCrate`); on
//! every entry of the policy crate's corpus (policy/tests/data/origin_entries.txt: good entries, every refusal of
//! the origin tests, IDN, IPv4 and IPv6 forms, trailing dots, ports, credentials, queries and fragments,
//! backslashes, whitespace, wildcards) both must give the same list or the same error, message included, except
//! on the hosts the browser converts itself (`BrowserUrl::maps_unicode_hosts`): there the browser's list is what
//! it would report as `event.origin`, where the url crate's path (no Unicode tables) refuses.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../policy/tests/data/origin_corpus.rs"]
mod origin_corpus;

use interpane::{BrowserUrl, OriginList, ParseOptions};
use interpane_policy::origin::{UrlCrate, UrlParseError, UrlParser};
use origin_corpus::{corpus, outcome};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The entries of the corpus on which the two differ by design, and the browser's list for each: the url crate's
/// path refuses them (a form UTS 46 maps, which it has no tables for; an `xn--` label that is not the Punycode of
/// a valid name), the browser accepts them as the origin it would itself report for such a page.
const BROWSER_MAPS: [(&str, &str); 5] = [
    ("https://xn--a.example", "https://xn--a.example"),
    ("https://xn--ls8h.example", "https://xn--ls8h.example"),
    ("https://xn--.example", "https://xn--.example"),
    ("https://ｅｘａｍｐｌｅ.com", "https://example.com"),
    ("https://a☃.example", "https://xn--a-1xp.example"),
];

#[wasm_bindgen_test]
fn the_browsers_parser_gives_the_url_crates_lists_and_errors() {
    let entries = corpus();
    assert!(entries.len() > 250, "{}", entries.len());
    let mut differences = Vec::new();
    for options in [ParseOptions::default(), ParseOptions::default().allow_wildcards(true)] {
        for entry in &entries {
            let (reference, browser) = (outcome(entry, options, &UrlCrate), outcome(entry, options, &BrowserUrl));
            if let Some((_, list)) = BROWSER_MAPS.iter().find(|(mapped, _)| mapped == entry) {
                assert!(reference.starts_with("err invalid_host"), "{entry:?}: {reference}");
                assert_eq!(browser, format!("ok {list} []"), "{entry:?}");
                continue;
            }
            if reference != browser {
                differences.push(format!("{entry:?}\n  url crate: {reference}\n  browser:   {browser}"));
            }
        }
    }
    assert!(differences.is_empty(), "{} differences:\n{}", differences.len(), differences.join("\n"));
}

#[wasm_bindgen_test]
fn the_browsers_parts_of_accepted_entries_are_the_url_crates() {
    // Below the rules, the parts themselves, for every ASCII entry the rules accept (entries in Unicode are left
    // out: the browser is given them as written, the url crate their converted form). The parsers differ on some refused ones (Chromium escapes `*` and a
    // space in a host as `%2A` and `%20`, decodes `%C3%BC` and reads it with full IDNA, takes `xn--` as a label):
    // the rules refuse those with either, with the same error (above).
    let mut differences = Vec::new();
    let wildcards = ParseOptions::default().allow_wildcards(true);
    for entry in corpus() {
        let entry = entry.trim();
        let list = entry.contains(',');
        if list
            || entry.is_empty()
            || !entry.is_ascii()
            || entry.contains('*')
            || OriginList::parse_with(entry, wildcards).is_err()
        {
            continue;
        }
        let (reference, browser) = (UrlCrate.parse_url(entry), BrowserUrl.parse_url(entry));
        if reference != browser {
            differences.push(format!("{entry:?}\n  url crate: {reference:?}\n  browser:   {browser:?}"));
        }
    }
    assert!(differences.is_empty(), "{} differences:\n{}", differences.len(), differences.join("\n"));
}

#[wasm_bindgen_test]
fn the_browser_says_only_that_a_url_failed() {
    assert_eq!(BrowserUrl.parse_url("https://a.example:65536"), Err(UrlParseError::Unexplained));
    let parts = BrowserUrl.parse_url("HTTP://user@LOCALHOST:80/a?#").unwrap();
    assert_eq!((parts.scheme.as_str(), parts.host.as_deref(), parts.port), ("http", Some("localhost"), None));
    assert_eq!((parts.credentials, parts.path.as_str(), parts.query, parts.fragment), (true, "/a", true, true));
    let error = OriginList::parse_using("https://a.example:65536", ParseOptions::default(), &BrowserUrl).unwrap_err();
    assert_eq!(error.to_string(), OriginList::parse("https://a.example:65536").unwrap_err().to_string());
}
