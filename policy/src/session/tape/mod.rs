//! A session's recording, and its replay (feature `record`): the proof that the session is deterministic and that
//! everything it decides comes in through its door.
//!
//! A [`Recorder`] stands where the driver keeps its [`Session`](super::Session) and has the same methods. It writes a [`Tape`]:
//! the session's settings, then in order every input with its time, every deadline run, every opening and write of
//! the journals, and what came back — each answer, effect and next deadline (as their `Debug` text), every byte of
//! entropy the session drew and every call it made to the page's storage with the storage's reply.
//! [`replay`] makes a new session from the settings, hands it the recorded inputs, entropy and storage replies, and
//! checks that it asks the same of the storage and gives the same answers, effects and deadlines in the same order.
//!
//! The bridge records when built with its own `record` feature (`scripts/build-pkg.sh --record`); the end-to-end
//! test `replay::…` takes the tape of a page in a real browser and replays it natively. A tape holds what the page
//! received (tool arguments, results, storage), so the feature is for tests, never for a package that visitors
//! load.
//!
//! ```
//! use interpane_policy::session::tape::{Recorder, replay};
//! use interpane_policy::session::{Config, Effect, Entropy, EntropyError, Input, ToolSpec};
//! use interpane_policy::{OriginList, ToolName, WindowOrigin};
//!
//! struct Fixed;
//! impl Entropy for Fixed {
//!     fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
//!         bytes.fill(7);
//!         Ok(())
//!     }
//! }
//!
//! let config = Config::new(WindowOrigin::from_browser("https://shop.example"), OriginList::empty());
//! let mut session = Recorder::new(config, Box::new(Fixed));
//! let spec = ToolSpec::new(ToolName::new("add_to_cart")?, "Add a product to the cart.");
//! session.handle(Input::Register { spec: Box::new(spec) }, 5);
//! assert_eq!(session.poll_effect(), Some(Effect::ToolChange));
//! let tape = session.tape_json();
//! assert_eq!(replay(&tape)?.effects, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod recorder;
mod replay;
mod values;

use serde::{Deserialize, Serialize};

pub use recorder::Recorder;
pub use replay::{ReplayError, ReplayReport, replay};

use super::{Config, Input, JournalsOpening};

/// One thing that happened at the session's door, in order.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// [`Session::handle`](super::Session::handle) was called.
    Input {
        /// The input.
        input: Input,
        /// The time given with it.
        now: u64,
    },
    /// What [`Session::handle`](super::Session::handle) answered (`Debug` text).
    Answer(String),
    /// [`Session::handle_timeout`](super::Session::handle_timeout) was called.
    Timeout {
        /// The time given.
        now: u64,
    },
    /// [`Session::open_journals`](super::Session::open_journals) was called.
    OpenJournals {
        /// Which page the journals are.
        opening: JournalsOpening,
        /// The time given.
        now: u64,
    },
    /// [`Session::write_journals`](super::Session::write_journals) was called.
    WriteJournals {
        /// The time given.
        now: u64,
    },
    /// The session drew entropy: these bytes.
    Entropy(Vec<u8>),
    /// The session drew entropy and the source failed, saying this.
    NoEntropy(String),
    /// The session called the storage it was handed, and this came back.
    Store(StoreCall),
    /// [`Session::poll_effect`](super::Session::poll_effect) gave this effect (`Debug` text).
    Effect(String),
    /// [`Session::poll_effect`](super::Session::poll_effect) gave none: every effect so far was taken.
    NoEffect,
    /// [`Session::poll_timeout`](super::Session::poll_timeout) gave this deadline.
    Deadline(Option<u64>),
}

/// A call of the session to the page's storage, with the storage's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreCall {
    /// `entries(prefix)` gave these pairs.
    Entries {
        /// The prefix asked for.
        prefix: String,
        /// What the storage held.
        found: Vec<(String, String)>,
    },
    /// `put(key, value)`; `refused` is the storage's error (`None`: written).
    Put {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// Whether the storage refused it, and how.
        refused: Option<StoreRefusal>,
    },
    /// `remove(key)`.
    Remove {
        /// The key.
        key: String,
    },
    /// `is_durable()` gave this.
    IsDurable(bool),
}

/// How the storage refused a write (a recorded [`StoreError`](crate::journal::StoreError)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreRefusal {
    /// [`StoreError::Full`](crate::journal::StoreError::Full).
    Full,
    /// [`StoreError::Unavailable`](crate::journal::StoreError::Unavailable) with its text.
    Unavailable(String),
}

/// A session's recording: its settings and what happened at its door, in order.
#[derive(Debug, Serialize, Deserialize)]
pub struct Tape {
    /// What the session was made with.
    pub config: Config,
    /// What happened.
    pub steps: Vec<Step>,
}
