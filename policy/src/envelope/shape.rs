//! The shape of a JSON value that was checked: whether it nests deeper than a limit, and where its
//! first `__proto__` key is.
//!
//! Most values are settled by one word-at-a-time pass (`crate::byte_scan`): a text with no more `{` and `[`
//! than the limit cannot nest deeper, and a text without `__proto__` or a `\u` escape cannot hold such a key.
//! The others get one linear pass over their (already valid) text that counts brackets outside strings and looks
//! at every string. Only a value that does hold a string reading `__proto__` is then walked one level at a time
//! ([`for_each_member`], [`for_each_element`]) to name the key's path; it is within the limit by then, and the
//! limit is never more than [`MAX_NESTING`], so the walk's recursion is bounded.

use std::fmt::Write as _;

use super::json::{JsonKind, for_each_element, for_each_member, string, string_end};

/// The deepest nesting any value may have, whatever `Limits::max_depth` says: the nesting a `serde_json::Value` tree is built for (json_tree.rs).
pub(crate) const MAX_NESTING: usize = 128;

/// What a look at a value found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Whether the value nests deeper than the limit it was measured against.
    pub(crate) too_deep: bool,
    /// Where the first `__proto__` key is, relative to the value (`.a[0].__proto__`), when it has one. Not
    /// looked for in a value that is too deep.
    pub(crate) proto_path: Option<String>,
}

/// The shape of `text`, one valid JSON value, measured against `max_depth` levels of arrays and objects (at most
/// [`MAX_NESTING`]).
pub(crate) fn shape(text: &str, max_depth: usize) -> Shape {
    let max_depth = max_depth.min(MAX_NESTING);
    let hints = crate::byte_scan::hints(text);
    let (may_be_deep, may_hold_proto) = (hints.openers > max_depth, hints.may_hold_proto);
    if !may_be_deep && !may_hold_proto {
        return Shape::default();
    }
    let (nesting, mentions_proto) = outline(text);
    let mut found = Shape { too_deep: nesting > max_depth, proto_path: None };
    if !found.too_deep && mentions_proto {
        walk(text, &mut String::new(), &mut found);
    }
    found
}

/// Whether `text`, one valid JSON value, nests deeper than `max_depth` (or [`MAX_NESTING`]).
pub(crate) fn too_deep(text: &str, max_depth: usize) -> bool {
    let max_depth = max_depth.min(MAX_NESTING);
    crate::byte_scan::openers(text) > max_depth && outline(text).0 > max_depth
}

/// How deeply the valid JSON text `text` nests, and whether some string in it (a key or not) reads `__proto__`.
fn outline(text: &str) -> (usize, bool) {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest, mut mentions_proto) = (0usize, 0, false);
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(bytes, at + 1);
                let literal = text.get(at..=end).unwrap_or_default();
                // `\u005f` is the longest way to write one character: 9 of them and the quotes take 56 bytes.
                mentions_proto |= literal == "\"__proto__\""
                    || (literal.len() <= 56 && literal.contains('\\') && string(literal) == "__proto__");
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
    (deepest, mentions_proto)
}

/// Looks for the first `__proto__` key in `text`, `path` leading to it; stops once one is found.
fn walk(text: &str, path: &mut String, found: &mut Shape) {
    let kind = JsonKind::of(text);
    let at = path.len();
    if kind == JsonKind::Array {
        let mut index = 0;
        let _ = for_each_element(text, usize::MAX, |element| {
            if found.proto_path.is_none() {
                let _ = write!(path, "[{index}]");
                walk(element.get(), path, found);
                path.truncate(at);
            }
            index += 1;
        });
    } else if kind == JsonKind::Object {
        let _ = for_each_member(text, |key, value| {
            if found.proto_path.is_none() {
                let key = string(key.get());
                push_path_key(path, &key);
                if key == "__proto__" {
                    found.proto_path = Some(path.clone());
                }
                walk(value.get(), path, found);
                path.truncate(at);
            }
        });
    }
}

/// Appends `.key`, or `["key"]` when the key is not a plain identifier.
fn push_path_key(path: &mut String, key: &str) {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        super::encode::push_json_string(path, key);
        path.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_measured_against_the_limit() {
        assert!(!shape("[[[]]]", 3).too_deep);
        assert!(shape("[[[]]]", 2).too_deep);
        assert!(!shape("1", 0).too_deep);
        assert!(shape("{}", 0).too_deep);
        assert!(!shape("[\"[[[[\"]", 1).too_deep);
        assert!(shape("[1,{\"a\":[[2]]}]", 3).too_deep);
    }

    #[test]
    fn a_million_levels_are_too_deep_for_any_limit() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert!(shape(&deep, 64).too_deep);
        assert!(shape(&deep, usize::MAX).too_deep);
        let within = format!("{}{}", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert!(!shape(&within, usize::MAX).too_deep);
    }

    #[test]
    fn proto_keys_are_found_even_when_escaped() {
        for (text, path) in [
            ("{\"__proto__\":1}", Some(".__proto__")),
            ("{\"a\":[0,{\"__proto__\":{}}]}", Some(".a[1].__proto__")),
            ("{\"x y\":{\"\\u005f_proto__\":1}}", Some("[\"x y\"].__proto__")),
            ("{\"__proto_\":1,\"constructor\":{\"prototype\":1}}", None),
            ("[\"__proto__\"]", None),
            ("{\"\\ud800\":{\"__proto__\":1}}", Some("[\"\u{fffd}\"].__proto__")),
        ] {
            assert_eq!(shape(text, 64).proto_path.as_deref(), path, "{text}");
        }
    }
}
