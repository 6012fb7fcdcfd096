//! A piece of outside text in a message (a name, a key, an id, a character someone wrote), quoted so that it reads
//! as one unit and cannot pass for the message's own words: a text in double quotes, a character in single quotes,
//! with the quote, `\` and every character that prints nothing or moves the text around escaped — the control
//! characters (`\n`, `\r`, `\t`, `\0`, the others as `\u{7f}`), the line and paragraph separators, and the
//! zero-width and bidirectional format characters and U+FEFF, which could make a message read otherwise than it is.
//!
//! For printable text it writes what `{:?}` wrote, which it replaces in the crate's messages: `Debug` formatting of
//! strings and characters brought its escaping code and Unicode tables into the download (issue 36).

use std::fmt;

/// `text` in double quotes, escaped.
pub fn quoted(text: &str) -> Quoted<'_> {
    Quoted { text, quote: '"' }
}

/// `c` in single quotes, escaped.
pub fn quoted_char(c: char) -> QuotedChar {
    QuotedChar(c)
}

/// See [`quoted`].
#[derive(Clone, Copy)]
pub struct Quoted<'a> {
    text: &'a str,
    quote: char,
}

/// See [`quoted_char`].
#[derive(Clone, Copy)]
pub struct QuotedChar(char);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(self.text.len() + 2);
        out.push(self.quote);
        for c in self.text.chars() {
            push_escaped(&mut out, c, self.quote);
        }
        out.push(self.quote);
        f.write_str(&out)
    }
}

impl fmt::Display for QuotedChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buffer = [0; 4];
        Quoted { text: self.0.encode_utf8(&mut buffer), quote: '\'' }.fmt(f)
    }
}

fn push_escaped(out: &mut String, c: char, quote: char) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if hides(c) => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u{");
            let code = u32::from(c);
            let digits = (32 - code.leading_zeros()).div_ceil(4).max(1);
            for shift in (0..digits).rev() {
                out.push(char::from(HEX[((code >> (shift * 4)) & 0xf) as usize]));
            }
            out.push('}');
        }
        c => out.push(c),
    }
}

/// Characters that print nothing, or change how the text around them reads.
fn hides(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{ad}'
        | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}'
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e007f}')
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::{quoted, quoted_char};

    #[test]
    fn printable_text_is_quoted_as_debug_quoted_it() {
        for text in ["", "plain", "a b", "é😀 中", "it's", "a\"b", "back\\slash", "line\nbreak\ttab\r\0"] {
            assert_eq!(quoted(text).to_string(), format!("{text:?}"), "{text:?}");
        }
        for c in ['a', 'é', '"', '\'', '\\', '\n', '\0', '1', '😀'] {
            assert_eq!(quoted_char(c).to_string(), format!("{c:?}"), "{c:?}");
        }
    }

    #[test]
    fn what_prints_nothing_or_moves_the_text_is_escaped() {
        assert_eq!(quoted("a\u{1}b\u{7f}").to_string(), "\"a\\u{1}b\\u{7f}\"");
        assert_eq!(
            quoted("\u{202e}evil\u{2066}\u{200b}\u{feff}").to_string(),
            "\"\\u{202e}evil\\u{2066}\\u{200b}\\u{feff}\""
        );
        assert_eq!(quoted("line\u{2028}sep").to_string(), "\"line\\u{2028}sep\"");
        assert_eq!(quoted_char('\u{1b}').to_string(), "'\\u{1b}'");
    }
}
