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
    /// column, and what would have been valid there. Only serde_json's position (`line`, `column`, `is_eof`) is
    /// used, never its message: what was expected is read off the text before that position ([`expected_at`]).
    pub(crate) fn new(error: &serde_json::Error, text: &str) -> Self {
        let offset = if error.is_eof() {
            text.len()
        } else {
            let line_start =
                text.split_inclusive('\n').take(error.line().saturating_sub(1)).map(str::len).sum::<usize>();
            let offset = (line_start + error.column()).saturating_sub(1).min(text.len());
            // serde_json's column is 1-based at the character it looked at, except for a control character in a
            // string, which it reports 0-based: one before a raw control character in a string means at it.
            let next = offset + 1;
            let control_next = text.as_bytes().get(next).is_some_and(|&b| b < 0x20);
            if control_next && matches!(scan(text, next), Scan::InString { at_escape: false, hex: 0 }) {
                next
            } else if offset > 0
                && !text.as_bytes()[offset - 1].is_ascii_hexdigit()
                && matches!(scan(text, offset), Scan::InString { hex: 2..=4, .. })
            {
                // A `\u` escape's bad digit: serde_json stops one past it.
                offset - 1
            } else {
                offset
            }
        };
        let found = text.get(offset..).and_then(|rest| rest.chars().next());
        Self { offset, expected: expected_at(text, offset), found }
    }
}

/// Where a scan of a JSON text stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Between tokens; what may come next.
    Between(Next),
    /// Inside a string: right after a backslash, or `hex` digits into a `\u` escape (0 when in none).
    InString { at_escape: bool, hex: u8 },
    /// Inside a number or a literal that starts with `first`.
    InScalar { first: u8 },
}

/// What may come next between two tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Value,
    Key,
    Colon,
    /// `,` or the end of the container opened by this byte (`b'{'` or `b'['`).
    CommaOrClose(u8),
    End,
}

/// Whether `b` ends a number or a literal.
fn ends_scalar(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b']' | b'}' | b'[' | b'{' | b'"')
}

/// Scans the JSON text before `offset` (where a parser refused it) and says where it stands there. A small
/// tokenizer of our own: serde_json says where it stopped, not what it expected, other than in its message text.
fn scan(text: &str, offset: usize) -> Scan {
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let mut open: Vec<u8> = Vec::new();
    let mut next = Next::Value;
    let after_value = |open: &[u8]| open.last().map_or(Next::End, |&c| Next::CommaOrClose(c));
    let mut at = 0;
    while at < offset {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                let end = string_end(bytes, at + 1);
                if end >= offset {
                    return string_state(&bytes[at + 1..offset]);
                }
                next = if next == Next::Key { Next::Colon } else { after_value(&open) };
                at = end;
            }
            open_byte @ (b'{' | b'[') => {
                open.push(open_byte);
                next = if open_byte == b'{' { Next::Key } else { Next::Value };
            }
            b'}' | b']' => {
                open.pop();
                next = after_value(&open);
            }
            b':' => next = Next::Value,
            b',' => next = if open.last() == Some(&b'{') { Next::Key } else { Next::Value },
            first => {
                let end = bytes[at..].iter().position(|&b| ends_scalar(b)).map_or(bytes.len(), |n| at + n);
                // A scalar that runs past the refused position, or stops there unfinished, is where it was refused.
                let finished = || serde_json::from_str::<IgnoredAny>(&text[at..end]).is_ok();
                if end > offset || (end == offset && !finished()) {
                    return Scan::InScalar { first };
                }
                next = after_value(&open);
                at = end - 1;
            }
        }
        at += 1;
    }
    Scan::Between(next)
}

/// Where a string stands after `content` (what follows its opening quote).
fn string_state(content: &[u8]) -> Scan {
    let (mut at_escape, mut hex) = (false, 0u8);
    for &b in content {
        if hex > 0 {
            hex = (hex + 1) % 5;
        } else if at_escape {
            at_escape = false;
            hex = u8::from(b == b'u');
        } else {
            at_escape = b == b'\\';
        }
    }
    Scan::InString { at_escape, hex }
}

/// What would have been valid at `offset` of `text`, where a parser refused it, in words.
fn expected_at(text: &str, offset: usize) -> &'static str {
    let at_end = offset >= text.len();
    match scan(text, offset) {
        Scan::InString { at_escape: true, .. } => "an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
        Scan::InString { hex: 1..=4, .. } => "a hex digit of a \\u escape",
        Scan::InString { .. } if at_end => "'\"' closing the string",
        Scan::InString { .. } => "an escaped control character (\\n, \\t, \\u0000 ...)",
        Scan::InScalar { first: b't' | b'f' | b'n' } => "true, false or null",
        Scan::InScalar { .. } => "a digit",
        Scan::Between(Next::Value) => "a JSON value",
        Scan::Between(Next::Key) => "a string key",
        Scan::Between(Next::Colon) => "':'",
        Scan::Between(Next::CommaOrClose(b'{')) => "',' or '}'",
        Scan::Between(Next::CommaOrClose(_)) => "',' or ']'",
        Scan::Between(Next::End) => "the end of the text",
    }
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
    match unescape(literal) {
        Ok(text) => Cow::Borrowed(text),
        Err(bytes) => Cow::Owned(from_wtf8(&bytes)),
    }
}

/// The value of a JSON string literal that serde_json has already checked, quotes included, or `None` when it holds
/// a lone UTF-16 surrogate escape (no Rust string holds one, so nothing this crate wrote does): how stored records
/// read their strings. Borrowed when it holds no escape.
pub(crate) fn valid_string(literal: &str) -> Option<Cow<'_, str>> {
    match unescape(literal) {
        Ok(text) => Some(Cow::Borrowed(text)),
        // Valid UTF-8 unless a lone surrogate was written in serde_json's byte form (see `from_wtf8`).
        Err(bytes) => {
            bytes.utf8_chunks().all(|chunk| chunk.invalid().is_empty()).then(|| Cow::Owned(from_wtf8(&bytes)))
        }
    }
}

/// The content of a checked string literal when it holds no escape, else its unescaped bytes in serde_json's byte
/// form (see [`from_wtf8`]).
fn unescape(literal: &str) -> Result<&str, Vec<u8>> {
    let inner = literal.get(1..literal.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains('\\') {
        return Ok(inner);
    }
    let mut de = serde_json::Deserializer::from_str(literal);
    Err(de.deserialize_bytes(BytesVisitor).unwrap_or_default())
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
            // Read off the text, not off serde_json's message (issue 23): literals, numbers, escapes, positions.
            ("tru", "expected true, false or null at byte 3, found the end of the text"),
            ("[nulx]", "expected true, false or null at byte 4, found 'x'"),
            ("[-]", "expected a digit at byte 2, found ']'"),
            ("\"\\u12x\"", "expected a hex digit of a \\u escape at byte 5, found 'x'"),
            ("\"\n\"", "expected an escaped control character (\\n, \\t, \\u0000 ...) at byte 1, found '\\n'"),
            ("{\"a\\\"b\" 1}", "expected ':' at byte 8, found '1'"),
            ("[\"a\",\"b\"\n,\n}", "expected a JSON value at byte 11, found '}'"),
            ("{\"é\":1 2}", "expected ',' or '}' at byte 8, found '2'"),
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
        assert_eq!(valid_string(r#""a\"b\ud83d\ude00""#).as_deref(), Some("a\"b😀"));
        assert!(matches!(valid_string(r#""plain""#), Some(Cow::Borrowed("plain"))));
        assert_eq!(valid_string(r#""\ud800x""#), None);
        assert_eq!(valid_string(r#""x\udc00""#), None);
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
