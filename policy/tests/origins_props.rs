#![cfg(not(target_arch = "wasm32"))]
//! Property tests for origin lists (native only: proptest does not run on wasm32).
//!
//! - The canonical form is a fixed point: `parse(list.to_string()) == list`.
//! - `allows` agrees with a naive reference built on the `url` crate and a linear scan.
//! - Parsing and `allows` never panic, whatever the text.

use interpane_policy::{OriginList, OriginPattern, ParseOptions};
use proptest::prelude::*;
use url::{Host, Url};

fn wildcards() -> ParseOptions {
    ParseOptions::default().allow_wildcards(true)
}

/// Hosts close to each other, so that generated lists and origins often meet.
fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a.example".to_owned()),
        Just("b.example".to_owned()),
        Just("A.Example".to_owned()),
        Just("x.a.example".to_owned()),
        Just("y.x.a.example".to_owned()),
        Just("example".to_owned()),
        Just("localhost".to_owned()),
        Just("app.localhost".to_owned()),
        Just("127.0.0.1".to_owned()),
        Just("[::1]".to_owned()),
        Just("bücher.example".to_owned()),
        Just("xn--bcher-kva.example".to_owned()),
        Just("a..example".to_owned()),
        "[a-z0-9_-]{1,6}(\\.[a-z0-9-]{1,4}){0,2}\\.example",
        "[a-zA-Z0-9.*!_-]{0,12}",
    ]
}

fn scheme() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("https"), Just("http"), Just("HTTPS"), Just("ftp")]
}

fn port() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just(""), Just(":443"), Just(":80"), Just(":8443"), Just(":0"), Just(":")]
}

/// One list entry as a person might write it: an origin, maybe a wildcard, maybe with a slash or spaces.
fn entry() -> impl Strategy<Value = String> {
    (scheme(), any::<bool>(), host(), port(), prop_oneof![Just(""), Just("/"), Just("/x"), Just("?q")], any::<bool>())
        .prop_map(|(scheme, star, host, port, tail, padded)| {
            let star = if star { "*." } else { "" };
            let pad = if padded { " " } else { "" };
            format!("{pad}{scheme}://{star}{host}{port}{tail}{pad}")
        })
}

/// An `event.origin`-like text: usually canonical, sometimes not, often a subdomain of a generated host.
fn candidate() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (scheme(), host(), port()).prop_map(|(scheme, host, port)| format!("{scheme}://{host}{port}")),
        4 => (scheme(), "[a-zA-Z0-9.*!_/@:?-]{0,5}", host(), port())
            .prop_map(|(scheme, sub, host, port)| format!("{scheme}://{sub}.{host}{port}")),
        1 => Just("null".to_owned()),
        1 => "\\PC{0,30}",
    ]
}

/// The reference: a linear scan; exact entries compare text; a wildcard allows an origin that the `url` crate
/// serializes to itself, with the same scheme and port, whose host is a domain strictly under the wildcard's base
/// and whose extra labels hold only `a-z 0-9 - _`.
fn reference_allows(list: &OriginList, candidate: &str) -> bool {
    list.iter().any(|pattern| match pattern {
        OriginPattern::Exact(origin) => origin.as_str() == candidate,
        OriginPattern::Wildcard(wildcard) => {
            let Ok(url) = Url::parse(candidate) else {
                return false;
            };
            if url.origin().ascii_serialization() != candidate {
                return false;
            }
            let Some(Host::Domain(domain)) = url.host() else {
                return false;
            };
            let same_port = url.port().map(|p| format!(":{p}")).unwrap_or_default()
                == wildcard
                    .as_str()
                    .rsplit_once(':')
                    .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
                    .map(|(_, p)| format!(":{p}"))
                    .unwrap_or_default();
            let Some(extra) = domain.strip_suffix(wildcard.base()).and_then(|d| d.strip_suffix('.')) else {
                return false;
            };
            url.scheme() == wildcard.scheme()
                && same_port
                && extra.split('.').all(|label| {
                    !label.is_empty()
                        && label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
                })
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_canonical_form_is_a_fixed_point(entries in prop::collection::vec(entry(), 0..6)) {
        let text = entries.join(",");
        if let Ok(list) = OriginList::parse_with(&text, wildcards()) {
            let canonical = list.to_string();
            let again = OriginList::parse_with(&canonical, wildcards()).expect("the canonical form parses");
            prop_assert_eq!(&again, &list);
            prop_assert_eq!(again.to_string(), canonical);
            prop_assert!(again.warnings().iter().all(|w| !w.to_string().contains("repeats")));
            let from_array = OriginList::from_entries(list.iter().map(OriginPattern::as_str), wildcards()).unwrap();
            prop_assert_eq!(from_array, list);
        }
    }

    #[test]
    fn allows_agrees_with_the_reference(entries in prop::collection::vec(entry(), 0..6), candidates in prop::collection::vec(candidate(), 1..8)) {
        let good: Vec<&String> = entries.iter().filter(|e| OriginPattern::parse(e, wildcards()).is_ok()).collect();
        let list = OriginList::from_entries(&good, wildcards()).expect("every entry parsed alone");
        for candidate in candidates.iter().map(String::as_str).chain(list.iter().map(OriginPattern::as_str)) {
            prop_assert_eq!(list.allows(candidate), reference_allows(&list, candidate), "{} against {}", candidate, list);
        }
    }

    #[test]
    fn each_exact_entry_allows_itself(entries in prop::collection::vec(entry(), 1..6)) {
        if let Ok(list) = OriginList::parse_with(&entries.join(","), wildcards()) {
            for pattern in &list {
                if let OriginPattern::Exact(origin) = pattern {
                    prop_assert!(list.allows(origin.as_str()));
                } else {
                    let sub = pattern.as_str().replacen("*.", "sub.", 1);
                    prop_assert!(list.allows(&sub), "{} should allow {}", pattern, sub);
                }
            }
        }
    }

    #[test]
    fn any_text_parses_or_fails_without_panicking(text in "\\PC{0,60}", probe in "\\PC{0,30}") {
        for options in [ParseOptions::default(), wildcards()] {
            match OriginList::parse_with(&text, options) {
                Ok(list) => {
                    let _ = list.allows(&probe);
                    prop_assert_eq!(OriginList::parse_with(&list.to_string(), options).unwrap(), list);
                }
                Err(error) => {
                    let head = format!("entry {} (", error.position());
                    prop_assert!(error.to_string().starts_with(&head), "{}", error);
                }
            }
        }
    }
}
