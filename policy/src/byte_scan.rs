//! Scans of JSON text eight bytes at a time: the checks that every argument and result goes through (its nesting,
//! a `__proto__` key, its size once escaped) look at most bytes only as part of a 64-bit word.
//!
//! A word is tested for "holds one of these bytes" with a few integer operations; only a word that may hold one
//! is looked at byte by byte. wasm32 has 64-bit integer arithmetic but no SIMD in the targets the bridge builds
//! for, and a byte-at-a-time loop over a 64 KiB argument cost about 8 ns a byte there (docs/measurements/history.md).
//!
//! Why not `memchr` (which serde_json links already): these are not searches for a byte or a string but counts of
//! several byte classes in one pass — four bytes for [`hints`], and for [`escaped_len`] two bytes plus every byte
//! below 0x20, which no `memchr` function takes (`memchr3` stops at three bytes, and none takes a range). Built on
//! `memchr`, each would be three or more passes over the text, plus a byte loop for the control characters.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether some byte of `word` is `byte`.
#[inline]
fn holds(word: u64, byte: u8) -> bool {
    let x = word ^ (ONES * u64::from(byte));
    // A byte of `x` is zero exactly where `word` holds `byte`; the lowest such byte borrows in the subtraction
    // and has its high bit clear in `x`, and no other byte can set the result's high bits.
    x.wrapping_sub(ONES) & !x & HIGHS != 0
}

/// Whether some byte of `word` is below `limit` (`limit` at most 0x80).
#[inline]
fn holds_below(word: u64, limit: u8) -> bool {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS != 0
}

/// Whether some byte of `word` may be one of `[ \\ ] ^ _` or `{ | } ~ DEL` (0x5B-0x5F, 0x7B-0x7F): setting bit 5
/// of every byte maps the first five onto the last five, and clearing bit 7 keeps each byte below 0x80, so that
/// adding 5 carries into bit 7 exactly for the bytes from 0x7B up, and never into the next byte. Bytes from 0xDB
/// to 0xDF and from 0xFB to 0xFF (UTF-8 lead bytes) also answer yes: a word that holds one is looked at byte by
/// byte for nothing. Four operations where asking for `{`, `[`, `_` and `\\` one by one took sixteen (with the
/// words read by one load each, the nesting and `__proto__` scan's self time in a profile of 64 KiB calls fell by
/// about 80%: docs/measurements/history.md).
#[inline]
fn holds_bracket_class(word: u64) -> bool {
    let folded = (word | (ONES * 0x20)) & !HIGHS;
    folded.wrapping_add(ONES * 5) & HIGHS != 0
}

/// Calls `each(index, byte)` for the bytes of `bytes` in the 8-byte words for which `worth_a_look` is true, and
/// for the bytes after the last whole word. The other words are skipped.
#[inline]
fn for_each_flagged(bytes: &[u8], worth_a_look: impl Fn(u64) -> bool, mut each: impl FnMut(usize, u8)) {
    // Whole words as `[u8; 8]`s: each is read with one 64-bit load (a `chunks_exact` copied each into a buffer).
    let (words, rest) = bytes.as_chunks::<8>();
    for (n, word) in words.iter().enumerate() {
        if worth_a_look(u64::from_le_bytes(*word)) {
            for (i, &b) in word.iter().enumerate() {
                each(n * 8 + i, b);
            }
        }
    }
    let at = words.len() * 8;
    for (i, &b) in rest.iter().enumerate() {
        each(at + i, b);
    }
}

/// What one pass over a JSON text tells about its shape before it is parsed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hints {
    /// How many `{` and `[` bytes it holds (in strings too): no value nests deeper than this.
    pub(crate) openers: usize,
    /// Whether it holds `__proto__` or `\u` (in strings too): a text with neither has no `__proto__` key.
    pub(crate) may_hold_proto: bool,
}

/// The [`Hints`] of `text`.
pub(crate) fn hints(text: &str) -> Hints {
    let bytes = text.as_bytes();
    let mut found = Hints { openers: 0, may_hold_proto: false };
    for_each_flagged(bytes, holds_bracket_class, |at, b| match b {
        b'{' | b'[' => found.openers += 1,
        b'_' => found.may_hold_proto |= bytes[at..].starts_with(b"__proto__"),
        b'\\' => found.may_hold_proto |= bytes.get(at + 1) == Some(&b'u'),
        _ => {}
    });
    found
}

/// The index of the first byte from `from` on that ends or interrupts a JSON string's plain content: `"`, `\\`
/// or a control character; `bytes.len()` when there is none. Whole words without one are skipped.
pub(crate) fn string_stop(bytes: &[u8], from: usize) -> usize {
    let is_stop = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
    let mut at = from;
    while let Some(word) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if holds(word, b'"') || holds(word, b'\\') || holds_below(word, 0x20) {
            break;
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| is_stop(b)).map_or(bytes.len(), |n| at + n)
}

/// How many `{` and `[` bytes `text` holds.
pub(crate) fn openers(text: &str) -> usize {
    let mut count = 0;
    for_each_flagged(
        text.as_bytes(),
        |w| holds(w, b'{') || holds(w, b'['),
        |_, b| count += usize::from(b == b'{' || b == b'['),
    );
    count
}

/// The bytes of `text` inside a JSON string as serde_json writes it: `"`, `\` and the control characters with a
/// short escape (`\b \f \n \r \t`) take two bytes, the other control characters six (`\u001f`), everything else
/// its UTF-8 bytes.
pub(crate) fn escaped_len(text: &str) -> usize {
    let mut extra = 0;
    for_each_flagged(
        text.as_bytes(),
        |w| holds(w, b'"') || holds(w, b'\\') || holds_below(w, 0x20),
        |_, b| {
            extra += match b {
                b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
                0..=0x1f => 5,
                _ => 0,
            }
        },
    );
    text.len() + extra
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::next;

    /// The byte-at-a-time definitions the scans must agree with.
    fn naive_hints(text: &str) -> Hints {
        Hints {
            openers: text.bytes().filter(|b| matches!(b, b'{' | b'[')).count(),
            may_hold_proto: text.contains("__proto__") || text.contains("\\u"),
        }
    }

    fn naive_escaped_len(text: &str) -> usize {
        text.chars()
            .map(|c| match c {
                '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
                c if (c as u32) < 0x20 => 6,
                c => c.len_utf8(),
            })
            .sum()
    }

    /// Texts made of pieces that matter to the scans, at every offset against the 8-byte words.
    fn texts() -> Vec<String> {
        let pieces = [
            "a",
            "z",
            "{",
            "[",
            "}",
            "_",
            "__proto__",
            "__proto_",
            "\\",
            "\\u",
            "\\u005f",
            "\"",
            "\n",
            "\t",
            "\u{1}",
            "\u{1f}",
            " ",
            "\u{7f}",
            "é",
            "€",
            "😀",
            "\u{80}",
            "~",
            "`",
            "^",
            "?",
            "@",
            "{\"__proto__\":1}",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15;
        let mut out = vec![String::new()];
        for _ in 0..4000 {
            let mut text = String::new();
            let len = next(&mut state) % 40;
            for _ in 0..len {
                text.push_str(pieces[(next(&mut state) % pieces.len() as u64) as usize]);
            }
            out.push(text);
        }
        for offset in 0..16 {
            for piece in pieces {
                out.push(format!("{}{piece}{}", "x".repeat(offset), "y".repeat(offset)));
            }
        }
        out
    }

    #[test]
    fn the_word_scans_agree_with_byte_by_byte_definitions() {
        for text in texts() {
            assert_eq!(hints(&text), naive_hints(&text), "{text:?}");
            assert_eq!(openers(&text), naive_hints(&text).openers, "{text:?}");
            assert_eq!(escaped_len(&text), naive_escaped_len(&text), "{text:?}");
        }
    }

    #[test]
    fn every_byte_value_is_found_in_every_lane() {
        for byte in 0..=u8::MAX {
            for lane in 0..8 {
                let mut word = [b'a'; 8];
                word[lane] = byte;
                let word = u64::from_le_bytes(word);
                assert!(holds(word, byte), "{byte} in lane {lane}");
                assert_eq!(holds(word, b'{'), byte == b'{', "{byte} in lane {lane}");
                assert_eq!(holds_below(word, 0x20), byte < 0x20, "{byte} in lane {lane}");
                let in_class = matches!(byte, 0x5b..=0x5f | 0x7b..=0x7f | 0xdb..=0xdf | 0xfb..=0xff);
                assert_eq!(holds_bracket_class(word), in_class, "{byte:#x} in lane {lane}");
            }
        }
    }

    #[test]
    fn letters_digits_and_common_text_are_not_looked_at() {
        // The filler of the benchmark and most JSON text: no byte of the class.
        for text in ["abcdefghijklmnopqrstuvwxyz0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ \"\":,.-+()é€😀"] {
            for chunk in text.as_bytes().chunks_exact(8) {
                let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                assert!(!holds_bracket_class(word), "{chunk:?}");
            }
        }
    }
}
