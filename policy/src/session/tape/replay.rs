//! Replaying a tape into a new session, and checking that it does what the recorded one did.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use thiserror::Error;

use super::{Step, StoreCall, StoreRefusal, Tape};
use crate::journal::{JournalStore, StoreError};
use crate::session::{Entropy, EntropyError, Session};

/// How a replay went where it matched the recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayReport {
    /// Inputs handed to the session (with deadlines run and journal openings and writes).
    pub inputs: usize,
    /// Effects that came out the same.
    pub effects: usize,
    /// Storage calls that were the same.
    pub store_calls: usize,
    /// Entropy draws taken from the tape.
    pub entropy_draws: usize,
}

/// Why a replay does not match its recording.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The tape is not a tape.
    #[error("the tape cannot be read: {0}")]
    Unreadable(String),
    /// At step `step` (counted from 0 over the tape's steps) the replayed session did something else.
    #[error("step {step}: the recording has {recorded}, the replay {replayed}")]
    Diverged {
        /// Where.
        step: usize,
        /// What the tape holds there.
        recorded: String,
        /// What the replayed session did.
        replayed: String,
    },
}

/// Replays the tape `json` ([`super::Recorder::tape_json`]) into a new session and checks each answer, effect,
/// deadline, entropy draw and storage call against the recording.
pub fn replay(json: &str) -> Result<ReplayReport, ReplayError> {
    let tape: Tape = serde_json::from_str(json).map_err(|e| ReplayError::Unreadable(e.to_string()))?;
    let feed = Rc::new(RefCell::new(Feed::default()));
    let mut doors = Vec::new();
    for (at, step) in tape.steps.into_iter().enumerate() {
        let mut feed_mut = feed.borrow_mut();
        match step {
            Step::Entropy(bytes) => feed_mut.entropy.push_back((at, Ok(bytes))),
            Step::NoEntropy(error) => feed_mut.entropy.push_back((at, Err(error))),
            Step::Store(call) => feed_mut.store.push_back((at, call)),
            other => doors.push((at, other)),
        }
    }
    let entropy = Box::new(ReplayEntropy { feed: Rc::clone(&feed) });
    let mut session = Session::new(tape.config, entropy);
    let mut store = ReplayStore { feed: Rc::clone(&feed) };
    let mut report = ReplayReport::default();
    let mut doors = doors.into_iter().peekable();
    while let Some((at, step)) = doors.next() {
        let diverged = |recorded: String, replayed: String| ReplayError::Diverged { step: at, recorded, replayed };
        match step {
            Step::Input { input, now } => {
                report.inputs += 1;
                let answer = format!("{:?}", session.handle(input, now));
                match doors.next() {
                    Some((_, Step::Answer(recorded))) if recorded == answer => {}
                    Some((_, Step::Answer(recorded))) => return Err(diverged(recorded, answer)),
                    _ => return Err(diverged("no answer".to_owned(), answer)),
                }
            }
            Step::Timeout { now } => {
                report.inputs += 1;
                session.handle_timeout(now);
            }
            Step::OpenJournals { opening, now } => {
                report.inputs += 1;
                session.open_journals(&mut store, opening, now);
            }
            Step::WriteJournals { now } => {
                report.inputs += 1;
                session.write_journals(&mut store, now);
            }
            Step::Effect(recorded) => {
                let replayed = session.poll_effect().map_or_else(|| "no effect".to_owned(), |e| format!("{e:?}"));
                if replayed != recorded {
                    return Err(diverged(recorded, replayed));
                }
                report.effects += 1;
            }
            Step::NoEffect => {
                if let Some(effect) = session.poll_effect() {
                    return Err(diverged("no effect".to_owned(), format!("{effect:?}")));
                }
            }
            Step::Deadline(recorded) => {
                let replayed = session.poll_timeout();
                if replayed != recorded {
                    return Err(diverged(format!("deadline {recorded:?}"), format!("deadline {replayed:?}")));
                }
            }
            Step::Answer(recorded) => return Err(diverged(recorded, "an answer without an input".to_owned())),
            // Set aside above: the session takes them when it asks.
            Step::Entropy(_) | Step::NoEntropy(_) | Step::Store(_) => {}
        }
        if let Some(error) = feed.borrow_mut().diverged.take() {
            return Err(error);
        }
    }
    let feed = feed.borrow();
    if let Some((at, _)) = feed.entropy.front() {
        return Err(ReplayError::Diverged {
            step: *at,
            recorded: "an entropy draw".to_owned(),
            replayed: "none".to_owned(),
        });
    }
    if let Some((at, call)) = feed.store.front() {
        return Err(ReplayError::Diverged { step: *at, recorded: format!("{call:?}"), replayed: "none".to_owned() });
    }
    report.entropy_draws = feed.entropy_draws;
    report.store_calls = feed.store_calls;
    Ok(report)
}

/// What the tape gives the replayed session when it asks: entropy and storage replies, in recorded order.
#[derive(Default)]
struct Feed {
    /// Each draw's bytes, or what the failed source said.
    entropy: VecDeque<(usize, Result<Vec<u8>, String>)>,
    store: VecDeque<(usize, StoreCall)>,
    entropy_draws: usize,
    store_calls: usize,
    /// The first difference found while the session asked (reported after the step that made it ask).
    diverged: Option<ReplayError>,
}

impl Feed {
    fn diverge(&mut self, step: usize, recorded: String, replayed: String) {
        self.diverged.get_or_insert(ReplayError::Diverged { step, recorded, replayed });
    }

    /// The next recorded storage call, when it is `replayed`; else the difference is noted.
    fn store_call(&mut self, replayed: &StoreCall) -> Option<StoreCall> {
        let same = |recorded: &StoreCall| match (recorded, replayed) {
            (StoreCall::Entries { prefix: a, .. }, StoreCall::Entries { prefix: b, .. }) => a == b,
            (StoreCall::Put { key: a, value: va, .. }, StoreCall::Put { key: b, value: vb, .. }) => a == b && va == vb,
            (StoreCall::Remove { key: a }, StoreCall::Remove { key: b }) => a == b,
            (StoreCall::IsDurable(_), StoreCall::IsDurable(_)) => true,
            _ => false,
        };
        match self.store.pop_front() {
            Some((_, recorded)) if same(&recorded) => {
                self.store_calls += 1;
                Some(recorded)
            }
            Some((at, recorded)) => {
                self.diverge(at, format!("{recorded:?}"), format!("{replayed:?}"));
                None
            }
            None => {
                self.diverge(usize::MAX, "no more storage calls".to_owned(), format!("{replayed:?}"));
                None
            }
        }
    }
}

struct ReplayEntropy {
    feed: Rc<RefCell<Feed>>,
}

impl Entropy for ReplayEntropy {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        let mut feed = self.feed.borrow_mut();
        let replayed = format!("a draw of {} bytes", bytes.len());
        match feed.entropy.pop_front() {
            Some((_, Ok(recorded))) if recorded.len() == bytes.len() => {
                bytes.copy_from_slice(&recorded);
                feed.entropy_draws += 1;
                return Ok(());
            }
            Some((_, Err(error))) => {
                feed.entropy_draws += 1;
                return Err(EntropyError(error));
            }
            Some((at, Ok(recorded))) => feed.diverge(at, format!("a draw of {} bytes", recorded.len()), replayed),
            None => feed.diverge(usize::MAX, "no more entropy".to_owned(), replayed),
        }
        Err(EntropyError("the tape holds no such draw".to_owned()))
    }
}

struct ReplayStore {
    feed: Rc<RefCell<Feed>>,
}

impl JournalStore for ReplayStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        let call = StoreCall::Entries { prefix: prefix.to_owned(), found: Vec::new() };
        match self.feed.borrow_mut().store_call(&call) {
            Some(StoreCall::Entries { found, .. }) => found,
            _ => Vec::new(),
        }
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        let call = StoreCall::Put { key: key.to_owned(), value: value.to_owned(), refused: None };
        match self.feed.borrow_mut().store_call(&call) {
            Some(StoreCall::Put { refused: Some(StoreRefusal::Full), .. }) => Err(StoreError::Full),
            Some(StoreCall::Put { refused: Some(StoreRefusal::Unavailable(why)), .. }) => {
                Err(StoreError::Unavailable(why))
            }
            _ => Ok(()),
        }
    }

    fn remove(&mut self, key: &str) {
        self.feed.borrow_mut().store_call(&StoreCall::Remove { key: key.to_owned() });
    }

    fn is_durable(&self) -> bool {
        matches!(self.feed.borrow_mut().store_call(&StoreCall::IsDurable(false)), Some(StoreCall::IsDurable(true)))
    }
}
