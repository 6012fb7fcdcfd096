//! The corpus of origin-list entries (origin_entries.txt) and what parsing one gives, as text to compare: shared by
//! the native parser tests (policy/tests/origins_parsers.rs) and the browser's (bridge/tests/url_parsers.rs).

use interpane_policy::origin::UrlParser;
use interpane_policy::{OriginList, ParseOptions};

/// The entries of origin_entries.txt, escapes read (`\\`, `\t`, `\n`, `\r`, `\0`); `#` starts a comment line.
pub fn corpus() -> Vec<String> {
    include_str!("origin_entries.txt").lines().filter(|line| !line.starts_with('#')).map(unescape).collect()
}

fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('0') => '\0',
            Some(other) => other,
            None => '\\',
        });
    }
    out
}

/// What parsing `entry` as a list with `options` gives (the list and its warnings, or the error's kind and text).
pub fn outcome(entry: &str, options: ParseOptions, parser: &dyn UrlParser) -> String {
    describe(OriginList::parse_using(entry, options, parser))
}

/// The text [`outcome`] gives for a parse's result.
pub fn describe(parsed: Result<OriginList, interpane_policy::OriginListError>) -> String {
    match parsed {
        Ok(list) => format!("ok {list} {:?}", list.warnings()),
        Err(error) => format!("err {} {error}", error.kind()),
    }
}
