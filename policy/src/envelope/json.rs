//! The crate's one JSON reader of raw values: it checks the syntax of a text (RFC 8259, any depth: it keeps a stack
//! of open containers rather than recursing) and hands out values as [`Raw`] slices of the text they came in; it
//! adds what the envelope needs on top: the kind of a raw value, a syntax error that says where and what was
//! expected, strings read as `JSON.parse` reads them (a lone UTF-16 surrogate escape, which `JSON.stringify` can
//! produce, becomes U+FFFD instead of an error), and the members of an object or the elements of an array, one
//! level at a time.
//!
//! It was serde_json's reader (`RawValue`, `IgnoredAny`, a visitor per use) until issue 36: 25.5 KB of the wasm for
//! what this file does in a few hundred lines, with strings skipped eight bytes at a time (`byte_scan::string_stop`)
//! as serde_json skipped them.

use std::borrow::Cow;
use std::fmt;

use thiserror::Error;

use crate::byte_scan::string_stop;

/// One JSON value as it stands in a text that was checked: a slice of that text, without surrounding whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw<'t>(&'t str);

impl<'t> Raw<'t> {
    /// The value's text.
    pub(crate) fn get(self) -> &'t str {
        self.0
    }
}

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
            Some(c) => write!(f, "{}", crate::quote::quoted_char(c)),
            None => f.write_str("the end of the text"),
        }
    }
}

impl SyntaxError {
    /// The error of a text refused at byte `offset`: what would have been valid there ([`expected_at`]) and what
    /// was found.
    pub(crate) fn at(text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        let found = text.get(offset..).and_then(|rest| rest.chars().next());
        Self { offset, expected: expected_at(text, offset), found }
    }
}

/// Skips the whitespace JSON allows from `at`.
pub(super) fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the string literal that starts at `at` (its opening quote), or the offset where it is not valid.
pub(super) fn skip_string(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let mut at = at + 1;
    loop {
        at = string_stop(bytes, at);
        match bytes.get(at) {
            Some(b'"') => return Ok(at + 1),
            Some(b'\\') => match bytes.get(at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u') => {
                    for digit in at + 2..at + 6 {
                        if !bytes.get(digit).is_some_and(u8::is_ascii_hexdigit) {
                            return Err(digit);
                        }
                    }
                    at += 6;
                }
                _ => return Err(at + 1),
            },
            // A control character, or the end of the text.
            _ => return Err(at),
        }
    }
}

/// The end of the number that starts at `at`, or the offset where it is not valid.
pub(super) fn skip_number(bytes: &[u8], mut at: usize) -> Result<usize, usize> {
    let digits = |at: usize| at + bytes[at.min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
    at += usize::from(bytes.get(at) == Some(&b'-'));
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at = digits(at),
        _ => return Err(at),
    }
    if bytes.get(at) == Some(&b'.') {
        if !bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
            return Err(at);
        }
        at = digits(at + 1);
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        at += usize::from(matches!(bytes.get(at), Some(b'+' | b'-')));
        if !bytes.get(at).is_some_and(u8::is_ascii_digit) {
            return Err(at);
        }
        at = digits(at);
    }
    Ok(at)
}

/// The end of the key and colon of an object's member at `at`, with the whitespace after the colon.
fn skip_key(bytes: &[u8], at: usize) -> Result<usize, usize> {
    if bytes.get(at) != Some(&b'"') {
        return Err(at);
    }
    let at = skip_space(bytes, skip_string(bytes, at)?);
    if bytes.get(at) != Some(&b':') {
        return Err(at);
    }
    Ok(skip_space(bytes, at + 1))
}

/// The end of the one value that starts at `at` (no whitespace before it), or the offset where the text stops
/// being valid. Containers of any depth: the open ones are kept on a stack, not on the call stack.
fn skip_value(bytes: &[u8], mut at: usize) -> Result<usize, usize> {
    let mut open: Vec<u8> = Vec::new();
    loop {
        // A value starts at `at`.
        match bytes.get(at) {
            Some(&opener @ (b'{' | b'[')) => {
                let close = if opener == b'{' { b'}' } else { b']' };
                at = skip_space(bytes, at + 1);
                if bytes.get(at) == Some(&close) {
                    at += 1;
                } else {
                    if opener == b'{' {
                        at = skip_key(bytes, at)?;
                    }
                    open.push(opener);
                    continue;
                }
            }
            Some(b'"') => at = skip_string(bytes, at)?,
            Some(b't') => at = skip_word(bytes, at, b"true")?,
            Some(b'f') => at = skip_word(bytes, at, b"false")?,
            Some(b'n') => at = skip_word(bytes, at, b"null")?,
            Some(b'-' | b'0'..=b'9') => at = skip_number(bytes, at)?,
            _ => return Err(at),
        }
        // After a value: close containers, or go on to the next element or member.
        loop {
            let Some(&opener) = open.last() else { return Ok(at) };
            at = skip_space(bytes, at);
            match (opener, bytes.get(at)) {
                (_, Some(b',')) => {
                    at = skip_space(bytes, at + 1);
                    if opener == b'{' {
                        at = skip_key(bytes, at)?;
                    }
                    break;
                }
                (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                    open.pop();
                    at += 1;
                }
                _ => return Err(at),
            }
        }
    }
}

/// The end of the literal `word` at `at`, or the offset of its first wrong byte.
pub(super) fn skip_word(bytes: &[u8], at: usize, word: &[u8]) -> Result<usize, usize> {
    match word.iter().enumerate().find(|&(n, &b)| bytes.get(at + n) != Some(&b)) {
        Some((n, _)) => Err(at + n),
        None => Ok(at + word.len()),
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
                let finished = || skip_value(bytes, at) == Ok(end);
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
pub(crate) fn raw(text: &str) -> Result<Raw<'_>, SyntaxError> {
    let bytes = text.as_bytes();
    let start = skip_space(bytes, 0);
    let end = skip_value(bytes, start).map_err(|at| SyntaxError::at(text, at))?;
    match skip_space(bytes, end) {
        rest if rest == bytes.len() => Ok(Raw(&text[start..end])),
        rest => Err(SyntaxError::at(text, rest)),
    }
}

/// The value of a JSON string literal that was checked, quotes included. Borrowed when it holds no escape; a lone
/// surrogate escape reads as U+FFFD, as in a JavaScript string printed with `String()`.
pub(crate) fn string(literal: &str) -> Cow<'_, str> {
    match unescape(literal) {
        Ok(text) => Cow::Borrowed(text),
        Err((text, _)) => Cow::Owned(text),
    }
}

/// The value of a JSON string literal that was checked, quotes included, or `None` when it holds a lone UTF-16
/// surrogate escape (no Rust string holds one, so nothing this crate wrote does): how stored records read their
/// strings. Borrowed when it holds no escape.
pub(crate) fn valid_string(literal: &str) -> Option<Cow<'_, str>> {
    match unescape(literal) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err((text, false)) => Some(Cow::Owned(text)),
        Err((_, true)) => None,
    }
}

/// The content of a checked string literal when it holds no escape, else its value with each lone surrogate
/// escape as U+FFFD, and whether there was one.
fn unescape(literal: &str) -> Result<&str, (String, bool)> {
    let inner = literal.get(1..literal.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains('\\') {
        return Ok(inner);
    }
    let (mut out, mut lone) = (String::with_capacity(inner.len()), false);
    let mut pending_high: Option<u32> = None;
    let mut rest = inner;
    while let Some(at) = rest.find('\\') {
        if at > 0 && pending_high.take().is_some() {
            out.push('\u{fffd}');
            lone = true;
        }
        out.push_str(&rest[..at]);
        let escape = rest.as_bytes().get(at + 1).copied().unwrap_or(b'\\');
        let mut next = at + 2;
        let c = match escape {
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => {
                let code = rest.get(at + 2..at + 6).and_then(|hex| u32::from_str_radix(hex, 16).ok()).unwrap_or(0xfffd);
                next = at + 6;
                match (pending_high.take(), code) {
                    (Some(high), 0xDC00..=0xDFFF) => {
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                    }
                    (high, 0xD800..=0xDBFF) => {
                        if high.is_some() {
                            out.push('\u{fffd}');
                            lone = true;
                        }
                        pending_high = Some(code);
                        None
                    }
                    (high, code) => {
                        if high.is_some() {
                            out.push('\u{fffd}');
                            lone = true;
                        }
                        let c = char::from_u32(code);
                        lone |= c.is_none();
                        Some(c.unwrap_or('\u{fffd}'))
                    }
                }
            }
            other => Some(char::from(other)),
        };
        if let Some(c) = c {
            out.push(c);
        }
        rest = rest.get(next..).unwrap_or_default();
    }
    if pending_high.is_some() {
        out.push('\u{fffd}');
        lone = true;
    }
    out.push_str(rest);
    Err((out, lone))
}

/// Calls `each` with the key (a string literal) and the value of every member of the object `text`, in order.
/// Fails when `text` is not one valid JSON object.
pub(crate) fn for_each_member<'t, F>(text: &'t str, mut each: F) -> Result<(), SyntaxError>
where
    F: FnMut(Raw<'t>, Raw<'t>),
{
    let bytes = text.as_bytes();
    for_each_item(text, b'{', b'}', |at| {
        let key_end = if bytes.get(at) == Some(&b'"') { skip_string(bytes, at)? } else { at };
        let value_start = skip_key(bytes, at)?;
        let value_end = skip_value(bytes, value_start)?;
        each(Raw(&text[at..key_end]), Raw(&text[value_start..value_end]));
        Ok(value_end)
    })
}

/// Calls `each` with every element of the array `text`, in order, and returns how many there are. Only the first
/// `keep` elements are handed to `each`; the others are checked and counted. Fails when `text` is not one valid
/// JSON array.
pub(crate) fn for_each_element<'t, F>(text: &'t str, keep: usize, mut each: F) -> Result<usize, SyntaxError>
where
    F: FnMut(Raw<'t>),
{
    let mut count = 0;
    for_each_item(text, b'[', b']', |at| {
        let end = skip_value(text.as_bytes(), at)?;
        if count < keep {
            each(Raw(&text[at..end]));
        }
        count += 1;
        Ok(end)
    })?;
    Ok(count)
}

/// Walks the one container `text` holds, opened by `open` and closed by `close`: `item(at)` reads the element or
/// member that starts at `at` and answers where it ends (or where it is not valid); this checks the separators
/// between them and that nothing but whitespace surrounds the container.
fn for_each_item(
    text: &str,
    open: u8,
    close: u8,
    mut item: impl FnMut(usize) -> Result<usize, usize>,
) -> Result<(), SyntaxError> {
    let bytes = text.as_bytes();
    let fail = |at: usize| SyntaxError::at(text, at);
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&open) {
        // Another kind of value, or no valid one.
        return Err(fail(skip_value(bytes, at).err().unwrap_or(at)));
    }
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&close) {
        at += 1;
    } else {
        loop {
            at = skip_space(bytes, item(at).map_err(fail)?);
            match bytes.get(at) {
                Some(b',') => at = skip_space(bytes, at + 1),
                Some(&b) if b == close => {
                    at += 1;
                    break;
                }
                _ => return Err(fail(at)),
            }
        }
    }
    match skip_space(bytes, at) {
        end if end == bytes.len() => Ok(()),
        end => Err(fail(end)),
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

    /// Strings read back as written, escapes and all; a `\\u` escape of a lone surrogate reads as U+FFFD, as
    /// JavaScript's `String()` of such a string prints.
    #[cfg(not(target_arch = "wasm32"))]
    mod strings {
        use proptest::prelude::*;

        use super::super::{raw, string, valid_string};

        proptest! {
            #[test]
            fn any_string_reads_back(text in "\\PC*|[\"\\\\\u{0}-\u{1f}é😀]{0,12}", escape_all in any::<bool>()) {
                let literal = if escape_all {
                    let units: String = text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect();
                    format!("\"{units}\"")
                } else {
                    serde_json::to_string(&text).unwrap_or_default()
                };
                prop_assert!(raw(&literal).is_ok(), "{}", literal);
                prop_assert_eq!(string(&literal), text.as_str());
                let valid = valid_string(&literal);
                prop_assert_eq!(valid.as_deref(), Some(text.as_str()));
            }

            #[test]
            fn lone_surrogates_read_as_replacement_characters(units in prop::collection::vec(0xd7f0u16..0xe010, 0..6)) {
                let literal = format!("\"{}\"", units.iter().map(|u| format!("\\u{u:04x}")).collect::<String>());
                let expected = String::from_utf16_lossy(&units);
                prop_assert_eq!(string(&literal), expected.as_str());
                prop_assert_eq!(valid_string(&literal).is_some(), String::from_utf16(&units).is_ok());
            }
        }
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
