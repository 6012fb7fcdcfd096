//! The session with a recorder at its door.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use super::{Step, StoreCall, StoreRefusal};
use crate::journal::{JournalStore, StoreError};
use crate::session::{Answer, Config, Effect, Entropy, EntropyError, Input, JournalsOpening, Session};

/// The steps recorded so far, each as JSON (an input is written before the session takes it).
type Steps = Rc<RefCell<Vec<Value>>>;

/// A [`Session`] that records what happens at its door ([`super::Tape`]). Its methods are the session's.
pub struct Recorder {
    session: Session,
    config: Value,
    steps: Steps,
}

/// A step that borrows its input (the session takes the input itself); written as [`Step`] reads it.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum BorrowedStep<'a> {
    Input { input: &'a Input, now: u64 },
    OpenJournals { opening: &'a JournalsOpening, now: u64 },
}

impl Recorder {
    /// A recording session: [`Session::new`] with the entropy recorded as it is drawn.
    pub fn new(config: Config, entropy: Box<dyn Entropy>) -> Self {
        let steps: Steps = Rc::default();
        let recorded = serde_json::to_value(&config).unwrap_or(Value::Null);
        let entropy = Box::new(RecordedEntropy { inner: entropy, steps: Rc::clone(&steps) });
        Self { session: Session::new(config, entropy), config: recorded, steps }
    }

    /// The tape so far, as JSON text ([`super::Tape`]).
    pub fn tape_json(&self) -> String {
        let tape = serde_json::json!({ "config": self.config, "steps": *self.steps.borrow() });
        tape.to_string()
    }

    /// [`Session::config`].
    pub fn config(&self) -> &Config {
        self.session.config()
    }

    /// [`Session::handle`], recorded with its answer.
    pub fn handle(&mut self, input: Input, now: u64) -> Answer {
        self.push_borrowed(&BorrowedStep::Input { input: &input, now });
        let answer = self.session.handle(input, now);
        self.push(Step::Answer(format!("{answer:?}")));
        answer
    }

    /// [`Session::handle_timeout`], recorded.
    pub fn handle_timeout(&mut self, now: u64) {
        self.push(Step::Timeout { now });
        self.session.handle_timeout(now);
    }

    /// [`Session::poll_effect`], recorded.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        let effect = self.session.poll_effect();
        self.push(effect.as_ref().map_or(Step::NoEffect, |effect| Step::Effect(format!("{effect:?}"))));
        effect
    }

    /// [`Session::poll_timeout`], recorded.
    pub fn poll_timeout(&self) -> Option<u64> {
        let deadline = self.session.poll_timeout();
        self.push(Step::Deadline(deadline));
        deadline
    }

    /// [`Session::open_journals`], recorded with every storage call it makes.
    pub fn open_journals(&mut self, storage: &mut dyn JournalStore, opening: JournalsOpening, now: u64) {
        self.push_borrowed(&BorrowedStep::OpenJournals { opening: &opening, now });
        let mut storage = RecordedStore { inner: storage, steps: &self.steps };
        self.session.open_journals(&mut storage, opening, now);
    }

    /// [`Session::write_journals`], recorded with every storage call it makes.
    pub fn write_journals(&mut self, storage: &mut dyn JournalStore, now: u64) {
        self.push(Step::WriteJournals { now });
        let mut storage = RecordedStore { inner: storage, steps: &self.steps };
        self.session.write_journals(&mut storage, now);
    }

    fn push(&self, step: Step) {
        push(&self.steps, &step);
    }

    fn push_borrowed(&self, step: &BorrowedStep<'_>) {
        push(&self.steps, step);
    }
}

fn push(steps: &RefCell<Vec<Value>>, step: &impl Serialize) {
    // Every recorded type serializes (no map with non-string keys, no failing impl); a failure would show in the
    // replay as a step it cannot read.
    let value = serde_json::to_value(step).unwrap_or(Value::Null);
    steps.borrow_mut().push(value);
}

/// The session's entropy, each draw recorded.
struct RecordedEntropy {
    inner: Box<dyn Entropy>,
    steps: Steps,
}

impl Entropy for RecordedEntropy {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        let drawn = self.inner.fill(bytes);
        match &drawn {
            Ok(()) => push(&self.steps, &Step::Entropy(bytes.to_vec())),
            Err(error) => push(&self.steps, &Step::NoEntropy(error.0.clone())),
        }
        drawn
    }
}

/// The page's storage, each call and reply recorded.
struct RecordedStore<'a> {
    inner: &'a mut dyn JournalStore,
    steps: &'a RefCell<Vec<Value>>,
}

impl JournalStore for RecordedStore<'_> {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        let found = self.inner.entries(prefix);
        push(self.steps, &Step::Store(StoreCall::Entries { prefix: prefix.to_owned(), found: found.clone() }));
        found
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        let result = self.inner.put(key, value);
        let refused = result.as_ref().err().map(|error| match error {
            StoreError::Full => StoreRefusal::Full,
            StoreError::Unavailable(why) => StoreRefusal::Unavailable(why.clone()),
        });
        push(self.steps, &Step::Store(StoreCall::Put { key: key.to_owned(), value: value.to_owned(), refused }));
        result
    }

    fn remove(&mut self, key: &str) {
        self.inner.remove(key);
        push(self.steps, &Step::Store(StoreCall::Remove { key: key.to_owned() }));
    }

    fn is_durable(&self) -> bool {
        let durable = self.inner.is_durable();
        push(self.steps, &Step::Store(StoreCall::IsDurable(durable)));
        durable
    }
}
