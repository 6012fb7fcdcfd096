//! Internationalized host names to their ASCII form, without the Unicode tables of full IDNA processing.
//!
//! The `url` crate is built with its ASCII-only IDNA backend (`idna_adapter` 1.0), which keeps about 40 KiB of
//! Unicode data out of the bridge's download. Hosts written in Unicode are converted here first: lowercased, the
//! ideographic full stops read as dots, each label that is not ASCII encoded as `xn--` + Punycode (RFC 3492).
//! That is what a browser does for names in lowercase NFC letters, which is how names are written. A name that
//! needs the rest of UTS 46 (full-width letters, compatibility characters) would not match what the browser
//! reports as `event.origin`, so it is refused with advice to write its `xn--` form instead.

use super::OriginError;

/// `host` with every label in ASCII, or an error that says what to write instead. An `xn--` label must be valid
/// Punycode of a name (as browsers require).
pub(crate) fn host_to_ascii(host: &str) -> Result<String, OriginError> {
    if host.is_ascii() {
        check_ace_labels(host)?;
        return Ok(host.to_owned());
    }
    let lower = host.replace(['\u{3002}', '\u{ff0e}', '\u{ff61}'], ".").to_lowercase();
    let mut out = String::with_capacity(lower.len() + 8);
    for (i, label) in lower.split('.').enumerate() {
        if i > 0 {
            out.push('.');
        }
        if label.is_ascii() {
            out.push_str(label);
            continue;
        }
        if let Some(c) = label.chars().find(|c| !(c.is_alphanumeric() || *c == '-') || is_compatibility_form(*c)) {
            return Err(OriginError::InvalidHost {
                reason: format!(
                    "it holds {c:?}, which browsers map before encoding; write the name in its xn-- form, as the \
                     browser's address bar shows it"
                ),
            });
        }
        out.push_str("xn--");
        out.push_str(
            &punycode(label)
                .ok_or_else(|| OriginError::InvalidHost { reason: "a label is too long to encode".to_owned() })?,
        );
    }
    // Labels that were ASCII already may be `xn--` labels of their own.
    check_ace_labels(&out)?;
    Ok(out)
}

/// Refuses `xn--` labels that are not the Punycode of a name: they do not decode, decode to ASCII only, or do not
/// encode back to themselves.
fn check_ace_labels(host: &str) -> Result<(), OriginError> {
    for label in host.split('.') {
        let Some(encoded) = label.get(..4).filter(|p| p.eq_ignore_ascii_case("xn--")).map(|_| &label[4..]) else {
            continue;
        };
        let lower = encoded.to_ascii_lowercase();
        let valid = decode(&lower)
            .filter(|name| !name.is_ascii() && name.chars().all(|c| c.is_alphanumeric() || c == '-'))
            .and_then(|name| punycode(&name))
            .is_some_and(|again| again == lower);
        if !valid {
            return Err(OriginError::InvalidHost { reason: "it is not a valid domain name".to_owned() });
        }
    }
    Ok(())
}

/// Decodes RFC 3492 Punycode; `None` when it is not valid.
fn decode(encoded: &str) -> Option<String> {
    let (basic, extended) = match encoded.rfind('-') {
        Some(at) => (&encoded[..at], &encoded[at + 1..]),
        None => ("", encoded),
    };
    let mut output: Vec<char> = basic.chars().collect();
    if !basic.is_ascii() {
        return None;
    }
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = extended.bytes().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let d = match digits.next()? {
                b @ b'a'..=b'z' => u32::from(b - b'a'),
                b @ b'0'..=b'9' => u32::from(b - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(d.checked_mul(w)?)?;
            let t = if k <= bias {
                T_MIN
            } else if k >= bias + T_MAX {
                T_MAX
            } else {
                k - bias
            };
            if d < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let length = output.len() as u32 + 1;
        bias = adapt(i - old_i, length, old_i == 0);
        n = n.checked_add(i / length)?;
        i %= length;
        output.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(output.into_iter().collect())
}

/// Full-width and half-width forms, which UTS 46 maps to other characters.
fn is_compatibility_form(c: char) -> bool {
    ('\u{ff00}'..='\u{ffef}').contains(&c)
}

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
    delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

fn digit(d: u32) -> char {
    // d < 36: a-z then 0-9.
    char::from(if d < 26 { b'a' + d as u8 } else { b'0' + (d - 26) as u8 })
}

/// RFC 3492 Punycode of `label` (without the `xn--` prefix); `None` on overflow (absurdly long labels).
fn punycode(label: &str) -> Option<String> {
    let input: Vec<u32> = label.chars().map(u32::from).collect();
    let mut output: String = label.chars().filter(char::is_ascii).collect();
    let basic = output.len() as u32;
    if basic > 0 {
        output.push('-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (INITIAL_N, 0u32, INITIAL_BIAS, basic);
    while (handled as usize) < input.len() {
        let m = input.iter().copied().filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in &input {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        T_MIN
                    } else if k >= bias + T_MAX {
                        T_MAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    output.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                output.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_encode_as_browsers_do() {
        // Expected forms as Chromium writes them in `location.origin`, and from RFC 3492's samples.
        let cases = [
            ("bücher.example", "xn--bcher-kva.example"),
            ("BÜCHER.example", "xn--bcher-kva.example"),
            ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
            ("münchen.de", "xn--mnchen-3ya.de"),
            ("пример.рф", "xn--e1afmkfd.xn--p1ai"),
            ("例え。テスト", "xn--r8jz45g.xn--zckzah"),
            ("ascii.example", "ascii.example"),
        ];
        for (host, expected) in cases {
            assert_eq!(host_to_ascii(host).unwrap(), expected, "{host}");
        }
        assert_eq!(punycode("他们为什么不说中文").unwrap(), "ihqwcrb4cv8a8dqg056pqjye");
        assert_eq!(decode("ihqwcrb4cv8a8dqg056pqjye").unwrap(), "他们为什么不说中文");
        assert_eq!(decode("bcher-kva").unwrap(), "bücher");
    }

    #[test]
    fn ace_labels_must_be_names() {
        assert!(host_to_ascii("xn--bcher-kva.example").is_ok());
        assert!(host_to_ascii("XN--BCHER-KVA.example").is_ok());
        // Regression (fuzzing): a bad `xn--` label next to a Unicode one was not checked.
        assert!(host_to_ascii("hkeü.xn--a.example").is_err());
        for host in ["xn--a.example", "xn--abc-.example", "xn--zz99999999.example", "xn--.example"] {
            assert!(host_to_ascii(host).is_err(), "{host}");
        }
    }

    #[test]
    fn names_that_need_more_mapping_are_refused_with_advice() {
        for host in ["ｅｘａｍｐｌｅ.com", "a☃.example", "b ü.example"] {
            let error = host_to_ascii(host).unwrap_err().to_string();
            assert!(error.contains("xn-- form"), "{host}: {error}");
        }
    }
}
