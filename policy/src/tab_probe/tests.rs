//! The claim's table: what each input does in each state, including the messages it must not act on.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

const LOCK: &str = "webmcp:00112233445566778899aabbccddeeff";
const NONCE: &str = "0123456789abcdef0123456789abcdef";
const OTHER_NONCE: &str = "fedcba9876543210fedcba9876543210";
const PROOF: &str = "8c0e1f0a2b3c4d5e6f708192a3b4c5d6";

fn claim() -> TabClaim {
    TabClaim::new(LOCK, NONCE, PROOF).unwrap()
}

fn drain(claim: &mut TabClaim) -> Vec<ClaimEffect> {
    std::iter::from_fn(|| claim.poll_effect()).collect()
}

/// A claim after `inputs`, its effects so far taken.
fn after(inputs: Vec<ClaimInput>) -> TabClaim {
    let mut claim = claim();
    for input in inputs {
        claim.handle(input);
    }
    drain(&mut claim);
    claim
}

fn probing() -> TabClaim {
    after(vec![ClaimInput::LockHeld])
}

fn owner_by_timeout() -> TabClaim {
    after(vec![ClaimInput::LockHeld, ClaimInput::TimedOut])
}

fn answer(lock: &str, nonce: &str, proof: &str) -> ClaimInput {
    ClaimInput::Message(format!(r#"{{"alive":"{lock}","nonce":"{nonce}","proof":"{proof}"}}"#))
}

fn probe(lock: &str, nonce: &str) -> ClaimInput {
    ClaimInput::Message(format!(r#"{{"probe":"{lock}","nonce":"{nonce}"}}"#))
}

fn nonce(text: &str) -> Nonce {
    Nonce::new(text).unwrap()
}

const DOWN: [ClaimEffect; 3] = [ClaimEffect::StopTimer, ClaimEffect::StopWaiting, ClaimEffect::CloseChannel];

#[test]
fn a_free_lock_makes_the_owner_who_holds_it() {
    let mut claim = claim();
    claim.handle(ClaimInput::LockTaken);
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Owner));
    assert_eq!(
        drain(&mut claim),
        [ClaimEffect::StopTimer, ClaimEffect::HoldLock, ClaimEffect::Settled(ClaimOutcome::Owner)]
    );
}

#[test]
fn a_held_lock_sends_the_probe_starts_the_timer_and_waits() {
    let mut claim = claim();
    claim.handle(ClaimInput::LockHeld);
    assert_eq!(claim.outcome(), None);
    let probe = format!(r#"{{"probe":"{LOCK}","nonce":"{NONCE}"}}"#);
    assert_eq!(
        drain(&mut claim),
        [ClaimEffect::Post(probe), ClaimEffect::StartTimer { ms: CLAIM_TIMEOUT_MS }, ClaimEffect::WaitForLock]
    );
    // The first lock request answers once; a second "held" probes nothing more.
    claim.handle(ClaimInput::LockHeld);
    assert_eq!(drain(&mut claim), []);
}

#[test]
fn a_proven_answer_makes_a_duplicate_and_stops_everything() {
    let mut claim = probing();
    claim.handle(answer(LOCK, NONCE, PROOF));
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Duplicate));
    let mut expected = DOWN.to_vec();
    expected.push(ClaimEffect::Settled(ClaimOutcome::Duplicate));
    assert_eq!(drain(&mut claim), expected);
}

/// claim_step's `Answer { proven: false }` is `Wait`: nothing happens, and a proof after it still counts.
#[test]
fn an_unproven_answer_changes_nothing() {
    let mut claim = probing();
    for wrong in ["", "00", &PROOF.to_uppercase(), &PROOF[1..]] {
        claim.handle(answer(LOCK, NONCE, wrong));
        assert_eq!((claim.outcome(), drain(&mut claim)), (None, vec![]), "{wrong:?}");
    }
    claim.handle(ClaimInput::Message(format!(r#"{{"alive":"{LOCK}","nonce":"{NONCE}","proof":5}}"#)));
    assert_eq!((claim.outcome(), drain(&mut claim)), (None, vec![]));
    claim.handle(answer(LOCK, NONCE, PROOF));
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Duplicate));
}

#[test]
fn answers_for_another_lock_or_nonce_are_ignored() {
    let mut claim = probing();
    let other_lock = "webmcp:ffeeddccbbaa99887766554433221100";
    for message in [
        answer(other_lock, NONCE, PROOF),
        answer(LOCK, OTHER_NONCE, PROOF),
        answer(&LOCK[..LOCK.len() - 1], NONCE, PROOF),
        // This page's own probe, echoed, and a probe are not answers.
        probe(LOCK, NONCE),
        ClaimInput::Message("not json".into()),
        ClaimInput::Message(format!(
            r#"{{"alive":"{LOCK}","nonce":"{NONCE}","proof":"{PROOF}","x":"{}"}}"#,
            "y".repeat(1024)
        )),
    ] {
        claim.handle(message.clone());
        assert_eq!((claim.outcome(), drain(&mut claim)), (None, vec![]), "{message:?}");
    }
}

#[test]
fn no_answer_within_the_timeout_makes_an_owner_who_still_waits_for_the_lock() {
    let mut claim = probing();
    claim.handle(ClaimInput::TimedOut);
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Owner));
    // No StopWaiting, no HoldLock: the lock is not this page's yet.
    assert_eq!(drain(&mut claim), [ClaimEffect::StopTimer, ClaimEffect::Settled(ClaimOutcome::Owner)]);
    claim.handle(ClaimInput::LockTaken);
    assert_eq!(drain(&mut claim), [ClaimEffect::HoldLock]);
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Owner));
}

#[test]
fn the_lock_let_go_while_probing_makes_the_owner() {
    let mut claim = probing();
    claim.handle(ClaimInput::LockTaken);
    assert_eq!(
        drain(&mut claim),
        [ClaimEffect::StopTimer, ClaimEffect::HoldLock, ClaimEffect::Settled(ClaimOutcome::Owner)]
    );
}

#[test]
fn a_refused_lock_request_leaves_it_unknown() {
    for mut claim in [claim(), probing()] {
        claim.handle(ClaimInput::LockFailed);
        assert_eq!(claim.outcome(), Some(ClaimOutcome::Unknown));
        let mut expected = DOWN.to_vec();
        expected.push(ClaimEffect::Settled(ClaimOutcome::Unknown));
        assert_eq!(drain(&mut claim), expected);
    }
}

/// A timer or an answer before the probe went out (the channel is open from the start) decides nothing.
#[test]
fn before_probing_only_the_lock_decides() {
    let mut claim = claim();
    for input in [ClaimInput::TimedOut, answer(LOCK, NONCE, PROOF), probe(LOCK, OTHER_NONCE)] {
        claim.handle(input.clone());
        assert_eq!((claim.outcome(), drain(&mut claim)), (None, vec![]), "{input:?}");
    }
}

#[test]
fn the_owner_has_copies_of_its_page_prove_for_their_nonce() {
    for mut claim in [after(vec![ClaimInput::LockTaken]), owner_by_timeout()] {
        claim.handle(probe(LOCK, OTHER_NONCE));
        assert_eq!(drain(&mut claim), [ClaimEffect::Prove(nonce(OTHER_NONCE))]);
        claim.handle(ClaimInput::Proved { nonce: nonce(OTHER_NONCE), proof: "77aa".into() });
        let answer = format!(r#"{{"alive":"{LOCK}","nonce":"{OTHER_NONCE}","proof":"77aa"}}"#);
        assert_eq!(drain(&mut claim), [ClaimEffect::Post(answer)]);
    }
}

#[test]
fn the_owner_answers_no_message_that_is_not_a_probe_of_its_lock() {
    let mut claim = owner_by_timeout();
    for message in [
        probe("webmcp:ffeeddccbbaa99887766554433221100", OTHER_NONCE),
        probe(LOCK, &OTHER_NONCE.to_uppercase()),
        probe(LOCK, &OTHER_NONCE[2..]),
        // A message with `alive` is never a probe, whatever else it holds.
        ClaimInput::Message(format!(r#"{{"probe":"{LOCK}","nonce":"{OTHER_NONCE}","alive":"{LOCK}","proof":"1"}}"#)),
        ClaimInput::Message(format!(r#"{{"probe":"{LOCK}","nonce":"{OTHER_NONCE}","alive":null}}"#)),
        ClaimInput::Message(format!(r#"{{"probe":"{LOCK}","nonce":"{OTHER_NONCE}","alive":false}}"#)),
        answer(LOCK, NONCE, PROOF),
        ClaimInput::Message(r#"{"kind":"webmcp-call-watcher","hello":true}"#.into()),
    ] {
        claim.handle(message.clone());
        assert_eq!(drain(&mut claim), [], "{message:?}");
    }
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Owner));
}

/// The first decision is the last: a settled claim ignores every later event, except that an owner holds the lock
/// it gets and answers probes.
#[test]
fn a_settled_claim_ignores_later_events() {
    let later = || {
        vec![
            ClaimInput::LockHeld,
            ClaimInput::LockFailed,
            ClaimInput::TimedOut,
            answer(LOCK, NONCE, PROOF),
            ClaimInput::LockTaken,
            probe(LOCK, OTHER_NONCE),
            ClaimInput::Proved { nonce: nonce(OTHER_NONCE), proof: "1".into() },
        ]
    };
    let duplicate = after(vec![ClaimInput::LockHeld, answer(LOCK, NONCE, PROOF)]);
    let unknown = after(vec![ClaimInput::LockFailed]);
    for (mut claim, outcome) in [(duplicate, ClaimOutcome::Duplicate), (unknown, ClaimOutcome::Unknown)] {
        for input in later() {
            claim.handle(input.clone());
            assert_eq!((claim.outcome(), drain(&mut claim)), (Some(outcome), vec![]), "{input:?}");
        }
    }
    let mut owner = owner_by_timeout();
    for input in later() {
        owner.handle(input);
    }
    assert_eq!(owner.outcome(), Some(ClaimOutcome::Owner));
    assert!(!drain(&mut owner).iter().any(|e| matches!(e, ClaimEffect::Settled(_) | ClaimEffect::StopWaiting)));
}

/// Issue 13's squatter: a page of another tab holds the lock and answers each probe with what it can read; only a
/// proof makes a copy, and no answer it can make is one.
#[test]
fn a_squatter_answering_with_what_it_can_read_keeps_the_tab() {
    let mut claim = probing();
    for proof in [LOCK, NONCE, "", "webmcp"] {
        claim.handle(answer(LOCK, NONCE, proof));
    }
    claim.handle(ClaimInput::TimedOut);
    assert_eq!(claim.outcome(), Some(ClaimOutcome::Owner));
}

#[test]
fn a_claim_needs_a_lock_a_nonce_and_a_proof() {
    assert_eq!(TabClaim::new("", NONCE, PROOF).map(|_| ()), Err(TabClaimError::EmptyLockName));
    assert_eq!(TabClaim::new(LOCK, NONCE, "").map(|_| ()), Err(TabClaimError::EmptyProof));
    assert_eq!(TabClaim::new(LOCK, "abc", PROOF).map(|_| ()), Err(TabClaimError::Nonce(ProbeMessageError::BadNonce)));
}
