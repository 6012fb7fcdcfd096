//! Pure, deterministic decisions for `interpane`.
//!
//! This crate never touches a browser API. Its center is [`session::Session`], the whole protocol of one page as a
//! sans-IO state machine: browser events come in as [`session::Input`]s with the time, decisions leave as
//! [`session::Effect`]s (post this envelope to this window at this exact origin, run this tool, settle this call)
//! and the next deadline as [`session::Session::poll_timeout`]. The `interpane` crate is its driver.
//!
//! Where to look: who may list, call, cancel or connect, and where every answer goes — `session` (its module docs
//! name the file of each); origin lists and visibility — [`origin`]; message shapes and limits — [`envelope`];
//! once-only — [`journal`], and which tab a page is — [`tab_probe`]; argument checks — [`schema`]; flood guards and
//! rate-limited warnings — [`guard`]. The data flow of one call is drawn in docs/architecture.md.
#![deny(missing_docs)]

mod byte_scan;
pub mod call_args;
pub mod call_path;
pub mod calls_channel;
pub mod envelope;
mod fifo;
pub mod ids;
pub mod index_map;
pub mod journal;
pub mod limits;
/// The journals' batched store ([`journal::log_store`]), also named at the crate's root.
pub use journal::log_store;
pub mod origin;
pub mod outcome;
pub mod quote;
pub mod schema;
pub mod session;
pub mod sorted_map;
pub mod tab_probe;
#[cfg(test)]
mod test_rng;

pub use ids::{IdError, RequestId, ToolName};
pub use outcome::{ErrorKind, RetryAfter, ToolError, native_rejection_kind};
// -- re-exports: origin (owned by the origin work) --
pub use origin::{
    NativeExposure, Origin, OriginError, OriginErrorKind, OriginList, OriginListError, OriginListWarning,
    OriginPattern, ParseOptions, TupleOrigin, WildcardOrigin, WindowOrigin, native_exposure, tool_visible_to,
};
// -- re-exports: envelope and limits (owned by the envelope work) --
pub mod guard;
pub use envelope::{
    Decoded, EnvelopeError, ErrorCategory, JsonError, JsonKind, JsonText, Message, MessageType, decode, decode_batch,
    decode_value, encode_batch,
};
pub use limits::Limits;
// -- re-exports: schema (owned by the schema work) --
pub use schema::{ArgProblem, ArgSchema, ArgsError, ProblemKind, SchemaError};
// -- re-exports: journal (owned by the journal work) --
pub use journal::{
    CallOutcome, ConsumerJournal, JournalConfig, JournalStore, JournalWarning, MemoryStore, Owner, ProviderJournal,
    StoreError, ToolOutcome,
};
