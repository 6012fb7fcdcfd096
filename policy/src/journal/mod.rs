//! Once-only call journals (docs/once-only.md): pure state machines that decide what the bridge sends, runs and
//! reports so that each tool call runs at most once and its caller learns how it ended, across reloads.
//!
//! Nothing here does I/O, reads a clock or makes a random number: time comes in as `now` (milliseconds since
//! the epoch), random wire ids come from the bridge, and storage is behind [`JournalStore`], which the bridge
//! implements over `sessionStorage` (and [`MemoryStore`] in memory). Both journals persist through one layer
//! (`persist.rs`): a change marks its record, written at once or, over the bridge's batched
//! [`LogStore`](log_store::LogStore), once in its latest state at the next flush. Arguments and results
//! are [`JsonText`](crate::JsonText), as in the envelopes: checked once when they come in, or when a journal
//! reads them back from storage, and never parsed again on the way out.
//!
//! ```
//! use interpane_policy::journal::{
//!     ConsumerJournal, ExecuteDecision, JournalConfig, MemoryStore, NewCall, Owner, ProviderJournal,
//!     ProviderWindow, Start, ToolOutcome,
//! };
//! use interpane_policy::{JsonText, Limits, RequestId, ToolName};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let now = 1_700_000_000_000;
//! let owner = Owner::new("t5Yq0b", "top")?;
//! let (mut consumer, recoveries) =
//!     ConsumerJournal::open(MemoryStore::durable(), owner.clone(), JournalConfig::default(), now);
//! assert!(recoveries.is_empty());
//!
//! // The caller's page records the call, then posts it.
//! let wire = RequestId::new("c_6YV2n0cM1yqg1nq4cH3Wyw")?;
//! let tool = ToolName::new("add_to_cart")?;
//! let shop = ProviderWindow::new("https://shop.example", "frame:top/0", true);
//! let args = JsonText::parse(r#"{"sku":"margherita"}"#, &Limits::default())?;
//! let call = NewCall { call_id: Some("agent-call-1".into()), wire_id: wire.clone(), tool: tool.clone(),
//!                      provider: shop, args };
//! assert_eq!(consumer.start(call, now)?, Start::New);
//! assert!(consumer.mark_sent(&wire, now));
//!
//! // The provider's page records it as running before it calls the tool.
//! let mut provider = ProviderJournal::open(MemoryStore::durable(), owner, JournalConfig::default(), now);
//! assert_eq!(provider.on_execute("https://caller.example", &wire, &tool, now), ExecuteDecision::Run);
//! let result = JsonText::parse(r#""added""#, &Limits::default())?;
//! let answer = provider.on_finish("https://caller.example", &wire, ToolOutcome::Completed { result }, now + 5);
//!
//! // The response settles the call once; a duplicate settles nothing.
//! let settled = consumer.on_response(&wire, answer.clone().unwrap(), now + 6).unwrap();
//! assert_eq!(settled.duration_ms, 6);
//! assert!(consumer.on_response(&wire, answer.unwrap(), now + 7).is_none());
//! # Ok(())
//! # }
//! ```

mod claim;
mod config;
mod consumer;
pub mod entry;
pub mod log_store;
mod outcome;
mod owner;
mod persist;
mod provider;
mod store;
mod warning;

pub use claim::{ClaimEvent, ClaimStep, claim_step};
pub use config::JournalConfig;
pub use consumer::{
    ConsumerJournal, ExecuteRequest, Followup, MAX_ACK_BATCH, NewCall, OUTCOME_NOT_KEPT, PLAIN_PEER_UNANSWERED,
    PROVIDER_GONE, PROVIDER_GONE_BEFORE_SEND, PROVIDER_NOT_DURABLE, ProviderStatus, Recovery, Settled, Start,
    StartError, StatusDecision, TIMED_OUT, TOO_OLD_RECORDED, TOO_OLD_SENT,
};
pub use entry::{
    AckState, CallPhase, ConsumerEntry, EntryError, ProviderEntry, ProviderMeta, ProviderWindow, RecordState,
};
pub use outcome::{CallOutcome, OutcomeStatus, STOPPED_MESSAGE, TRUNCATED_WRAPPER_CHARS, ToolOutcome, cap_result};
pub use owner::{MAX_SLOT_CHARS, MAX_TAB_ID_CHARS, Owner, OwnerError};
pub use provider::{
    BAD_ORIGIN_MESSAGE, CANCELLED_MESSAGE, CANNOT_RECORD_MESSAGE, CancelDecision, DELIVERED_MESSAGE, EXPIRED_MESSAGE,
    ExecuteDecision, INTERRUPTED_MESSAGE, OTHER_PAGE_MESSAGE, ProviderJournal, RESEND_UNPROVEN_MESSAGE, StatusAnswer,
};
pub use store::{JournalStore, MemoryStore, StoreError};
pub use warning::JournalWarning;
