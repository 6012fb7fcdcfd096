//! A validating JSON scanner. It checks the syntax of one value, measures how deeply it nests, notices object
//! keys that read `__proto__` once unescaped, and says where the value ends, all without building anything.
//!
//! It never recurses: open arrays and objects are kept on an explicit stack (one byte per level), so a text
//! nested a million levels deep is measured, reported as too deep, and costs no call stack.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use thiserror::Error;

use super::text::{next_special, unescape};

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

/// A JSON string as it appears in the text, without its quotes and still escaped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawStr<'t> {
    raw: &'t str,
    escaped: bool,
}

impl<'t> RawStr<'t> {
    /// The string's value, borrowed when it holds no escape.
    pub(crate) fn unescape(self) -> Cow<'t, str> {
        if self.escaped { Cow::Owned(unescape(self.raw)) } else { Cow::Borrowed(self.raw) }
    }

    /// Whether the value equals `word` once unescaped, without allocating when it cannot.
    pub(crate) fn is(self, word: &str) -> bool {
        if !self.escaped {
            return self.raw == word;
        }
        // An escape is at most 6 bytes for one character, so a longer raw text cannot unescape to `word`.
        self.raw.len() <= word.len() * 12 && unescape(self.raw) == word
    }
}

/// Where a value sits in the text, and what the scanner learned about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValueScan {
    /// Byte offset of the value's first character.
    pub(crate) start: usize,
    /// Byte offset just past the value's last character.
    pub(crate) end: usize,
    /// What kind of value it is.
    pub(crate) kind: JsonKind,
    /// Whether it nests deeper than the depth it was scanned with.
    pub(crate) too_deep: bool,
    /// Where the first `__proto__` key is, relative to the value (`.a[0].__proto__`), when it has one.
    pub(crate) proto_path: Option<String>,
}

impl ValueScan {
    /// The value's text, out of the text it was scanned in.
    pub(crate) fn slice<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or_default()
    }

    /// The content of a string value, without its quotes.
    pub(crate) fn raw_str<'t>(&self, text: &'t str) -> RawStr<'t> {
        let raw = text.get(self.start + 1..self.end.saturating_sub(1)).unwrap_or_default();
        RawStr { raw, escaped: raw.contains('\\') }
    }
}

/// One open array or object within the depth limit: the index of the current element or the current key.
#[derive(Debug, Clone, Copy)]
struct Frame {
    index: usize,
    key: (usize, usize),
    key_escaped: bool,
}

/// Bytes that may stand between tokens.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Reads JSON text from a position, validating as it goes.
#[derive(Debug)]
pub(crate) struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    /// The current byte offset.
    pub(crate) pos: usize,
    /// `b'{'` or `b'['` for every array or object open in the value being scanned.
    open: Vec<u8>,
    /// Path information for the open levels within the depth limit.
    frames: Vec<Frame>,
}

impl<'t> Scanner<'t> {
    /// A scanner at the start of `text`.
    pub(crate) fn new(text: &'t str) -> Self {
        Self::at(text, 0)
    }

    /// The text being scanned.
    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    /// A scanner at byte `pos` of `text`.
    pub(crate) fn at(text: &'t str, pos: usize) -> Self {
        Self { text, bytes: text.as_bytes(), pos, open: Vec::new(), frames: Vec::new() }
    }

    /// The error "expected `expected` here".
    pub(crate) fn error(&self, expected: &'static str) -> SyntaxError {
        SyntaxError {
            offset: self.pos,
            expected,
            found: self.text.get(self.pos..).and_then(|rest| rest.chars().next()),
        }
    }

    /// Skips whitespace and returns the next byte, if any.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !is_space(b) {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Checks that only whitespace is left.
    pub(crate) fn finish(&mut self) -> Result<(), SyntaxError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("the end of the text")),
        }
    }

    /// Skips whitespace, then checks for `byte` and steps over it.
    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), SyntaxError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// Scans one value (after optional whitespace), allowing `max_depth` levels of nesting.
    pub(crate) fn scan_value(&mut self, max_depth: usize) -> Result<ValueScan, SyntaxError> {
        self.open.clear();
        self.frames.clear();
        let first = self.peek();
        let start = self.pos;
        let kind = match first {
            Some(b'{') => JsonKind::Object,
            Some(b'[') => JsonKind::Array,
            Some(b'"') => JsonKind::String,
            Some(b't' | b'f') => JsonKind::Bool,
            Some(b'n') => JsonKind::Null,
            _ => JsonKind::Number,
        };
        let mut too_deep = false;
        let mut proto_path = None;
        'value: loop {
            match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    too_deep |= self.push(b'{', max_depth);
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.pop(max_depth);
                    } else {
                        self.member_key(max_depth, &mut proto_path)?;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    too_deep |= self.push(b'[', max_depth);
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.pop(max_depth);
                    } else {
                        continue 'value;
                    }
                }
                _ => self.scalar()?,
            }
            // A value is complete: close every container it completes, or move on to the next element.
            loop {
                let Some(&open) = self.open.last() else {
                    break 'value;
                };
                match (open, self.peek()) {
                    (b'{', Some(b',')) => {
                        self.pos += 1;
                        self.member_key(max_depth, &mut proto_path)?;
                        continue 'value;
                    }
                    (_, Some(b',')) => {
                        self.pos += 1;
                        if self.open.len() <= max_depth
                            && let Some(frame) = self.frames.last_mut()
                        {
                            frame.index += 1;
                        }
                        continue 'value;
                    }
                    (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                        self.pos += 1;
                        self.pop(max_depth);
                    }
                    (b'{', _) => return Err(self.error("',' or '}'")),
                    _ => return Err(self.error("',' or ']'")),
                }
            }
        }
        Ok(ValueScan { start, end: self.pos, kind, too_deep, proto_path })
    }

    /// Opens a level; returns whether it is deeper than allowed.
    fn push(&mut self, open: u8, max_depth: usize) -> bool {
        self.open.push(open);
        if self.open.len() > max_depth {
            return true;
        }
        self.frames.push(Frame { index: 0, key: (0, 0), key_escaped: false });
        false
    }

    /// Closes the innermost level.
    fn pop(&mut self, max_depth: usize) {
        if self.open.len() <= max_depth {
            self.frames.pop();
        }
        self.open.pop();
    }

    /// Reads `"key":` inside an object, noting the key and whether it is `__proto__`.
    fn member_key(&mut self, max_depth: usize, proto_path: &mut Option<String>) -> Result<(), SyntaxError> {
        if self.peek() != Some(b'"') {
            return Err(self.error("a string key"));
        }
        let key_start = self.pos + 1;
        let escaped = self.string()?;
        let key = (key_start, self.pos - 1);
        self.expect(b':', "':'")?;
        if self.open.len() > max_depth {
            return Ok(());
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.key = key;
            frame.key_escaped = escaped;
        }
        if proto_path.is_none() && self.key_str(key, escaped).is("__proto__") {
            *proto_path = Some(self.render_path());
        }
        Ok(())
    }

    fn key_str(&self, (start, end): (usize, usize), escaped: bool) -> RawStr<'t> {
        RawStr { raw: self.text.get(start..end).unwrap_or_default(), escaped }
    }

    /// The path of the current key, such as `.items[2].__proto__`.
    fn render_path(&self) -> String {
        let mut path = String::new();
        for (frame, open) in self.frames.iter().zip(&self.open) {
            if *open == b'[' {
                let _ = write!(path, "[{}]", frame.index);
            } else {
                push_path_key(&mut path, &self.key_str(frame.key, frame.key_escaped).unescape());
            }
        }
        path
    }

    /// Scans a string, a number, `true`, `false` or `null`.
    fn scalar(&mut self) -> Result<(), SyntaxError> {
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("a JSON value")),
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<(), SyntaxError> {
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error(match word {
                "true" => "true",
                "false" => "false",
                _ => "null",
            }))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<(), SyntaxError> {
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("a digit")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("a digit after the decimal point"));
            }
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("a digit in the exponent"));
            }
        }
        Ok(())
    }

    /// Scans a string from its opening quote; returns whether it holds an escape.
    pub(crate) fn string(&mut self) -> Result<bool, SyntaxError> {
        self.pos += 1;
        let mut escaped = false;
        loop {
            self.pos = next_special(self.bytes, self.pos);
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.pos += 1;
                    match self.bytes.get(self.pos) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 1,
                        Some(b'u') => {
                            self.pos += 1;
                            for _ in 0..4 {
                                if !self.bytes.get(self.pos).is_some_and(u8::is_ascii_hexdigit) {
                                    return Err(self.error("a hex digit of a \\u escape"));
                                }
                                self.pos += 1;
                            }
                        }
                        _ => {
                            return Err(self.error("an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"));
                        }
                    }
                }
                Some(_) => {
                    return Err(self.error("an escaped control character (\\n, \\t, \\u0000 ...)"));
                }
                None => return Err(self.error("'\"' closing the string")),
            }
        }
    }

    /// Reads the members of the object that starts here (after optional whitespace), handing each key to
    /// `each`, which must consume the member's value. Returns the object's start offset.
    pub(crate) fn read_object<F>(&mut self, mut each: F) -> Result<usize, SyntaxError>
    where
        F: FnMut(&mut Self, RawStr<'t>) -> Result<(), SyntaxError>,
    {
        let start = self.pos;
        self.expect(b'{', "'{'")?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(start);
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.error("a string key"));
            }
            let key_start = self.pos + 1;
            let escaped = self.string()?;
            let key = self.key_str((key_start, self.pos - 1), escaped);
            self.expect(b':', "':'")?;
            each(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(start);
                }
                _ => return Err(self.error("',' or '}'")),
            }
        }
    }

    /// Reads the elements of the array that starts here (after optional whitespace), calling `each`, which must
    /// consume the element.
    pub(crate) fn read_array<F>(&mut self, mut each: F) -> Result<(), SyntaxError>
    where
        F: FnMut(&mut Self) -> Result<(), SyntaxError>,
    {
        self.expect(b'[', "'['")?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.error("',' or ']'")),
            }
        }
    }
}

/// Appends `.key`, or `["key"]` when the key is not a plain identifier.
pub(crate) fn push_path_key(path: &mut String, key: &str) {
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        super::text::push_json_string(path, key);
        path.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, depth: usize) -> Result<ValueScan, SyntaxError> {
        let mut scanner = Scanner::new(text);
        let scan = scanner.scan_value(depth)?;
        scanner.finish()?;
        Ok(scan)
    }

    #[test]
    fn valid_texts_scan_to_their_end() {
        for (text, kind) in [
            ("null", JsonKind::Null),
            (" true ", JsonKind::Bool),
            ("-0.5e+3", JsonKind::Number),
            ("\"a\\u00e9\\n\"", JsonKind::String),
            ("[1,[2,{}],[]]", JsonKind::Array),
            ("{\"a\":{\"b\":[null]}}", JsonKind::Object),
        ] {
            let s = scan(text, 64).unwrap();
            assert_eq!((s.kind, s.too_deep, s.proto_path), (kind, false, None), "{text}");
            assert_eq!(&text[s.start..s.end], text.trim());
        }
    }

    #[test]
    fn invalid_texts_say_what_was_expected() {
        for (text, message) in [
            ("", "expected a JSON value at byte 0, found the end of the text"),
            ("{\"a\" 1}", "expected ':' at byte 5, found '1'"),
            ("[1,]", "expected a JSON value at byte 3, found ']'"),
            ("[1}", "expected ',' or ']' at byte 2, found '}'"),
            ("{\"a\":1]", "expected ',' or '}' at byte 6, found ']'"),
            ("01", "expected the end of the text at byte 1, found '1'"),
            ("1.", "expected a digit after the decimal point at byte 2, found the end of the text"),
            ("\"\\x\"", "expected an escape: one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX at byte 2, found 'x'"),
            ("\"a\nb\"", "expected an escaped control character (\\n, \\t, \\u0000 ...) at byte 2, found '\\n'"),
            ("\"abc", "expected '\"' closing the string at byte 4, found the end of the text"),
            ("tru", "expected true at byte 0, found 't'"),
            ("{1:2}", "expected a string key at byte 1, found '1'"),
        ] {
            assert_eq!(scan(text, 64).unwrap_err().to_string(), message, "{text:?}");
        }
    }

    #[test]
    fn depth_is_measured_without_recursion() {
        assert!(!scan("[[[]]]", 3).unwrap().too_deep);
        assert!(scan("[[[]]]", 2).unwrap().too_deep);
        assert!(!scan("1", 0).unwrap().too_deep);
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert!(scan(&deep, 64).unwrap().too_deep);
        let unbalanced = format!("{}{}", "[".repeat(100), "}".repeat(100));
        assert!(scan(&unbalanced, 64).is_err());
    }

    #[test]
    fn proto_keys_are_found_even_when_escaped() {
        for (text, path) in [
            ("{\"__proto__\":1}", Some(".__proto__")),
            ("{\"a\":[0,{\"__proto__\":{}}]}", Some(".a[1].__proto__")),
            ("{\"x y\":{\"\\u005f_proto__\":1}}", Some("[\"x y\"].__proto__")),
            ("{\"__proto_\":1,\"constructor\":{\"prototype\":1}}", None),
            ("[\"__proto__\"]", None),
        ] {
            assert_eq!(scan(text, 64).unwrap().proto_path.as_deref(), path, "{text}");
        }
    }
}
