//! The tab probe (docs/once-only.md §5): how a starting page learns whether it is its tab's page in its frame slot
//! (a reload) or a copy of a live one (a duplicated tab), with a Web Lock and a probe on the BroadcastChannel
//! [`CHANNEL`]. Its two messages are read and written in [`message`]; the claim itself is [`TabClaim`], a sans-IO
//! state machine whose decisions are [`claim_step`](crate::journal::claim_step)'s.
//!
//! The driver does only the browser's part: the lock requests, the channel, the timer, and the HMAC-SHA-256 values
//! keyed with the tab id (the lock's name, this page's expected proof, the proofs it gives), which it hands in as
//! text; the tab id itself never reaches the claim.
//!
//! ```
//! use interpane_policy::tab_probe::{ClaimEffect, ClaimInput, ClaimOutcome, ProbeMessage, TabClaim};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let lock = "webmcp:00112233445566778899aabbccddeeff";
//! let nonce = "0123456789abcdef0123456789abcdef";
//! let mut claim = TabClaim::new(lock, nonce, "5a1d")?;
//!
//! // The lock is held: the page probes, starts the timer and waits for the lock.
//! claim.handle(ClaimInput::LockHeld);
//! let probe = ProbeMessage::decode(&format!(r#"{{"probe":"{lock}","nonce":"{nonce}"}}"#))?;
//! assert_eq!(claim.poll_effect(), Some(ClaimEffect::Post(probe.encode())));
//! assert!(matches!(claim.poll_effect(), Some(ClaimEffect::StartTimer { ms: 3000 })));
//! assert_eq!(claim.poll_effect(), Some(ClaimEffect::WaitForLock));
//!
//! // The holder proves itself: this page is a copy.
//! claim.handle(ClaimInput::Message(format!(r#"{{"alive":"{lock}","nonce":"{nonce}","proof":"5a1d"}}"#)));
//! assert_eq!(claim.outcome(), Some(ClaimOutcome::Duplicate));
//! assert!(std::iter::from_fn(|| claim.poll_effect()).any(|e| e == ClaimEffect::Settled(ClaimOutcome::Duplicate)));
//! # Ok(())
//! # }
//! ```

mod claim;
pub mod message;
#[cfg(test)]
mod tests;

pub use claim::{CLAIM_TIMEOUT_MS, ClaimEffect, ClaimInput, ClaimOutcome, TabClaim, TabClaimError};
pub use message::{Nonce, ProbeMessage, ProbeMessageError};

/// The probe's BroadcastChannel. It keeps the name it had before the project was renamed (interpane, 0.1.0), as do
/// the `webmcp:` storage keys and lock names: a page still on an earlier version and a duplicate of it on this one
/// must find each other's tab claim, or both could resume the same call.
pub const CHANNEL: &str = "webmcp-bridge";
