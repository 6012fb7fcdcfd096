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
                    "it holds {}, which browsers map before encoding; write the name in its xn-- form, as the \
                     browser's address bar shows it",
                    crate::quote::quoted_char(c)
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

/// Full-width and half-width forms, which UTS 46 maps to other characters.
fn is_compatibility_form(c: char) -> bool {
    ('\u{ff00}'..='\u{ffef}').contains(&c)
}

/// Decodes RFC 3492 Punycode; `None` when it is not valid. (The `idna` crate's, which `url` links already.)
fn decode(encoded: &str) -> Option<String> {
    idna::punycode::decode_to_string(encoded)
}

/// RFC 3492 Punycode of `label` (without the `xn--` prefix); `None` on overflow (absurdly long labels). (The `idna`
/// crate's, which `url` links already.)
fn punycode(label: &str) -> Option<String> {
    idna::punycode::encode_str(label)
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
