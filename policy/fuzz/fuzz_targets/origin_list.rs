#![no_main]
//! Origin-list parsing on arbitrary UTF-8, with and without wildcards. When a list parses: its canonical form is
//! a fixed point, the array form of its entries gives the same list, each exact entry allows itself, each wildcard
//! allows a subdomain and never its base, and `null` is never allowed. The same text read as the browser's report of a
//! window's origin is opaque or a tuple with exactly that text, and is allowed only when the list allows the text.

use libfuzzer_sys::fuzz_target;
use interpane_policy::{OriginList, OriginPattern, ParseOptions, WindowOrigin};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let window = WindowOrigin::from_browser(text);
    match window.tuple() {
        Some(tuple) => assert_eq!(tuple.as_str(), text),
        None => assert_eq!(window.serialization(), "null"),
    }
    for options in [ParseOptions::default(), ParseOptions::default().allow_wildcards(true)] {
        let list = match OriginList::parse_with(text, options) {
            Ok(list) => list,
            Err(error) => {
                assert!(error.position() >= 1);
                assert!(error.to_string().starts_with(&format!("entry {} (", error.position())));
                continue;
            }
        };
        let canonical = list.to_string();
        let again = OriginList::parse_with(&canonical, options).expect("the canonical form parses");
        assert_eq!(again, list, "{text:?}");
        assert_eq!(again.to_string(), canonical);
        let from_array = OriginList::from_entries(list.iter().map(OriginPattern::as_str), options).expect("array form");
        assert_eq!(from_array, list);
        assert!(!list.allows("null"));
        assert!(!window.allowed_by(&list) || list.allows(text), "{text:?}");
        assert!(!WindowOrigin::Opaque.allowed_by(&list));
        for pattern in &list {
            match pattern {
                OriginPattern::Exact(origin) => assert!(list.allows(origin.as_str()), "{origin}"),
                OriginPattern::Wildcard(wildcard) => {
                    assert!(options.allow_wildcards);
                    let sub = wildcard.as_str().replacen("://*.", "://sub.", 1);
                    assert!(wildcard.matches(&sub) && list.allows(&sub), "{wildcard} should allow {sub}");
                    let base = wildcard.as_str().replacen("://*.", "://", 1);
                    assert!(!wildcard.matches(&base), "{wildcard} should not allow {base}");
                }
            }
        }
    }
});
