//! Text for messages: paths such as `items[2].sku`, values shortened to a readable length, lists of allowed
//! values.

use std::fmt::Write as _;

use serde_json::Value;

use crate::envelope::encode::{push_json_string, push_json_value};

/// The most characters of one value (or property name) that a message shows; longer ones end in `…`.
pub(crate) const VALUE_CHARS: usize = 40;

/// The most allowed values (or property names) a message lists; the rest are counted.
pub(crate) const LISTED_VALUES: usize = 25;

/// One step from a value to a part of it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    /// A property of an object.
    Key(&'a str),
    /// An element of an array.
    Index(usize),
}

/// Appends `step` to a path: `.name` (or `name` at the start), `["odd name"]`, or `[3]`.
pub(crate) fn push_step(path: &mut String, step: Step<'_>) {
    match step {
        Step::Key(key) if is_plain_name(key) => {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&shorten(key, VALUE_CHARS));
        }
        Step::Key(key) => {
            path.push('[');
            path.push_str(&short_json_string(key));
            path.push(']');
        }
        Step::Index(index) => {
            let _ = write!(path, "[{index}]");
        }
    }
}

/// A path made of `steps`, empty for the value itself.
pub(crate) fn path_of(steps: &[Step<'_>]) -> String {
    let mut path = String::new();
    for step in steps {
        push_step(&mut path, *step);
    }
    path
}

/// The JSON Pointer (RFC 6901) of a place in the arguments, such as `/items/2/sku`; empty for the arguments
/// themselves.
pub(crate) fn pointer_of(steps: &[Step<'_>]) -> String {
    let mut pointer = String::new();
    for step in steps {
        pointer.push('/');
        match step {
            Step::Key(key) => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Step::Index(index) => {
                let _ = write!(pointer, "{index}");
            }
        }
    }
    pointer
}

/// Names shown without quotes in a path: letters, digits, `_`, `-` and `$`.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$'))
}

/// The first `max` characters of `text`, followed by `…` when something was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `value` as JSON text, shortened to [`VALUE_CHARS`] characters. Writing stops early, so a huge value costs no
/// more than a small one.
pub(crate) fn short_json(value: &Value) -> String {
    // Enough bytes for VALUE_CHARS characters of up to 4 bytes each, and one more character to know a cut happened.
    let mut text = String::new();
    push_json_value(&mut text, value, (VALUE_CHARS + 1) * 4);
    shorten(&text, VALUE_CHARS)
}

/// `text` as a JSON string, shortened to [`VALUE_CHARS`] characters.
pub(crate) fn short_json_string(text: &str) -> String {
    let mut quoted = String::new();
    push_json_string(&mut quoted, shorten_start(text));
    shorten(&quoted, VALUE_CHARS)
}

/// The first `VALUE_CHARS + 1` characters of `text`: enough to show it and to know that it was cut.
fn shorten_start(text: &str) -> &str {
    text.char_indices().nth(VALUE_CHARS + 1).map_or(text, |(cut, _)| &text[..cut])
}

/// An allowed value as a message lists it: a plain string without quotes (`small`), anything else as JSON.
pub(crate) fn allowed_value(value: &Value) -> String {
    match value {
        Value::String(text) if is_plain_text(text) => shorten(text, VALUE_CHARS),
        other => short_json(other),
    }
}

/// Strings that read unambiguously without quotes in a comma-separated list.
fn is_plain_text(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(char::is_whitespace)
        && !text.ends_with(char::is_whitespace)
        && !text.chars().any(|c| c.is_control() || matches!(c, ',' | '"' | '(' | ')'))
        && !matches!(text, "true" | "false" | "null")
        && !looks_like_a_number(text)
}

/// Whether `text` could be read as a number: it starts with a digit, a sign or a dot, or is an infinity or NaN as
/// some languages write them. (A check of the first character, not a float parser: that would link core's float
/// parsing and its tables into the download for a question of quoting.)
fn looks_like_a_number(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'))
        || matches!(lower.trim_start_matches(['-', '+']), "inf" | "infinity" | "nan")
}

/// `items` joined with `, `, at most [`LISTED_VALUES`] of them, then `… (N more)`.
pub(crate) fn list(items: impl ExactSizeIterator<Item = String>) -> String {
    let total = items.len();
    let mut text = String::new();
    for (index, item) in items.take(LISTED_VALUES).enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        text.push_str(&item);
    }
    if total > LISTED_VALUES {
        let _ = write!(text, ", … ({} more)", total - LISTED_VALUES);
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths() {
        let cases: [(&[Step<'_>], &str); 5] = [
            (&[], ""),
            (&[Step::Key("size")], "size"),
            (&[Step::Key("items"), Step::Index(2), Step::Key("sku")], "items[2].sku"),
            (&[Step::Key("a b"), Step::Key("c")], "[\"a b\"].c"),
            (&[Step::Index(0), Step::Key("")], "[0][\"\"]"),
        ];
        for (steps, expected) in cases {
            assert_eq!(path_of(steps), expected);
        }
    }

    #[test]
    fn short_values() {
        assert_eq!(short_json(&json!("huge")), "\"huge\"");
        assert_eq!(short_json(&json!({"a": [1, null]})), "{\"a\":[1,null]}");
        let long = "é".repeat(100);
        assert_eq!(short_json(&json!(long)), format!("\"{}…", "é".repeat(39)));
        let big: Vec<u32> = (0..100_000).collect();
        assert_eq!(short_json(&json!(big)), "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1…");
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "abc…");
    }

    #[test]
    fn allowed_values() {
        let cases = [
            (json!("small"), "small"),
            (json!("two words"), "two words"),
            (json!(""), "\"\""),
            (json!("a,b"), "\"a,b\""),
            (json!("12"), "\"12\""),
            (json!("null"), "\"null\""),
            (json!(12), "12"),
            (json!(null), "null"),
        ];
        for (value, expected) in cases {
            assert_eq!(allowed_value(&value), expected, "{value}");
        }
    }

    #[test]
    fn lists() {
        assert_eq!(list(["a".to_owned(), "b".to_owned()].into_iter()), "a, b");
        let many = (0..30).map(|n| n.to_string()).collect::<Vec<_>>();
        let text = list(many.into_iter());
        assert!(text.ends_with("23, 24, … (5 more)"), "{text}");
    }
}
