//! Origin lists: every rule as a table of inputs with the exact canonical form or the exact error.
//! Runs natively and, on wasm32, in the browser.
// On wasm32 the `test` alias below hides these functions from clippy's test detection, so allow there what
// tests may do anyway (clippy.toml allows it in tests): a failed unwrap is a failed test.
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::{
    Origin, OriginError, OriginErrorKind, OriginList, OriginListWarning, OriginPattern, ParseOptions, WindowOrigin,
    tool_visible_to,
};

fn wildcards() -> ParseOptions {
    ParseOptions::default().allow_wildcards(true)
}

/// One-entry inputs that are accepted, with their canonical form.
const ACCEPTED: &[(&str, &str)] = &[
    ("https://shop.example", "https://shop.example"),
    ("https://shop.example/", "https://shop.example"),
    ("  https://shop.example  ", "https://shop.example"),
    ("\thttps://shop.example\n", "https://shop.example"),
    ("HTTPS://SHOP.Example", "https://shop.example"),
    ("https://PAY.example:443/", "https://pay.example"),
    ("https://a.example:0443", "https://a.example"),
    ("https://a.example:8443", "https://a.example:8443"),
    ("https://a.example:65535", "https://a.example:65535"),
    ("https://a.example:1", "https://a.example:1"),
    ("https://a.example:", "https://a.example"),
    ("https://a.example:80", "https://a.example:80"),
    ("https://a.example.", "https://a.example."),
    ("https://a_b.example", "https://a_b.example"),
    ("https://a-b.example", "https://a-b.example"),
    ("https://a%2Eexample", "https://a.example"),
    ("https://bücher.example", "https://xn--bcher-kva.example"),
    ("https://BÜCHER.example", "https://xn--bcher-kva.example"),
    ("https://例え.テスト", "https://xn--r8jz45g.xn--zckzah"),
    ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"),
    ("https://localhost", "https://localhost"),
    ("https://192.0.2.1", "https://192.0.2.1"),
    ("https://[::1]", "https://[::1]"),
    ("https://[::1]:443", "https://[::1]"),
    ("https://[2001:DB8::1]:8443", "https://[2001:db8::1]:8443"),
    ("http://localhost", "http://localhost"),
    ("http://LOCALHOST:8080/", "http://localhost:8080"),
    ("http://localhost:80", "http://localhost"),
    ("http://app.localhost:3000", "http://app.localhost:3000"),
    ("http://a.b.localhost", "http://a.b.localhost"),
    ("http://127.0.0.1:8401", "http://127.0.0.1:8401"),
    ("http://127.255.255.254", "http://127.255.255.254"),
    ("http://127.1", "http://127.0.0.1"),
    ("http://0x7f.1", "http://127.0.0.1"),
    ("http://2130706433", "http://127.0.0.1"),
    ("http://[::1]:3000", "http://[::1]:3000"),
    ("http://[0:0::1]", "http://[::1]"),
    ("http://localhost:443", "http://localhost:443"),
];

#[test]
fn accepted_entries_have_their_canonical_form() {
    for (input, canonical) in ACCEPTED {
        let list = OriginList::parse(input).unwrap_or_else(|e| panic!("{input:?} was refused: {e}"));
        assert_eq!(list.to_string(), *canonical, "{input:?}");
        assert_eq!(list.len(), 1, "{input:?}");
        assert!(list.allows(canonical), "{input:?} should allow {canonical}");
        let origin = Origin::parse_entry(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(origin.as_str(), *canonical, "{input:?}");
        assert_eq!(origin.to_string(), *canonical, "{input:?}");
    }
}

/// The common endings of the messages, to keep the table readable.
const SCHEME_TAIL: &str = "cannot be listed; write an https origin (http only for localhost, *.localhost, 127.0.0.0/8 and [::1]), such as https://widget.example";
const HOST_TAIL: &str = "write a domain name or an IP address, such as https://widget.example";
const HTTP_HEAD: &str = "http is only allowed for localhost, *.localhost, 127.0.0.0/8 and [::1]: did you mean";
const WILDCARD_SHAPE: &str = "a wildcard must be the whole first label of the host, after the scheme";

fn host(reason: &str) -> OriginError {
    OriginError::InvalidHost { reason: reason.to_owned() }
}
fn path(suggestion: &str) -> OriginError {
    OriginError::Path { suggestion: suggestion.to_owned() }
}
fn query(suggestion: &str) -> OriginError {
    OriginError::Query { suggestion: suggestion.to_owned() }
}
fn fragment(suggestion: &str) -> OriginError {
    OriginError::Fragment { suggestion: suggestion.to_owned() }
}
fn credentials(suggestion: &str) -> OriginError {
    OriginError::Credentials { suggestion: suggestion.to_owned() }
}
fn insecure(suggestion: &str) -> OriginError {
    OriginError::InsecureHttp { suggestion: suggestion.to_owned() }
}
fn scheme(scheme: &str) -> OriginError {
    OriginError::UnsupportedScheme { scheme: scheme.to_owned() }
}
fn missing(suggestion: Option<&str>) -> OriginError {
    OriginError::MissingScheme { suggestion: suggestion.map(str::to_owned) }
}
fn malformed(suggestion: Option<&str>) -> OriginError {
    OriginError::MalformedWildcard { suggestion: suggestion.map(str::to_owned) }
}
fn public_suffix(suffix: &str) -> OriginError {
    OriginError::WildcardOnPublicSuffix { suffix: suffix.to_owned() }
}

/// Refused lists (parsed without wildcards): the error, its position from 1, and its exact message.
fn refused() -> Vec<(&'static str, OriginError, usize, String)> {
    let any = "a wildcard cannot be used; list the origins, such as https://widget.example";
    let null = "an opaque origin (null) cannot be named: every sandboxed frame and data: URL has it; list real \
                origins, such as https://widget.example";
    let empty =
        "the entry is empty; remove it (and its extra comma), or write an origin such as https://widget.example";
    let space = "it holds whitespace or a control character; separate origins with commas, such as https://a.example,https://b.example";
    let port = "the port is not valid; write a number from 1 to 65535, such as https://widget.example:8443";
    let off = "wildcards are off; list the origins, or enable wildcards with `allowWildcards: true` in JS \
               (`ParseOptions::default().allow_wildcards(true)` in Rust)";
    vec![
        ("*", OriginError::AnyOrigin, 1, format!("entry 1 (\"*\"): {any}")),
        ("https://a.example,*", OriginError::AnyOrigin, 2, format!("entry 2 (\"*\"): {any}")),
        ("https://a.example, * ,https://b.example", OriginError::AnyOrigin, 2, format!("entry 2 (\"*\"): {any}")),
        ("null", OriginError::NullOrigin, 1, format!("entry 1 (\"null\"): {null}")),
        ("https://a.example,NULL", OriginError::NullOrigin, 2, format!("entry 2 (\"NULL\"): {null}")),
        ("https://a.example,,https://b.example", OriginError::Empty, 2, format!("entry 2 (\"\"): {empty}")),
        ("https://a.example,", OriginError::Empty, 2, format!("entry 2 (\"\"): {empty}")),
        (",https://a.example", OriginError::Empty, 1, format!("entry 1 (\"\"): {empty}")),
        (" , ", OriginError::Empty, 1, format!("entry 1 (\"\"): {empty}")),
        ("https://a.example https://b.example", OriginError::Whitespace, 1, format!("entry 1 (\"https://a.example https://b.example\"): {space}")),
        ("https://a b.example", OriginError::Whitespace, 1, format!("entry 1 (\"https://a b.example\"): {space}")),
        ("https://a\t.example", OriginError::Whitespace, 1, format!("entry 1 (\"https://a\\t.example\"): {space}")),
        ("https://a.example/app", path("https://a.example"), 1, "entry 1 (\"https://a.example/app\"): origins have no path: did you mean https://a.example?".into()),
        ("https://a.example:8443/app/", path("https://a.example:8443"), 1, "entry 1 (\"https://a.example:8443/app/\"): origins have no path: did you mean https://a.example:8443?".into()),
        ("https://a.example//", path("https://a.example"), 1, "entry 1 (\"https://a.example//\"): origins have no path: did you mean https://a.example?".into()),
        ("https://a.example/./", path("https://a.example"), 1, "entry 1 (\"https://a.example/./\"): origins have no path: did you mean https://a.example?".into()),
        ("https://a.example\\app", path("https://a.example"), 1, "entry 1 (\"https://a.example\\\\app\"): origins have no path: did you mean https://a.example?".into()),
        ("https://a.example/app?x=1", path("https://a.example"), 1, "entry 1 (\"https://a.example/app?x=1\"): origins have no path: did you mean https://a.example?".into()),
        ("https://a.example?x=1", query("https://a.example"), 1, "entry 1 (\"https://a.example?x=1\"): origins have no query: did you mean https://a.example?".into()),
        ("https://a.example/?", query("https://a.example"), 1, "entry 1 (\"https://a.example/?\"): origins have no query: did you mean https://a.example?".into()),
        ("https://a.example#top", fragment("https://a.example"), 1, "entry 1 (\"https://a.example#top\"): origins have no fragment: did you mean https://a.example?".into()),
        ("https://a.example/#", fragment("https://a.example"), 1, "entry 1 (\"https://a.example/#\"): origins have no fragment: did you mean https://a.example?".into()),
        ("https://user:pw@a.example", credentials("https://a.example"), 1, "entry 1 (\"https://user:pw@a.example\"): origins have no user name or password: did you mean https://a.example?".into()),
        ("https://user@a.example/app", credentials("https://a.example"), 1, "entry 1 (\"https://user@a.example/app\"): origins have no user name or password: did you mean https://a.example?".into()),
        ("https://:pw@a.example", credentials("https://a.example"), 1, "entry 1 (\"https://:pw@a.example\"): origins have no user name or password: did you mean https://a.example?".into()),
        ("https://@a.example", credentials("https://a.example"), 1, "entry 1 (\"https://@a.example\"): origins have no user name or password: did you mean https://a.example?".into()),
        ("ftp://a.example", scheme("ftp"), 1, format!("entry 1 (\"ftp://a.example\"): the scheme ftp: {SCHEME_TAIL}")),
        ("wss://a.example", scheme("wss"), 1, format!("entry 1 (\"wss://a.example\"): the scheme wss: {SCHEME_TAIL}")),
        ("file:///etc/passwd", scheme("file"), 1, format!("entry 1 (\"file:///etc/passwd\"): the scheme file: {SCHEME_TAIL}")),
        ("javascript:alert(1)", scheme("javascript"), 1, format!("entry 1 (\"javascript:alert(1)\"): the scheme javascript: {SCHEME_TAIL}")),
        ("blob:https://a.example", scheme("blob"), 1, format!("entry 1 (\"blob:https://a.example\"): the scheme blob: {SCHEME_TAIL}")),
        ("chrome-extension://abcdef", scheme("chrome-extension"), 1, format!("entry 1 (\"chrome-extension://abcdef\"): the scheme chrome-extension: {SCHEME_TAIL}")),
        ("HTPS://a.example", scheme("htps"), 1, format!("entry 1 (\"HTPS://a.example\"): the scheme htps: {SCHEME_TAIL}")),
        ("http://a.example", insecure("https://a.example"), 1, format!("entry 1 (\"http://a.example\"): {HTTP_HEAD} https://a.example?")),
        ("http://a.example:8080/app", insecure("https://a.example:8080"), 1, format!("entry 1 (\"http://a.example:8080/app\"): {HTTP_HEAD} https://a.example:8080?")),
        ("http://a.example:443", insecure("https://a.example"), 1, format!("entry 1 (\"http://a.example:443\"): {HTTP_HEAD} https://a.example?")),
        ("http://localhost.example", insecure("https://localhost.example"), 1, format!("entry 1 (\"http://localhost.example\"): {HTTP_HEAD} https://localhost.example?")),
        ("http://mylocalhost", insecure("https://mylocalhost"), 1, format!("entry 1 (\"http://mylocalhost\"): {HTTP_HEAD} https://mylocalhost?")),
        ("http://128.0.0.1", insecure("https://128.0.0.1"), 1, format!("entry 1 (\"http://128.0.0.1\"): {HTTP_HEAD} https://128.0.0.1?")),
        ("http://10.0.0.1", insecure("https://10.0.0.1"), 1, format!("entry 1 (\"http://10.0.0.1\"): {HTTP_HEAD} https://10.0.0.1?")),
        ("http://[::2]", insecure("https://[::2]"), 1, format!("entry 1 (\"http://[::2]\"): {HTTP_HEAD} https://[::2]?")),
        ("http://[::ffff:127.0.0.1]", insecure("https://[::ffff:7f00:1]"), 1, format!("entry 1 (\"http://[::ffff:127.0.0.1]\"): {HTTP_HEAD} https://[::ffff:7f00:1]?")),
        ("https://", host("it is empty"), 1, format!("entry 1 (\"https://\"): the host is not valid (it is empty); {HOST_TAIL}")),
        ("https://a..example", host("it has an empty label"), 1, format!("entry 1 (\"https://a..example\"): the host is not valid (it has an empty label); {HOST_TAIL}")),
        ("https://.example", host("it has an empty label"), 1, format!("entry 1 (\"https://.example\"): the host is not valid (it has an empty label); {HOST_TAIL}")),
        ("https://a!b.example", host("it holds '!'; hosts hold letters, digits, - and _"), 1, format!("entry 1 (\"https://a!b.example\"): the host is not valid (it holds '!'; hosts hold letters, digits, - and _); {HOST_TAIL}")),
        ("https://xn--a.example", host("it is not a valid domain name"), 1, format!("entry 1 (\"https://xn--a.example\"): the host is not valid (it is not a valid domain name); {HOST_TAIL}")),
        ("https://256.0.0.1", host("it is not a valid IPv4 address"), 1, format!("entry 1 (\"https://256.0.0.1\"): the host is not valid (it is not a valid IPv4 address); {HOST_TAIL}")),
        ("https://1.2.3.4.5", host("it is not a valid IPv4 address"), 1, format!("entry 1 (\"https://1.2.3.4.5\"): the host is not valid (it is not a valid IPv4 address); {HOST_TAIL}")),
        ("https://[::1", host("it is not a valid IPv6 address"), 1, format!("entry 1 (\"https://[::1\"): the host is not valid (it is not a valid IPv6 address); {HOST_TAIL}")),
        ("https://a<b.example", host("it is not a valid domain name"), 1, format!("entry 1 (\"https://a<b.example\"): the host is not valid (it is not a valid domain name); {HOST_TAIL}")),
        ("https://a.example:0", OriginError::InvalidPort, 1, format!("entry 1 (\"https://a.example:0\"): {port}")),
        ("https://a.example:65536", OriginError::InvalidPort, 1, format!("entry 1 (\"https://a.example:65536\"): {port}")),
        ("https://a.example:8a", OriginError::InvalidPort, 1, format!("entry 1 (\"https://a.example:8a\"): {port}")),
        ("https://a.example:-1", OriginError::InvalidPort, 1, format!("entry 1 (\"https://a.example:-1\"): {port}")),
        ("shop.example", missing(Some("https://shop.example")), 1, "entry 1 (\"shop.example\"): an origin starts with its scheme and ://: did you mean https://shop.example?".into()),
        ("shop.example/app", missing(Some("https://shop.example")), 1, "entry 1 (\"shop.example/app\"): an origin starts with its scheme and ://: did you mean https://shop.example?".into()),
        ("shop.example:8080", missing(Some("https://shop.example:8080")), 1, "entry 1 (\"shop.example:8080\"): an origin starts with its scheme and ://: did you mean https://shop.example:8080?".into()),
        ("localhost:8080", missing(Some("http://localhost:8080")), 1, "entry 1 (\"localhost:8080\"): an origin starts with its scheme and ://: did you mean http://localhost:8080?".into()),
        ("https:shop.example", missing(Some("https://shop.example")), 1, "entry 1 (\"https:shop.example\"): an origin starts with its scheme and ://: did you mean https://shop.example?".into()),
        ("//shop.example", missing(Some("https://shop.example")), 1, "entry 1 (\"//shop.example\"): an origin starts with its scheme and ://: did you mean https://shop.example?".into()),
        ("://shop.example", missing(Some("https://shop.example")), 1, "entry 1 (\"://shop.example\"): an origin starts with its scheme and ://: did you mean https://shop.example?".into()),
        ("127.0.0.1:3000", missing(Some("http://127.0.0.1:3000")), 1, "entry 1 (\"127.0.0.1:3000\"): an origin starts with its scheme and ://: did you mean http://127.0.0.1:3000?".into()),
        ("localhost:abc", missing(None), 1, "entry 1 (\"localhost:abc\"): an origin starts with its scheme and ://, such as https://widget.example".into()),
        ("https://*.example.com", OriginError::WildcardsDisabled, 1, format!("entry 1 (\"https://*.example.com\"): {off}")),
        ("https://a.example,https://*.com", OriginError::WildcardsDisabled, 2, format!("entry 2 (\"https://*.com\"): {off}")),
        ("https://a.*.com", malformed(None), 1, format!("entry 1 (\"https://a.*.com\"): {WILDCARD_SHAPE}, such as https://*.widget.example")),
        ("*.example.com", malformed(Some("https://*.example.com")), 1, format!("entry 1 (\"*.example.com\"): {WILDCARD_SHAPE}: did you mean https://*.example.com?")),
        ("*://a.example", malformed(None), 1, format!("entry 1 (\"*://a.example\"): {WILDCARD_SHAPE}, such as https://*.widget.example")),
    ]
}

#[test]
fn refused_lists_name_the_entry_its_position_and_the_fix() {
    for (input, problem, position, message) in refused() {
        let error = OriginList::parse(input).expect_err(input);
        assert_eq!(error.problem(), &problem, "{input:?}");
        assert_eq!(error.position(), position, "{input:?}");
        assert_eq!(error.index(), position - 1, "{input:?}");
        assert_eq!(error.kind(), problem.kind(), "{input:?}");
        assert_eq!(error.to_string(), message, "{input:?}");
        let entry = input.split(',').nth(position - 1).unwrap_or_default().trim();
        assert_eq!(error.entry(), entry, "{input:?}");
    }
}

#[test]
fn one_entry_refusals_are_the_same_without_a_list() {
    for (input, problem, position, _) in refused() {
        if position == 1 && !input.contains(',') {
            assert_eq!(Origin::parse_entry(input), Err(problem.clone()), "{input:?}");
            assert_eq!(input.parse::<Origin>(), Err(problem), "{input:?}");
        }
    }
}

/// Wildcard entries (wildcards enabled): the canonical form, or the error.
fn wildcard_cases() -> Vec<(&'static str, Result<&'static str, OriginError>)> {
    vec![
        ("https://*.example.com", Ok("https://*.example.com")),
        ("HTTPS://*.EXAMPLE.com:8443/", Ok("https://*.example.com:8443")),
        ("https://*.example.com:443", Ok("https://*.example.com")),
        ("https://*.example.co.uk", Ok("https://*.example.co.uk")),
        ("https://*.bücher.example", Ok("https://*.xn--bcher-kva.example")),
        ("https://*.a.b.example", Ok("https://*.a.b.example")),
        ("http://*.dev.localhost:3000", Ok("http://*.dev.localhost:3000")),
        ("https://*.example.com.", Ok("https://*.example.com.")),
        ("https://*.com", Err(public_suffix("com"))),
        ("https://*.COM.", Err(public_suffix("com"))),
        ("https://*.co.uk", Err(public_suffix("co.uk"))),
        ("https://*.com.au", Err(public_suffix("com.au"))),
        ("https://*.github.io", Err(public_suffix("github.io"))),
        ("https://*.xn--p1ai", Err(public_suffix("xn--p1ai"))),
        ("http://*.localhost", Err(public_suffix("localhost"))),
        ("http://*.example.com", Err(insecure("https://*.example.com"))),
        ("https://*.example.com/app", Err(path("https://*.example.com"))),
        ("https://*.example.com?x", Err(query("https://*.example.com"))),
        ("https://*.example.com#x", Err(fragment("https://*.example.com"))),
        ("https://u@*.example.com", Err(malformed(None))),
        ("https://*.example.com:0", Err(OriginError::InvalidPort)),
        ("https://*.example.com@evil.example", Err(malformed(None))),
        ("http://*.example.com@localhost", Err(malformed(None))),
        ("https://*.:8080", Err(malformed(None))),
        ("https://*.", Err(malformed(None))),
        ("https://a.*.com", Err(malformed(None))),
        ("https://*example.com", Err(malformed(None))),
        ("https://ex*ample.com", Err(malformed(None))),
        ("https://*", Err(malformed(None))),
        ("https://*:8443", Err(malformed(None))),
        ("https://*.*.example.com", Err(malformed(None))),
        ("*.example.com", Err(malformed(Some("https://*.example.com")))),
        ("https://*.1.2.3", Err(host("it is not a valid IPv4 address"))),
        ("https://*..example.com", Err(host("it has an empty label"))),
        ("ftp://*.example.com", Err(scheme("ftp"))),
        ("*", Err(OriginError::AnyOrigin)),
    ]
}

#[test]
fn wildcards_have_a_canonical_form_or_a_precise_error() {
    for (input, expected) in wildcard_cases() {
        let got = OriginList::parse_with(input, wildcards());
        match expected {
            Ok(canonical) => {
                let list = got.unwrap_or_else(|e| panic!("{input:?} was refused: {e}"));
                assert_eq!(list.to_string(), canonical, "{input:?}");
                assert!(list.has_wildcards(), "{input:?}");
            }
            Err(problem) => assert_eq!(got.map_err(|e| e.problem().clone()), Err(problem), "{input:?}"),
        }
    }
}

#[test]
fn wildcard_messages_say_what_to_write() {
    let cases = [
        (
            "https://*.co.uk",
            "entry 1 (\"https://*.co.uk\"): a wildcard cannot cover a public suffix (co.uk), where anyone can \
             register a name; put it on a domain you control, such as https://*.widget.example",
        ),
        (
            "http://*.example.com",
            "entry 1 (\"http://*.example.com\"): http is only allowed for localhost, *.localhost, 127.0.0.0/8 and \
             [::1]: did you mean https://*.example.com?",
        ),
        (
            "https://*.example.com/app",
            "entry 1 (\"https://*.example.com/app\"): origins have no path: did you mean https://*.example.com?",
        ),
    ];
    for (input, message) in cases {
        assert_eq!(OriginList::parse_with(input, wildcards()).expect_err(input).to_string(), message);
    }
}

#[test]
fn a_wildcard_matches_subdomains_only_with_the_same_scheme_and_port() {
    let list = OriginList::parse_with("https://*.example.com", wildcards()).unwrap();
    let port = OriginList::parse_with("https://*.example.com:8443", wildcards()).unwrap();
    let cases = [
        ("https://a.example.com", true, false),
        ("https://a.b.example.com", true, false),
        ("https://x-1_y.example.com", true, false),
        ("https://a.example.com:8443", false, true),
        ("https://a.b.example.com:8443", false, true),
        ("https://example.com", false, false),
        ("https://example.com:8443", false, false),
        ("http://a.example.com", false, false),
        ("https://a.example.com:443", false, false),
        ("https://A.example.com", false, false),
        ("https://.example.com", false, false),
        ("https://a..example.com", false, false),
        ("https://a.example.com.", false, false),
        ("https://aexample.com", false, false),
        ("https://a.example.com.evil.example", false, false),
        ("https://evil.example/.example.com", false, false),
        ("https://evil.example?.example.com", false, false),
        ("https://u@a.example.com", false, false),
        ("https://*.example.com", false, false),
        ("https://a.example.co", false, false),
        ("null", false, false),
        ("", false, false),
    ];
    for (origin, default_port, port_8443) in cases {
        assert_eq!(list.allows(origin), default_port, "{origin:?} against {list}");
        assert_eq!(port.allows(origin), port_8443, "{origin:?} against {port}");
    }
}

#[test]
fn allows_is_exact_on_the_canonical_form() {
    let list = OriginList::parse("https://shop.example, https://PAY.example:443/, http://localhost:8080").unwrap();
    let cases = [
        ("https://shop.example", true),
        ("https://pay.example", true),
        ("http://localhost:8080", true),
        ("https://PAY.example", false),
        ("https://pay.example/", false),
        ("https://pay.example:443", false),
        ("http://pay.example", false),
        ("https://pay.example.", false),
        ("https://sub.pay.example", false),
        ("http://localhost", false),
        ("http://localhost:8081", false),
        ("https://localhost:8080", false),
        (" https://shop.example", false),
        ("null", false),
        ("", false),
    ];
    for (origin, allowed) in cases {
        assert_eq!(list.allows(origin), allowed, "{origin:?}");
    }
}

#[test]
fn null_is_never_allowed() {
    for text in ["", "https://a.example", "http://localhost"] {
        assert!(!OriginList::parse(text).unwrap().allows("null"), "{text:?}");
    }
    assert!(!OriginList::parse_with("https://*.example.com", wildcards()).unwrap().allows("null"));
    let opaque = WindowOrigin::from_browser("null");
    assert!(!tool_visible_to(&opaque, &opaque, None, &OriginList::empty()));
}

#[test]
fn empty_text_is_the_empty_list() {
    for text in ["", " ", "\t\n ", "\u{a0}"] {
        let list = OriginList::parse(text).unwrap();
        assert!(list.is_empty(), "{text:?}");
        assert_eq!(list.len(), 0);
        assert_eq!(list.to_string(), "");
        assert_eq!(list, OriginList::empty());
        assert!(!list.allows("https://a.example"));
    }
    assert_eq!(OriginList::from_entries(Vec::<String>::new(), ParseOptions::default()).unwrap(), OriginList::empty());
}

#[test]
fn the_issue_example_holds() {
    let list = OriginList::parse("https://shop.example, https://PAY.example:443/").unwrap();
    assert!(list.allows("https://pay.example"));
    assert_eq!(list.to_string(), "https://shop.example,https://pay.example");
    assert_eq!(OriginList::parse(&list.to_string()).unwrap(), list);
    assert_eq!(
        list.iter().map(OriginPattern::as_str).collect::<Vec<_>>(),
        ["https://shop.example", "https://pay.example"]
    );
    assert!(list.warnings().is_empty());
}

#[test]
fn duplicates_are_merged_with_a_warning() {
    let list =
        OriginList::parse("https://a.example, https://A.EXAMPLE:443, https://b.example, https://a.example/").unwrap();
    assert_eq!(list.to_string(), "https://a.example,https://b.example");
    assert_eq!(list.len(), 2);
    assert_eq!(
        list.warnings(),
        [
            OriginListWarning::Duplicate {
                index: 1,
                entry: "https://A.EXAMPLE:443".into(),
                first_index: 0,
                canonical: "https://a.example".into(),
            },
            OriginListWarning::Duplicate {
                index: 3,
                entry: "https://a.example/".into(),
                first_index: 0,
                canonical: "https://a.example".into(),
            },
        ]
    );
    assert_eq!(
        list.warnings()[0].to_string(),
        "entry 2 (\"https://A.EXAMPLE:443\") repeats entry 1 (https://a.example); the two were merged"
    );
}

#[test]
fn an_exact_origin_under_a_wildcard_is_kept_with_a_warning() {
    let list = OriginList::parse_with("https://a.example.com, https://*.example.com", wildcards()).unwrap();
    assert_eq!(list.to_string(), "https://a.example.com,https://*.example.com");
    assert_eq!(
        list.warnings(),
        [OriginListWarning::Covered {
            index: 0,
            canonical: "https://a.example.com".into(),
            wildcard_index: 1,
            wildcard: "https://*.example.com".into(),
        }]
    );
    assert_eq!(
        list.warnings()[0].to_string(),
        "entry 1 (https://a.example.com) is already allowed by entry 2 (https://*.example.com); remove one of them"
    );
}

#[test]
fn the_array_form_counts_positions_by_item() {
    let options = ParseOptions::default();
    let list = OriginList::from_entries(["https://shop.example", " https://PAY.example "], options).unwrap();
    assert_eq!(list, OriginList::parse("https://shop.example,https://pay.example").unwrap());

    let error = OriginList::from_entries(vec!["https://a.example".to_string(), String::new()], options).unwrap_err();
    assert_eq!((error.index(), error.position(), error.kind()), (1, 2, OriginErrorKind::Empty));

    let error = OriginList::from_entries(["https://a.example", "https://b.example,https://c.example"], options);
    let error = error.unwrap_err();
    assert_eq!((error.problem(), error.index()), (&OriginError::Comma, 1));
    assert_eq!(
        error.to_string(),
        "entry 2 (\"https://b.example,https://c.example\"): it holds a comma; put each origin in its own item, \
         such as [\"https://a.example\", \"https://b.example\"]"
    );

    let error = OriginList::from_entries(["https://a.example", "https://*.b.example"], options).unwrap_err();
    assert_eq!((error.problem(), error.position()), (&OriginError::WildcardsDisabled, 2));
    let list = OriginList::from_entries(["https://*.b.example"], wildcards()).unwrap();
    assert!(list.allows("https://x.b.example"));
}

#[test]
fn display_parses_back_to_an_equal_list() {
    let inputs = [
        "https://shop.example, https://PAY.example:443/",
        "http://LOCALHOST:8080,https://[2001:DB8::1]:8443,https://bücher.example",
        "https://*.EXAMPLE.com:8443, https://a.example., https://a.example",
        "https://a.example,https://a.example",
        "",
    ];
    for input in inputs {
        let list = OriginList::parse_with(input, wildcards()).unwrap();
        let again = OriginList::parse_with(&list.to_string(), wildcards()).unwrap();
        assert_eq!(again, list, "{input:?}");
        assert_eq!(again.to_string(), list.to_string(), "{input:?}");
        assert!(again.warnings().is_empty(), "{input:?}");
    }
}

#[test]
fn equality_follows_the_canonical_entries_in_order() {
    let a = OriginList::parse("https://a.example,https://b.example").unwrap();
    assert_eq!(a, OriginList::parse("HTTPS://A.example:443/ , https://b.example").unwrap());
    assert_ne!(a, OriginList::parse("https://b.example,https://a.example").unwrap());
    assert_ne!(a, OriginList::parse("https://a.example").unwrap());
}

#[test]
fn every_kind_has_a_stable_name() {
    let kinds = [
        (OriginError::AnyOrigin, "any_origin"),
        (OriginError::NullOrigin, "null_origin"),
        (OriginError::Empty, "empty"),
        (OriginError::Whitespace, "whitespace"),
        (OriginError::Comma, "comma"),
        (missing(None), "missing_scheme"),
        (OriginError::NotAUrl { reason: String::new() }, "not_a_url"),
        (scheme("ftp"), "unsupported_scheme"),
        (credentials(""), "credentials"),
        (path(""), "path"),
        (query(""), "query"),
        (fragment(""), "fragment"),
        (insecure(""), "insecure_http"),
        (host(""), "invalid_host"),
        (OriginError::InvalidPort, "invalid_port"),
        (OriginError::WildcardsDisabled, "wildcards_disabled"),
        (public_suffix("com"), "wildcard_on_public_suffix"),
        (malformed(None), "malformed_wildcard"),
    ];
    for (error, name) in kinds {
        assert_eq!(error.kind().as_str(), name);
        assert_eq!(error.kind().to_string(), name);
    }
}

#[test]
fn suggestions_are_exposed_for_code() {
    assert_eq!(path("https://a.example").suggestion(), Some("https://a.example"));
    assert_eq!(missing(Some("https://a.example")).suggestion(), Some("https://a.example"));
    assert_eq!(missing(None).suggestion(), None);
    assert_eq!(OriginError::AnyOrigin.suggestion(), None);
}

#[test]
fn long_entries_are_cut_in_messages() {
    let long = format!("https://a.example/{}", "x".repeat(500));
    let error = OriginList::parse(&long).unwrap_err();
    let quoted = format!("\"{}\"…", &long[..100]);
    assert_eq!(error.to_string(), format!("entry 1 ({quoted}): origins have no path: did you mean https://a.example?"));
    assert_eq!(error.entry(), long, "the full entry stays available");
}

#[test]
fn an_origin_has_its_parts() {
    let cases = [
        ("https://shop.example", "https", "shop.example", None, 443),
        ("https://shop.example:8443", "https", "shop.example", Some(8443), 8443),
        ("http://localhost:8080", "http", "localhost", Some(8080), 8080),
        ("http://[::1]", "http", "[::1]", None, 80),
        ("https://[2001:db8::1]:444", "https", "[2001:db8::1]", Some(444), 444),
    ];
    for (text, scheme, host, port, effective) in cases {
        let origin = Origin::parse_entry(text).unwrap();
        assert_eq!((origin.scheme(), origin.host(), origin.port()), (scheme, host, port), "{text}");
        assert_eq!(origin.port_or_default(), effective, "{text}");
    }
}

#[test]
fn an_origin_serializes_like_event_origin() {
    let origin = Origin::parse_entry("HTTPS://Bücher.example:443").unwrap();
    assert_eq!(serde_json::to_string(&origin).unwrap(), "\"https://xn--bcher-kva.example\"");
    let back: Origin = serde_json::from_str("\"https://xn--bcher-kva.example/\"").unwrap();
    assert_eq!(back, origin);
    let refused = serde_json::from_str::<Origin>("\"http://a.example\"").unwrap_err().to_string();
    assert!(refused.starts_with("http is only allowed for localhost"), "{refused}");
}

#[test]
fn a_pattern_parses_alone() {
    let wildcard = OriginPattern::parse(" https://*.Example.com ", wildcards()).unwrap();
    assert!(wildcard.is_wildcard());
    assert_eq!(wildcard.as_str(), "https://*.example.com");
    assert!(wildcard.matches("https://a.example.com"));
    let OriginPattern::Wildcard(inner) = &wildcard else { unreachable!() };
    assert_eq!((inner.scheme(), inner.base()), ("https", "example.com"));
    let exact = OriginPattern::parse("https://a.example", ParseOptions::default()).unwrap();
    assert!(!exact.is_wildcard());
    assert!(exact.matches("https://a.example") && !exact.matches("https://b.example"));
    assert_eq!(OriginPattern::parse("https://*.com", wildcards()), Err(public_suffix("com")));
}

#[test]
fn visibility_follows_the_owner_then_the_tool_list_then_the_page_list() {
    let owner = "https://store.example";
    let page = OriginList::parse("https://shop.example, https://pay.example").unwrap();
    let tool = OriginList::parse("https://pay.example, https://partner.example").unwrap();
    let nobody = OriginList::empty();
    let cases: [(&str, Option<&OriginList>, &OriginList, bool); 12] = [
        (owner, None, &nobody, true),
        (owner, Some(&nobody), &nobody, true),
        ("https://shop.example", None, &page, true),
        ("https://evil.example", None, &page, false),
        ("https://pay.example", Some(&tool), &page, true),
        ("https://partner.example", Some(&tool), &page, true),
        ("https://shop.example", Some(&tool), &page, false),
        ("https://shop.example", Some(&nobody), &page, false),
        ("https://shop.example", None, &nobody, false),
        ("null", None, &page, false),
        ("https://SHOP.example", None, &page, false),
        ("https://store.example:443", None, &page, false),
    ];
    for (caller, tool_list, page_list, visible) in cases {
        let (caller_origin, owner_origin) = (WindowOrigin::from_browser(caller), WindowOrigin::from_browser(owner));
        assert_eq!(
            tool_visible_to(&caller_origin, &owner_origin, tool_list, page_list),
            visible,
            "{caller} tool={tool_list:?}"
        );
    }
}

/// Inputs the fuzzer found (policy/fuzz, origin_list) after the URL parser lost its Unicode tables: each parses to
/// a list whose canonical form parses back to it, or is refused, and none reaches the URL parser with Unicode.
#[test]
fn fuzz_regressions_parse_or_fail_cleanly() {
    let inputs = [
        "https://hke\u{657}.xn--ggggggggggggggggggggmhegggggggggggggggga-hxxamhegggggttplAbhe",
        "https:///h*.ypDDDDDDDDDDDDdD\u{36f}\u{36f}h",
        "http:///.eO%d2HH--:0.e%d2d2a",
    ];
    for input in inputs {
        for options in [ParseOptions::default(), ParseOptions::default().allow_wildcards(true)] {
            if let Ok(list) = OriginList::parse_with(input, options) {
                assert_eq!(OriginList::parse_with(&list.to_string(), options).as_ref(), Ok(&list), "{input:?}");
            }
        }
    }
}
