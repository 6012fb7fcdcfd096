//! The tab probe's two messages, read from and written to JSON text.
//!
//! Their shape is the one every earlier version posts, so that a page on an older version and its copy on this one
//! still find each other: a probe `{probe: <lock name>, nonce: <32 hex digits>}` and an answer `{alive: <lock name>,
//! nonce, proof}`. Fields beyond these are ignored; a message with an `alive` field is an answer or nothing, never
//! a probe, so that an answer is never taken for a question.

use std::fmt;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::envelope::encode::Object;

/// The largest message read, in bytes of JSON text. A probe or an answer is about 150 bytes; anything much longer
/// is not one, and is refused before it is parsed.
pub const MAX_MESSAGE_BYTES: usize = 1024;
/// How many hex digits a nonce has (128 random bits).
pub const NONCE_DIGITS: usize = 32;

/// A message of the tab probe's channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeMessage {
    /// A starting page found the lock `lock` held and asks its holder to prove, for `nonce`, that it knows the tab
    /// id.
    Probe {
        /// The lock's name.
        lock: String,
        /// The fresh nonce the proof is for.
        nonce: Nonce,
    },
    /// The lock's holder answers the probe that sent `nonce` with `proof`.
    Answer {
        /// The lock's name.
        lock: String,
        /// The nonce of the probe answered.
        nonce: Nonce,
        /// The proof (HMAC-SHA-256 of the tab id, the frame slot and the nonce, as hex); checked by the prober.
        proof: String,
    },
}

/// Why a message of the channel is not a probe or an answer (another script's message, a newer kind, a broken one).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ProbeMessageError {
    /// Longer than [`MAX_MESSAGE_BYTES`].
    #[error("the message is {bytes} bytes of JSON: a tab probe message has at most {MAX_MESSAGE_BYTES}")]
    TooLarge {
        /// The text's length in bytes.
        bytes: usize,
    },
    /// Not JSON text, or JSON that is not an object.
    #[error("the message is not a JSON object")]
    NotAnObject,
    /// An object with neither a `probe` nor an `alive` field.
    #[error("the message has neither a `probe` nor an `alive` field: it is not the tab probe's")]
    OtherMessage,
    /// A field of the message is missing or not a string.
    #[error("the message's `{field}` is missing or not a string")]
    NotAString {
        /// The field's name.
        field: &'static str,
    },
    /// The nonce is not [`NONCE_DIGITS`] lowercase hex digits.
    #[error("the nonce is not {NONCE_DIGITS} lowercase hex digits")]
    BadNonce,
}

/// A probe's nonce: [`NONCE_DIGITS`] lowercase hex digits, as every version writes them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Nonce(String);

impl Nonce {
    /// Checks `text` as a nonce.
    pub fn new(text: &str) -> Result<Nonce, ProbeMessageError> {
        let hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
        if text.len() == NONCE_DIGITS && text.as_bytes().iter().all(hex) {
            Ok(Nonce(text.to_owned()))
        } else {
            Err(ProbeMessageError::BadNonce)
        }
    }

    /// The nonce as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ProbeMessage {
    /// Reads one message of the channel, `text` being its data as JSON text (`JSON.stringify(event.data)`).
    pub fn decode(text: &str) -> Result<ProbeMessage, ProbeMessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(ProbeMessageError::TooLarge { bytes: text.len() });
        }
        let Ok(Value::Object(fields)) = crate::envelope::parse_json(text) else {
            return Err(ProbeMessageError::NotAnObject);
        };
        // `alive` first: a message that has it is never a probe (earlier versions ignored such probes too).
        if fields.contains_key("alive") {
            Ok(ProbeMessage::Answer {
                lock: string(&fields, "alive")?.to_owned(),
                nonce: Nonce::new(string(&fields, "nonce")?)?,
                proof: string(&fields, "proof")?.to_owned(),
            })
        } else if fields.contains_key("probe") {
            Ok(ProbeMessage::Probe {
                lock: string(&fields, "probe")?.to_owned(),
                nonce: Nonce::new(string(&fields, "nonce")?)?,
            })
        } else {
            Err(ProbeMessageError::OtherMessage)
        }
    }

    /// The message as JSON text, to post on the channel as an object (`JSON.parse`).
    pub fn encode(&self) -> String {
        // Field order as the JavaScript glue of earlier versions wrote them.
        let mut out = String::new();
        let mut fields = Object::open(&mut out);
        match self {
            ProbeMessage::Probe { lock, nonce } => fields.string("probe", lock).string("nonce", &nonce.0),
            ProbeMessage::Answer { lock, nonce, proof } => {
                fields.string("alive", lock).string("nonce", &nonce.0).string("proof", proof)
            }
        }
        .close();
        out
    }
}

fn string<'a>(fields: &'a Map<String, Value>, field: &'static str) -> Result<&'a str, ProbeMessageError> {
    fields.get(field).and_then(Value::as_str).ok_or(ProbeMessageError::NotAString { field })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const NONCE: &str = "0123456789abcdef0123456789abcdef";
    const LOCK: &str = "webmcp:00112233445566778899aabbccddeeff";

    fn nonce() -> Nonce {
        Nonce::new(NONCE).unwrap()
    }

    #[test]
    fn what_each_message_reads_as() {
        let probe = ProbeMessage::Probe { lock: LOCK.into(), nonce: nonce() };
        let answer = |proof: &str| ProbeMessage::Answer { lock: LOCK.into(), nonce: nonce(), proof: proof.into() };
        let long = format!(r#"{{"probe":"{LOCK}","nonce":"{NONCE}","pad":"{}"}}"#, "x".repeat(MAX_MESSAGE_BYTES));
        let table: Vec<(String, Result<ProbeMessage, ProbeMessageError>)> = vec![
            (format!(r#"{{"probe":"{LOCK}","nonce":"{NONCE}"}}"#), Ok(probe.clone())),
            (format!(r#"{{"nonce":"{NONCE}","probe":"{LOCK}","extra":[1]}}"#), Ok(probe)),
            (format!(r#"{{"alive":"{LOCK}","nonce":"{NONCE}","proof":"ab12"}}"#), Ok(answer("ab12"))),
            // An answer that also names a probe is an answer.
            (format!(r#"{{"alive":"{LOCK}","probe":"{LOCK}","nonce":"{NONCE}","proof":""}}"#), Ok(answer(""))),
            // A probe with an `alive` field of any kind is never a probe.
            (
                format!(r#"{{"alive":null,"probe":"{LOCK}","nonce":"{NONCE}"}}"#),
                Err(ProbeMessageError::NotAString { field: "alive" }),
            ),
            (
                format!(r#"{{"alive":"{LOCK}","probe":"{LOCK}","nonce":"{NONCE}"}}"#),
                Err(ProbeMessageError::NotAString { field: "proof" }),
            ),
            (
                format!(r#"{{"alive":"{LOCK}","nonce":"{NONCE}","proof":7}}"#),
                Err(ProbeMessageError::NotAString { field: "proof" }),
            ),
            (format!(r#"{{"probe":5,"nonce":"{NONCE}"}}"#), Err(ProbeMessageError::NotAString { field: "probe" })),
            (format!(r#"{{"probe":"{LOCK}"}}"#), Err(ProbeMessageError::NotAString { field: "nonce" })),
            (format!(r#"{{"probe":"{LOCK}","nonce":"{}"}}"#, NONCE.to_uppercase()), Err(ProbeMessageError::BadNonce)),
            (format!(r#"{{"probe":"{LOCK}","nonce":"{NONCE}0"}}"#), Err(ProbeMessageError::BadNonce)),
            (format!(r#"{{"probe":"{LOCK}","nonce":"{}"}}"#, &NONCE[1..]), Err(ProbeMessageError::BadNonce)),
            (format!(r#"{{"probe":"{LOCK}","nonce":"{}g"}}"#, &NONCE[1..]), Err(ProbeMessageError::BadNonce)),
            (r#"{"kind":"webmcp-call-watcher","hello":true}"#.into(), Err(ProbeMessageError::OtherMessage)),
            ("[1]".into(), Err(ProbeMessageError::NotAnObject)),
            ("not json".into(), Err(ProbeMessageError::NotAnObject)),
            ("null".into(), Err(ProbeMessageError::NotAnObject)),
            (long.clone(), Err(ProbeMessageError::TooLarge { bytes: long.len() })),
        ];
        for (text, expected) in table {
            assert_eq!(ProbeMessage::decode(&text), expected, "{text}");
        }
    }

    /// The exact text earlier versions posted (`{probe, nonce}` and `{alive, nonce, proof}`, in that order).
    #[test]
    fn messages_are_written_as_earlier_versions_wrote_them() {
        let probe = ProbeMessage::Probe { lock: LOCK.into(), nonce: nonce() };
        assert_eq!(probe.encode(), format!(r#"{{"probe":"{LOCK}","nonce":"{NONCE}"}}"#));
        let answer = ProbeMessage::Answer { lock: LOCK.into(), nonce: nonce(), proof: "9f".into() };
        assert_eq!(answer.encode(), format!(r#"{{"alive":"{LOCK}","nonce":"{NONCE}","proof":"9f"}}"#));
        for message in [probe, answer] {
            assert_eq!(ProbeMessage::decode(&message.encode()), Ok(message));
        }
    }
}
