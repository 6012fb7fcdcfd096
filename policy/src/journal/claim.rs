//! Whether a starting page is its tab's page or a copy of a live one (docs/once-only.md §5): the decision, given
//! what the page learned about the Web Lock of its tab and frame slot and what answered its probe.
//!
//! The bridge does the browser's part: it names the lock and checks proofs with a one-way function of the tab id
//! (HMAC-SHA-256, keyed with the tab id, which never leaves the tab's sessionStorage), so a page of another tab
//! sees the lock's name and every message but can neither claim the tab nor prove that it belongs to it.

/// What a starting page learned about its tab's lock and its probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimEvent {
    /// The lock is now this page's (it was free, or its holder let go while the page waited).
    LockTaken,
    /// Another page holds the lock.
    LockHeld,
    /// An answer to this page's probe. `proven`: it proves knowledge of the tab id for the fresh nonce this page
    /// sent, for this frame slot; only a live page of this tab (a copy of it, in the same slot) can make one.
    Answer {
        /// Whether the answer is the proof that this page expected.
        proven: bool,
    },
    /// The lock stayed held and no proof came within the timeout.
    TimedOut,
}

/// What the page does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimStep {
    /// This page is its tab's page in its slot: it keeps the tab id and answers probes from now on (and holds the
    /// lock when it gets it).
    Owner,
    /// A live page of this tab and slot proved itself: this page is a copy and takes a new tab id.
    Duplicate,
    /// Ask on the channel for a proof from the lock's holder, and wait for the lock meanwhile.
    Probe,
    /// Nothing decided: keep waiting.
    Wait,
}

/// The next step after `event`; the first event that gives `Owner` or `Duplicate` decides.
///
/// A held lock alone proves nothing: any page of the origin can see a lock's name (`navigator.locks.query()`)
/// and hold it, so only a proof makes a copy. A lock that stays held with no proof for the whole timeout is held
/// by a page that is not of this tab, and the page keeps its tab. The price: an original page whose main thread
/// does not run for the whole timeout (a script blocking it, the browser freezing it) is taken for absent, and its
/// copy keeps its tab id too.
pub fn claim_step(event: ClaimEvent) -> ClaimStep {
    match event {
        ClaimEvent::LockTaken => ClaimStep::Owner,
        ClaimEvent::LockHeld => ClaimStep::Probe,
        ClaimEvent::Answer { proven: true } => ClaimStep::Duplicate,
        ClaimEvent::Answer { proven: false } => ClaimStep::Wait,
        ClaimEvent::TimedOut => ClaimStep::Owner,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn each_event_leads_to_one_step() {
        let table = [
            (ClaimEvent::LockTaken, ClaimStep::Owner),
            (ClaimEvent::LockHeld, ClaimStep::Probe),
            (ClaimEvent::Answer { proven: true }, ClaimStep::Duplicate),
            (ClaimEvent::Answer { proven: false }, ClaimStep::Wait),
            (ClaimEvent::TimedOut, ClaimStep::Owner),
        ];
        for (event, step) in table {
            assert_eq!(claim_step(event), step, "{event:?}");
        }
    }

    /// Issue 13: a page of another tab that holds the lock and answers every probe with what it could read must
    /// not make a reload a copy; only a proof does, whichever order events come in.
    #[test]
    fn a_squatted_lock_with_wrong_answers_keeps_the_tab() {
        let runs: [&[ClaimEvent]; 4] = [
            &[ClaimEvent::LockHeld, ClaimEvent::Answer { proven: false }, ClaimEvent::TimedOut],
            &[ClaimEvent::LockHeld, ClaimEvent::Answer { proven: false }, ClaimEvent::LockTaken],
            &[ClaimEvent::LockHeld, ClaimEvent::Answer { proven: false }, ClaimEvent::Answer { proven: true }],
            &[ClaimEvent::LockHeld, ClaimEvent::LockTaken, ClaimEvent::Answer { proven: true }],
        ];
        let expected = [ClaimStep::Owner, ClaimStep::Owner, ClaimStep::Duplicate, ClaimStep::Owner];
        for (events, expected) in runs.iter().zip(expected) {
            let decided = events
                .iter()
                .map(|event| claim_step(*event))
                .find(|step| matches!(step, ClaimStep::Owner | ClaimStep::Duplicate));
            assert_eq!(decided, Some(expected), "{events:?}");
        }
    }
}
