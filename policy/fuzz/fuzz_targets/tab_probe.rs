#![no_main]
//! The tab probe's messages on arbitrary UTF-8 (any script of the origin can post on its channel): reading never
//! panics; a message read writes back to text that reads the same; and a claim handed the text in each of its
//! states never panics, does nothing with it before it probed, and settles at most once.

use interpane_policy::tab_probe::{ClaimEffect, ClaimInput, ProbeMessage, TabClaim};
use libfuzzer_sys::fuzz_target;

const LOCK: &str = "webmcp:00112233445566778899aabbccddeeff";
const NONCE: &str = "0123456789abcdef0123456789abcdef";
const PROOF: &str = "8c0e1f0a2b3c4d5e6f708192a3b4c5d6";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(message) = ProbeMessage::decode(text) {
        assert_eq!(ProbeMessage::decode(&message.encode()), Ok(message));
    }
    // Starting, probing, owner after the timeout, owner holding the lock.
    let runs: [&[ClaimInput]; 4] = [
        &[],
        &[ClaimInput::LockHeld],
        &[ClaimInput::LockHeld, ClaimInput::TimedOut],
        &[ClaimInput::LockTaken],
    ];
    for before in runs {
        let Ok(mut claim) = TabClaim::new(LOCK, NONCE, PROOF) else { return };
        let mut settled = 0;
        let mut run = |claim: &mut TabClaim, input: ClaimInput| {
            claim.handle(input);
            let effects: Vec<ClaimEffect> = std::iter::from_fn(|| claim.poll_effect()).collect();
            settled += effects.iter().filter(|e| matches!(e, ClaimEffect::Settled(_))).count();
            effects
        };
        for input in before {
            run(&mut claim, input.clone());
        }
        let effects = run(&mut claim, ClaimInput::Message(text.to_owned()));
        if before.is_empty() {
            assert_eq!(effects, [], "a message before the probe went out");
        }
        run(&mut claim, ClaimInput::TimedOut);
        assert!(settled <= 1, "settled {settled} times after {before:?}");
    }
});
