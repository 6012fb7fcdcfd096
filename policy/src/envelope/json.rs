//! The crate's one JSON reader: serde_json, with values kept as [`RawValue`] slices of the text they came in.
//!
//! serde_json checks the syntax (`RawValue` and `IgnoredAny` skip values without recursing, so any depth is
//! checked safely); this file adds what the envelope needs on top: the kind of a raw value, a syntax error that
//! says where and what was expected, strings read as `JSON.parse` reads them (a lone UTF-16 surrogate escape,
//! which `JSON.stringify` can produce, becomes U+FFFD instead of an error), and the members of an object or the
//! elements of an array, one level at a time.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use thiserror::Error;

/// The kind of a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonKind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonKind {
    /// The kind of the valid JSON text `text` (without leading whitespace), read off its first byte.
    pub(crate) fn of(text: &str) -> Self {
        match text.as_bytes().first() {
            Some(b'{') => Self::Object,
            Some(b'[') => Self::Array,
            Some(b'"') => Self::String,
            Some(b't' | b'f') => Self::Bool,
            Some(b'n') => Self::Null,
            _ => Self::Number,
        }
    }
}

impl fmt::Display for JsonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Null => "null",
            Self::Bool => "a boolean",
            Self::Number => "a number",
            Self::String => "a string",
            Self::Array => "an array",
            Self::Object => "an object",
        })
    }
}

/// Why a text is not valid JSON: what was expected where, and what was found instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct SyntaxError {
    /// The byte offset of the problem in the text.
    pub offset: usize,
    /// What would have been valid there, in words.
    pub expected: &'static str,
    /// The character found instead, or `None` at the end of the text.
    pub found: Option<char>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {} at byte {}, found ", self.expected, self.offset)?;
        match self.found {
            Some(c) => write!(f, "{c:?}"),
            None => f.write_str("the end of the text"),
        }
    }
}

impl SyntaxError {
    /// Restates serde_json's error about `text` in the crate's words: a byte offset rather than a line and
    /// column, and what would have been valid there.
    pub(crate) fn new(error: &serde_json::Error, text: &str) -> Self {
        let line_start = text.split_inclusive('\n').take(error.line().saturating_sub(1)).map(str::len).sum::<usize>();
        // serde_json's column is 1-based at the character it looked at, except for a control character in a
        // string, which it reports 0-based.
        let message = error.to_string();
        let code = message.split(" at line ").next().unwrap_or_default();
        let column = if code.starts_with("control character") { error.column() + 1 } else { error.column() };
        let offset = if error.is_eof() { text.len() } else { (line_start + column).saturating_sub(1) };
        let offset = offset.min(text.len());
        let found = text.get(offset..).and_then(|rest| rest.chars().next());
        Self { offset, expected: expected(code, text, found), found }
    }
}

/// What serde_json's error (its message without the position) means was expected, in words.
fn expected(code: &str, text: &str, found: Option<char>) -> &'static str {
    match code {
        "EOF while parsing a list" | "expected `,` or `]`" => "',' or ']'",
        "EOF while parsing a value" if text.trim_end().ends_with(',') && innermost_open(text) == Some(b'{') => {
            "a string key"
        }
        "EOF while parsing an object" => match text.trim_end().as_bytes().last() {
            Some(b'{' | b',') => "a string key",
            Some(b':') => "a JSON value",
            Some(b'"') if !text.trim_end().ends_with("\\\"") => "':' or ',' or '}'",
            _ => "',' or '}'",
        },
        "expected `,` or `}`" => "',' or '}'",
        "EOF while parsing a string" => "'\"' closing the string",
        "expected `:`" => "':'",
        "key must be a string" => "a string key",
        "trailing comma" if found == Some('}') => "a string key",
        "invalid escape" => "an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
        "invalid unicode code point" => "a hex digit of a \\u escape",
        "invalid number" => "a digit",
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "an escaped control character (\\n, \\t, \\u0000 ...)"
        }
        "trailing characters" => "the end of the text",
        "expected ident" => "true, false or null",
        _ => "a JSON value",
    }
}

/// The innermost array or object left open at the end of `text`, a JSON text cut short: `b'['` or `b'{'`.
fn innermost_open(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    let mut open = Vec::new();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'{' | b'[' => open.push(b),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => at = string_end(bytes, at + 1),
            _ => {}
        }
        at += 1;
    }
    open.pop()
}

/// The offset of the quote that closes the string whose content starts at `from` (or the length of `bytes`).
pub(crate) fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    loop {
        match bytes.get(at) {
            Some(b'\\') => at += 2,
            Some(b'"') | None => return at.min(bytes.len()),
            Some(_) => at += 1,
        }
    }
}

/// Checks that `text` holds one JSON value (surrounding whitespace allowed) and returns it without the whitespace.
pub(crate) fn raw(text: &str) -> Result<&RawValue, SyntaxError> {
    serde_json::from_str(text).map_err(|e| SyntaxError::new(&e, text))
}

/// The value of a JSON string literal that serde_json has already checked, quotes included. Borrowed when it
/// holds no escape; a lone surrogate escape reads as U+FFFD, as in a JavaScript string printed with `String()`.
pub(crate) fn string(literal: &str) -> Cow<'_, str> {
    let inner = literal.get(1..literal.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    let mut de = serde_json::Deserializer::from_str(literal);
    let bytes = de.deserialize_bytes(BytesVisitor).unwrap_or_default();
    Cow::Owned(from_wtf8(&bytes))
}

/// Reads serde_json's byte form of a string: UTF-8, except that a lone surrogate is encoded on its own (3 bytes
/// starting `0xED 0xA0..=0xBF`). Each such surrogate becomes one U+FFFD.
fn from_wtf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        // serde_json writes nothing else invalid, and the invalid parts of a surrogate are its lead byte `0xED`
        // and then each continuation byte on its own: one U+FFFD per lead byte.
        if chunk.invalid().first() == Some(&0xED) {
            out.push('\u{fffd}');
        }
    }
    out
}

struct BytesVisitor;

impl Visitor<'_> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }
}

/// Calls `each` with the key (a string literal) and the value of every member of the object `text`, in order.
/// Fails when `text` is not one valid JSON object.
pub(crate) fn for_each_member<'t, F>(text: &'t str, each: F) -> Result<(), SyntaxError>
where
    F: FnMut(&'t RawValue, &'t RawValue),
{
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Members { each, lifetime: PhantomData })
        .and_then(|()| de.end())
        .map_err(|e| SyntaxError::new(&e, text))
}

/// Calls `each` with every element of the array `text`, in order, and returns how many there are. Only the first
/// `keep` elements are handed to `each`; the others are checked and counted. Fails when `text` is not one valid
/// JSON array.
pub(crate) fn for_each_element<'t, F>(text: &'t str, keep: usize, each: F) -> Result<usize, SyntaxError>
where
    F: FnMut(&'t RawValue),
{
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_seq(Elements { each, keep, lifetime: PhantomData })
        .and_then(|count| de.end().map(|()| count))
        .map_err(|e| SyntaxError::new(&e, text))
}

struct Members<'t, F> {
    each: F,
    lifetime: PhantomData<&'t str>,
}

impl<'t, F: FnMut(&'t RawValue, &'t RawValue)> Visitor<'t> for Members<'t, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'t>>(mut self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<&'t RawValue>()? {
            (self.each)(key, map.next_value()?);
        }
        Ok(())
    }
}

struct Elements<'t, F> {
    each: F,
    keep: usize,
    lifetime: PhantomData<&'t str>,
}

impl<'t, F: FnMut(&'t RawValue)> Visitor<'t> for Elements<'t, F> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'t>>(mut self, mut seq: A) -> Result<usize, A::Error> {
        let mut count = 0;
        while count < self.keep {
            let Some(element) = seq.next_element::<&'t RawValue>()? else {
                return Ok(count);
            };
            (self.each)(element);
            count += 1;
        }
        while seq.next_element_seed(Skip)?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}

/// Checks a value's syntax and drops it.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_ignored_any(IgnoredAny).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<(), SyntaxError> {
        raw(text).map(|_| ())
    }

    #[test]
    fn invalid_texts_say_what_was_expected_and_where() {
        for (text, message) in [
            ("", "expected a JSON value at byte 0, found the end of the text"),
            ("{\"a\" 1}", "expected ':' at byte 5, found '1'"),
            ("[1,]", "expected a JSON value at byte 3, found ']'"),
            ("{\"a\":1,}", "expected a string key at byte 7, found '}'"),
            ("[1}", "expected ',' or ']' at byte 2, found '}'"),
            ("{\"a\":1]", "expected ',' or '}' at byte 6, found ']'"),
            ("01", "expected a digit at byte 1, found '1'"),
            ("1.", "expected a digit at byte 1, found '.'"),
            ("\"\\x\"", "expected an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX at byte 2, found 'x'"),
            ("\"a\nb\"", "expected an escaped control character (\\n, \\t, \\u0000 ...) at byte 2, found '\\n'"),
            ("\"abc", "expected '\"' closing the string at byte 4, found the end of the text"),
            ("{1:2}", "expected a string key at byte 1, found '1'"),
            ("{\"a\":1,", "expected a string key at byte 7, found the end of the text"),
            ("[{},", "expected a JSON value at byte 4, found the end of the text"),
            ("{\"a\":[1,", "expected a JSON value at byte 8, found the end of the text"),
            ("{\"a\":[1],", "expected a string key at byte 9, found the end of the text"),
            ("[1,\n 2] x", "expected the end of the text at byte 8, found 'x'"),
        ] {
            assert_eq!(check(text).unwrap_err().to_string(), message, "{text:?}");
        }
    }

    #[test]
    fn valid_texts_of_any_depth_are_accepted() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert_eq!(raw(&deep).unwrap().get().len(), 2_000_000);
        assert_eq!(raw(" {\"a\":[1, null]} ").unwrap().get(), "{\"a\":[1, null]}");
        let unbalanced = format!("{}{}", "[".repeat(100), "}".repeat(100));
        assert!(check(&unbalanced).is_err());
    }

    #[test]
    fn strings_are_read_as_javascript_reads_them() {
        assert_eq!(string(r#""plain""#), "plain");
        assert!(matches!(string(r#""plain""#), Cow::Borrowed(_)));
        assert_eq!(string(r#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#), "a\"b\\c/d\né😀");
        assert_eq!(string(r#""\ud800x\udc00""#), "\u{fffd}x\u{fffd}");
        assert_eq!(string(r#""\udbff\udbff\u00e9""#), "\u{fffd}\u{fffd}é");
    }

    #[test]
    fn members_and_elements_come_one_level_at_a_time() {
        let mut members = Vec::new();
        for_each_member(r#"{"a":[1,{"b":2}], "\u0063" : "d"}"#, |k, v| members.push((k.get(), v.get()))).unwrap();
        assert_eq!(members, [(r#""a""#, r#"[1,{"b":2}]"#), (r#""\u0063""#, r#""d""#)]);
        let mut kept = Vec::new();
        assert_eq!(for_each_element("[1, [2], {}]", 2, |v| kept.push(v.get())), Ok(3));
        assert_eq!(kept, ["1", "[2]"]);
        assert!(for_each_element("[1, [2}", 1, |_| ()).is_err());
    }
}
