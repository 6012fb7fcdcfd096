//! [`TabClaim`]: one starting page's claim of its tab and frame slot, as a state machine. Its decisions are
//! [`claim_step`]'s table; what it adds is the rest of the protocol: which messages are answers to this page's probe,
//! which are probes it answers once it owns the tab, when it probes, and that the first decision is the last.

use thiserror::Error;

use super::message::{Nonce, ProbeMessage, ProbeMessageError};
use crate::fifo::Fifo;
use crate::journal::{ClaimEvent, ClaimStep, claim_step};

/// How long a page whose lock is held waits for the holder's proof (a live page of the tab answers within
/// milliseconds) or for the lock, before it concludes that the holder is not of its tab and keeps the tab.
pub const CLAIM_TIMEOUT_MS: u32 = 3000;

/// What the driver tells the claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimInput {
    /// The lock is this page's now: the first request found it free, or the waiting request got it.
    LockTaken,
    /// The first request (`ifAvailable`) found the lock held by another page.
    LockHeld,
    /// The first request failed (the browser refused Web Locks here): nothing can be learned.
    LockFailed,
    /// A message on the channel, as JSON text (`JSON.stringify(event.data)`).
    Message(String),
    /// The timer of [`ClaimEffect::StartTimer`] fired.
    TimedOut,
    /// The proof the driver computed for [`ClaimEffect::Prove`]'s nonce.
    Proved {
        /// The nonce of the probe to answer.
        nonce: Nonce,
        /// HMAC-SHA-256 of the tab id, the frame slot and the nonce, as hex.
        proof: String,
    },
}

/// How the claim ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// This page is its tab's page in its slot: it keeps the tab id, answers probes and holds the lock once it
    /// gets it.
    Owner,
    /// A live page of this tab and slot proved itself: this page is a copy and takes a new tab id.
    Duplicate,
    /// The browser would not lock: nothing is known, and the page keeps its tab id.
    Unknown,
}

/// What the driver does for the claim, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimEffect {
    /// Post this JSON text on the channel, as an object.
    Post(String),
    /// Start the timer; when it fires, hand in [`ClaimInput::TimedOut`].
    StartTimer {
        /// The delay in milliseconds.
        ms: u32,
    },
    /// Clear the timer, if one runs.
    StopTimer,
    /// Queue for the lock (a request that waits); hand in [`ClaimInput::LockTaken`] when it is granted.
    WaitForLock,
    /// Give up the waiting request (abort its signal).
    StopWaiting,
    /// Keep the lock just granted for as long as the page lives (the request's callback returns a promise that
    /// never settles); without this effect, the driver lets the lock go at once.
    HoldLock,
    /// Compute the proof for this nonce and hand it in as [`ClaimInput::Proved`].
    Prove(Nonce),
    /// Close the channel: this page no longer listens.
    CloseChannel,
    /// The claim is decided; no later input changes it.
    Settled(ClaimOutcome),
}

/// Why a claim cannot start with what the driver computed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TabClaimError {
    /// The lock's name is empty.
    #[error("the tab lock's name is empty")]
    EmptyLockName,
    /// This page's nonce is not one that other versions would echo.
    #[error("this page's probe nonce is unusable: {0}")]
    Nonce(#[from] ProbeMessageError),
    /// The expected proof is empty (an answer with an empty proof would then prove a copy).
    #[error("the expected proof is empty")]
    EmptyProof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for the first lock request's answer.
    Starting,
    /// The probe is out; waiting for a proof, the lock or the timer.
    Probing,
    Settled(ClaimOutcome),
}

/// One page's claim of its tab and frame slot (docs/once-only.md §5), sans-IO: the driver makes the first lock
/// request (`ifAvailable`), hands in what happens ([`ClaimInput`]) and carries out [`TabClaim::poll_effect`]'s
/// effects. It keeps listening after it settled: an owner answers probes and holds the lock when it gets it.
#[derive(Debug)]
pub struct TabClaim {
    lock: String,
    nonce: Nonce,
    expected_proof: String,
    state: State,
    effects: Fifo<ClaimEffect>,
}

impl TabClaim {
    /// A claim of the lock `lock`, whose probe carries `nonce` and is answered by a live page of this tab and slot
    /// with `expected_proof` (the driver computes all three from the tab id).
    pub fn new(lock: &str, nonce: &str, expected_proof: &str) -> Result<TabClaim, TabClaimError> {
        if lock.is_empty() {
            return Err(TabClaimError::EmptyLockName);
        }
        if expected_proof.is_empty() {
            return Err(TabClaimError::EmptyProof);
        }
        Ok(TabClaim {
            lock: lock.to_owned(),
            nonce: Nonce::new(nonce)?,
            expected_proof: expected_proof.to_owned(),
            state: State::Starting,
            effects: Fifo::default(),
        })
    }

    /// How the claim ended, once it has.
    pub fn outcome(&self) -> Option<ClaimOutcome> {
        match self.state {
            State::Settled(outcome) => Some(outcome),
            State::Starting | State::Probing => None,
        }
    }

    /// The next thing to do, in order.
    pub fn poll_effect(&mut self) -> Option<ClaimEffect> {
        self.effects.pop_front()
    }

    /// Takes one input; its effects wait in [`TabClaim::poll_effect`].
    pub fn handle(&mut self, input: ClaimInput) {
        match (self.state, input) {
            (State::Settled(ClaimOutcome::Owner), input) => self.as_owner(input),
            (State::Settled(_), _) => {}
            (_, ClaimInput::LockFailed) => self.settle(ClaimOutcome::Unknown),
            (_, ClaimInput::LockTaken) => self.step(ClaimEvent::LockTaken),
            (State::Starting, ClaimInput::LockHeld) => self.step(ClaimEvent::LockHeld),
            (State::Probing, ClaimInput::TimedOut) => self.step(ClaimEvent::TimedOut),
            (State::Probing, ClaimInput::Message(text)) => {
                // Only an answer to this page's own probe counts, and only the expected proof proves.
                if let Ok(ProbeMessage::Answer { lock, nonce, proof }) = ProbeMessage::decode(&text)
                    && lock == self.lock
                    && nonce == self.nonce
                {
                    self.step(ClaimEvent::Answer { proven: proof == self.expected_proof });
                }
            }
            (State::Starting | State::Probing, _) => {}
        }
    }

    /// An owner answers the probes of copies of its page (same lock, hence same tab and slot) and holds the lock
    /// when it gets it.
    fn as_owner(&mut self, input: ClaimInput) {
        match input {
            ClaimInput::LockTaken => self.effects.push_back(ClaimEffect::HoldLock),
            ClaimInput::Message(text) => {
                if let Ok(ProbeMessage::Probe { lock, nonce }) = ProbeMessage::decode(&text)
                    && lock == self.lock
                {
                    self.effects.push_back(ClaimEffect::Prove(nonce));
                }
            }
            ClaimInput::Proved { nonce, proof } => {
                let answer = ProbeMessage::Answer { lock: self.lock.clone(), nonce, proof };
                self.effects.push_back(ClaimEffect::Post(answer.encode()));
            }
            ClaimInput::LockHeld | ClaimInput::LockFailed | ClaimInput::TimedOut => {}
        }
    }

    fn step(&mut self, event: ClaimEvent) {
        match claim_step(event) {
            ClaimStep::Probe => {
                self.state = State::Probing;
                let probe = ProbeMessage::Probe { lock: self.lock.clone(), nonce: self.nonce.clone() };
                self.effects.push_back(ClaimEffect::Post(probe.encode()));
                self.effects.push_back(ClaimEffect::StartTimer { ms: CLAIM_TIMEOUT_MS });
                // Wait for the lock meanwhile: a reload's old page lets go of it. A page that becomes the owner
                // without it (its holder is not of this tab) keeps waiting, and holds it once the holder lets go.
                self.effects.push_back(ClaimEffect::WaitForLock);
            }
            ClaimStep::Owner => {
                self.state = State::Settled(ClaimOutcome::Owner);
                self.effects.push_back(ClaimEffect::StopTimer);
                if event == ClaimEvent::LockTaken {
                    self.effects.push_back(ClaimEffect::HoldLock);
                }
                self.effects.push_back(ClaimEffect::Settled(ClaimOutcome::Owner));
            }
            ClaimStep::Duplicate => self.settle(ClaimOutcome::Duplicate),
            ClaimStep::Wait => {}
        }
    }

    /// Ends a claim that does not own the tab: nothing of it keeps running.
    fn settle(&mut self, outcome: ClaimOutcome) {
        self.state = State::Settled(outcome);
        self.effects.extend([
            ClaimEffect::StopTimer,
            ClaimEffect::StopWaiting,
            ClaimEffect::CloseChannel,
            ClaimEffect::Settled(outcome),
        ]);
    }
}
