//! JSON text to a `serde_json::Value`, its numbers read as `JSON.parse` reads them ([`super::number`]).
//!
//! serde_json's own `from_str::<Value>` reads numbers with its float reader, which is either inexact (by default)
//! or 10.1 KB of the gzipped download (`float_roundtrip`); this reader builds the same tree with the crate's exact
//! one, so that no serde_json number reading is linked into the wasm. Its tokens are the raw reader's
//! (`json.rs`: whitespace, strings and their escapes, numbers, literals), so the crate has one JSON grammar; what it
//! adds is the tree. It checks the whole syntax as serde_json does (RFC 8259, no trailing comma, no lone surrogate
//! escape, at most 128 levels of nesting), answers the same tree (integers as `u64` or `i64`, `-0` and every other
//! number as `f64`, the last of repeated keys), and fails where serde_json fails. The property tests of
//! tests/envelope_props.rs compare the two.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};
use thiserror::Error;

use super::json;

/// Why a text is not one JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{problem} at byte {at}")]
pub struct JsonTreeError {
    /// The byte offset where the reader stopped.
    pub at: usize,
    /// What it found there.
    pub problem: &'static str,
}

/// Arrays and objects may nest fewer levels than this, as in serde_json (127 levels).
const MAX_NESTING: usize = 128;

/// The value `text` holds; whitespace may surround it, nothing else.
pub fn parse_json(text: &str) -> Result<Value, JsonTreeError> {
    let mut reader = Reader { bytes: text.as_bytes(), text, at: 0, nesting: 0 };
    let value = reader.value()?;
    reader.skip_space();
    if reader.at < reader.bytes.len() {
        return Err(reader.fail("trailing characters"));
    }
    Ok(value)
}

struct Reader<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    nesting: usize,
}

impl Reader<'_> {
    fn fail(&self, problem: &'static str) -> JsonTreeError {
        JsonTreeError { at: self.at, problem }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        self.at = json::skip_space(self.bytes, self.at);
    }

    /// Moves past the token that `skip` finds at the reader's place, or fails with `problem` where it is not valid;
    /// answers where the token started.
    fn token(
        &mut self,
        skip: impl FnOnce(&[u8], usize) -> Result<usize, usize>,
        problem: &'static str,
    ) -> Result<usize, JsonTreeError> {
        let start = self.at;
        self.at = skip(self.bytes, start).map_err(|at| JsonTreeError { at, problem })?;
        Ok(start)
    }

    fn value(&mut self) -> Result<Value, JsonTreeError> {
        self.skip_space();
        let word = |word: &'static [u8]| move |bytes: &[u8], at: usize| json::skip_word(bytes, at, word);
        match self.peek() {
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.token(word(b"true"), "expected a value").map(|_| Value::Bool(true)),
            Some(b'f') => self.token(word(b"false"), "expected a value").map(|_| Value::Bool(false)),
            Some(b'n') => self.token(word(b"null"), "expected a value").map(|_| Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.fail("expected a value")),
            None => Err(self.fail("EOF while parsing a value")),
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Result<Value, JsonTreeError>) -> Result<Value, JsonTreeError> {
        self.nesting += 1;
        if self.nesting >= MAX_NESTING {
            return Err(self.fail("recursion limit exceeded"));
        }
        self.at += 1;
        let value = read(self);
        self.nesting -= 1;
        value
    }

    /// After `[`.
    fn array(&mut self) -> Result<Value, JsonTreeError> {
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.fail("expected `,` or `]`")),
            }
        }
    }

    /// After `{`.
    fn object(&mut self) -> Result<Value, JsonTreeError> {
        let mut members = Map::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.fail("key must be a string"));
            }
            let key = self.string()?;
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.fail("expected `:`"));
            }
            self.at += 1;
            let value = self.value()?;
            members.insert(key, value);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.fail("expected `,` or `}`")),
            }
        }
    }

    /// At `"`: the string's value. A lone surrogate escape is refused, as serde_json refuses it (no Rust string
    /// holds one).
    fn string(&mut self) -> Result<String, JsonTreeError> {
        let start = self.token(json::skip_string, "invalid string")?;
        json::valid_string(&self.text[start..self.at])
            .map(Cow::into_owned)
            .ok_or(JsonTreeError { at: start, problem: "lone surrogate in hex escape" })
    }

    /// At `-` or a digit: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Result<Value, JsonTreeError> {
        let start = self.token(json::skip_number, "invalid number")?;
        let literal = &self.text[start..self.at];
        let negative = literal.starts_with('-');
        if !literal.contains(['.', 'e', 'E'])
            && let Ok(magnitude) = literal[usize::from(negative)..].parse::<u64>()
        {
            // An integer, as serde_json keeps it: u64, or i64 when negative, or f64 for -0 and below i64::MIN.
            return Ok(Value::Number(match (negative, i64::try_from(magnitude)) {
                (false, _) => Number::from(magnitude),
                (true, Ok(magnitude)) if magnitude > 0 => Number::from(-magnitude),
                (true, _) if magnitude == 1 << 63 => Number::from(i64::MIN),
                (true, _) => Number::from_f64(-(magnitude as f64)).ok_or_else(|| self.fail("invalid number"))?,
            }));
        }
        super::number::read_f64(literal)
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or(JsonTreeError { at: start, problem: "number out of range" })
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::Value;

    use super::parse_json;

    /// Read as serde_json's exact reader reads it, or refused where it refuses.
    fn as_serde_json(text: &str) {
        let expected = serde_json::from_str::<Value>(text).ok();
        assert_eq!(parse_json(text).ok(), expected, "{text:?}");
    }

    #[test]
    fn edges_are_read_as_serde_json_reads_them() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for text in [
            r#""\ud83d\ude00 \u00e9 \n\t\"\\\/\b\f\r""#,
            r#""\ud83d""#,
            r#""\ude00""#,
            r#""\ud83dx""#,
            r#""\ud83d\u0041""#,
            r#""\x""#,
            "\"a\u{1}\"",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,}"#,
            "[1,]",
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "-0",
            "-0.0",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e400",
            "-1e-400",
            " \n[ true , false , null ] \r\t",
            "nul",
            "[1] x",
            "",
            &deep(127),
            &deep(128),
        ] {
            as_serde_json(text);
        }
    }
}
