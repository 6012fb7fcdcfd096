//! Writing and reading JSON strings, and writing a `serde_json::Value` as compact text without recursion.

use std::fmt::{self, Write};

use serde_json::Value;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Marks the bytes of `word` that are zero (exact for the lowest marked byte, which is all we use).
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// The first offset from `from` holding `"`, `\` or a control character, or the length of `bytes`.
///
/// Eight bytes at a time: strings of 64 KiB are the common large payload.
pub(crate) fn next_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(chunk);
        let found = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

/// Writes `text` as a JSON string, quotes included, escaping as `JSON.stringify` does.
pub(crate) fn push_json_string<W: Write>(out: &mut W, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    put(out, "\"");
    let mut done = 0;
    loop {
        let at = next_special(bytes, done);
        put(out, text.get(done..at).unwrap_or_default());
        let Some(&b) = bytes.get(at) else { break };
        match b {
            b'"' => put(out, "\\\""),
            b'\\' => put(out, "\\\\"),
            b'\n' => put(out, "\\n"),
            b'\r' => put(out, "\\r"),
            b'\t' => put(out, "\\t"),
            0x08 => put(out, "\\b"),
            0x0c => put(out, "\\f"),
            _ => {
                put(out, "\\u00");
                let _ = out.write_char(char::from(HEX[usize::from(b >> 4)]));
                let _ = out.write_char(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        done = at + 1;
    }
    put(out, "\"");
}

/// Writes `s`; writing to a `String` or a counter cannot fail.
pub(crate) fn put<W: Write>(out: &mut W, s: &str) {
    let _ = out.write_str(s);
}

/// Counts the bytes written to it.
#[derive(Debug, Default)]
pub(crate) struct ByteCount(pub(crate) usize);

impl Write for ByteCount {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Four hex digits at the start of `text`, as a number.
fn hex4(text: &str) -> Option<u32> {
    let digits = text.get(..4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// The value of a JSON string's content (between its quotes). Escapes are assumed checked; a lone UTF-16
/// surrogate (which `JSON.stringify` can produce) becomes U+FFFD.
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + 1..).unwrap_or_default();
        let mut chars = after.chars();
        match chars.next() {
            Some('u') => {
                let tail = after.get(1..).unwrap_or_default();
                let Some(unit) = hex4(tail) else {
                    out.push('\u{fffd}');
                    rest = tail;
                    continue;
                };
                rest = tail.get(4..).unwrap_or_default();
                if (0xd800..0xdc00).contains(&unit)
                    && let Some(low) = rest.strip_prefix("\\u").and_then(hex4).filter(|l| (0xdc00..0xe000).contains(l))
                {
                    out.push(char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)).unwrap_or('\u{fffd}'));
                    rest = rest.get(6..).unwrap_or_default();
                } else {
                    out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
                }
            }
            Some(c) => {
                out.push(match c {
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    other => other,
                });
                rest = chars.as_str();
            }
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Writes `value` as compact JSON (the text `serde_json::to_string` gives) with an explicit stack, so that any
/// depth is safe. Returns whether an object key equals `__proto__`.
pub(crate) fn write_value<W: Write>(out: &mut W, value: &Value) -> bool {
    enum Items<'v> {
        Array(std::slice::Iter<'v, Value>),
        Object(serde_json::map::Iter<'v>),
    }
    struct Open<'v> {
        items: Items<'v>,
        first: bool,
    }
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut has_proto = false;
    let mut next = Some(value);
    loop {
        match next.take() {
            Some(Value::Null) => put(out, "null"),
            Some(Value::Bool(b)) => put(out, if *b { "true" } else { "false" }),
            Some(Value::Number(n)) => {
                let _ = write!(out, "{n}");
            }
            Some(Value::String(s)) => push_json_string(out, s),
            Some(Value::Array(items)) => {
                put(out, "[");
                stack.push(Open { items: Items::Array(items.iter()), first: true });
            }
            Some(Value::Object(map)) => {
                put(out, "{");
                stack.push(Open { items: Items::Object(map.iter()), first: true });
            }
            None => {}
        }
        let Some(open) = stack.last_mut() else {
            return has_proto;
        };
        let comma = if std::mem::replace(&mut open.first, false) { "" } else { "," };
        match &mut open.items {
            Items::Array(items) => match items.next() {
                Some(item) => {
                    put(out, comma);
                    next = Some(item);
                }
                None => {
                    put(out, "]");
                    stack.pop();
                }
            },
            Items::Object(members) => match members.next() {
                Some((key, item)) => {
                    put(out, comma);
                    has_proto |= key == "__proto__";
                    push_json_string(out, key);
                    put(out, ":");
                    next = Some(item);
                }
                None => {
                    put(out, "}");
                    stack.pop();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn special_bytes_are_found_in_every_position() {
        for len in 0..20 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if at < len {
                    bytes[at] = b'"';
                }
                assert_eq!(next_special(&bytes, 0), at, "len {len} at {at}");
            }
        }
        assert_eq!(next_special("éé\u{1f}".as_bytes(), 0), 4);
        assert_eq!(next_special(b"\\xxxxxxxxxx", 1), 11);
    }

    #[test]
    fn strings_are_escaped_like_json_stringify() {
        let text = "a\"b\\c\nd\u{1}e\u{7f}é\u{2028}";
        let mut out = String::new();
        push_json_string(&mut out, text);
        assert_eq!(out, serde_json::to_string(text).unwrap());
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001e\u{7f}é\u{2028}\"");
    }

    #[test]
    fn escapes_are_undone() {
        assert_eq!(unescape(r#"a\"b\\c\/d\n\u00e9\ud83d\ude00"#), "a\"b\\c/d\né😀");
        assert_eq!(unescape(r"\ud800x\udc00"), "\u{fffd}x\u{fffd}");
        assert_eq!(unescape(r"\u12"), "\u{fffd}12");
        assert_eq!(unescape("plain"), "plain");
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let value = json!({"b": [1, -2, 0.5, 1e300, null, true, "x\ny"], "a": {}, "__proto__": []});
        let mut out = String::new();
        assert!(write_value(&mut out, &value));
        assert_eq!(out, serde_json::to_string(&value).unwrap());
        let mut count = ByteCount::default();
        write_value(&mut count, &value);
        assert_eq!(count.0, out.len());
    }
}
