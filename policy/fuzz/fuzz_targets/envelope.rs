#![no_main]
//! Envelope decoding on arbitrary UTF-8, as one message and as a port batch. Every message that decodes encodes
//! to a text that decodes to the same message; every refusal can be displayed and answered without panicking;
//! and the scanner accepts exactly the JSON that serde_json accepts (apart from what serde_json refuses beyond
//! the grammar: numbers out of range, lone surrogates, nesting past 128).

use libfuzzer_sys::fuzz_target;
use interpane_policy::{Decoded, EnvelopeError, JsonText, Limits, decode, decode_batch};

fn check(decoded: Result<Decoded, EnvelopeError>, limits: &Limits) {
    match decoded {
        Ok(Decoded::Message(message)) => {
            let text = message.encode();
            assert_eq!(decode(&text, limits), Ok(Decoded::Message(message)), "{text}");
        }
        Ok(Decoded::NotOurs) => {}
        Err(error) => {
            assert!(!error.to_string().is_empty());
            let _ = (error.category(), error.error_reply());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    check(decode(text, &limits), &limits);
    if let Ok(batch) = decode_batch(text, &limits) {
        for decoded in batch {
            check(decoded, &limits);
        }
    }

    let ours = JsonText::parse(text, &Limits { max_depth: usize::MAX, ..Limits::default() });
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(_) => assert!(ours.is_ok(), "serde_json accepts {text:?}, the scanner says {ours:?}"),
        Err(theirs) => {
            // serde_json's "unexpected end of hex escape" is a lone leading surrogate (crash-e6066b98), not a
            // grammar error: JSON.parse accepts it.
            let beyond_grammar = ["out of range", "surrogate", "end of hex escape", "recursion limit"]
                .iter()
                .any(|reason| theirs.to_string().contains(reason));
            if !beyond_grammar {
                assert!(ours.is_err(), "serde_json refuses {text:?} ({theirs}), the scanner accepts it");
            }
        }
    }
});
