//! Pure, deterministic decisions for `webmcp-bridge`.
//!
//! This crate never touches a browser API: it takes an origin string, a decoded message or a clock value and
//! returns a decision or a typed error. The `webmcp-bridge` crate turns browser events into these inputs.
#![deny(missing_docs)]

pub mod call_path;
pub mod envelope;
pub mod ids;
pub mod journal;
pub mod limits;
pub mod log_store;
pub mod origin;
pub mod outcome;
pub mod schema;
pub mod session;

pub use ids::{IdError, RequestId, ToolName};
pub use outcome::{ErrorKind, RetryAfter, ToolError};
// -- re-exports: origin (owned by the origin work) --
pub use origin::{
    NativeExposure, Origin, OriginError, OriginErrorKind, OriginList, OriginListError, OriginListWarning,
    OriginPattern, ParseOptions, WildcardOrigin, native_exposure, tool_visible_to,
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
