//! Flood guards: pure, bounded state that decides how much one origin may ask for, and how often its refusals
//! reach the console.
//!
//! Every guard takes the time as a `now: u64` in milliseconds and keeps at most `Limits::max_tracked_origins`
//! origins, forgetting the least recently seen first. Looking up an origin already tracked allocates nothing.
//!
//! ```
//! use interpane_policy::guard::{OriginRateLimiter, RateDecision, RefusalKind, WarningDecision, WarningGate};
//! use interpane_policy::Limits;
//!
//! let limits = Limits::default();
//! let mut get_tools = OriginRateLimiter::for_get_tools(&limits);
//! let mut warnings: WarningGate = WarningGate::new(&limits);
//! let flooder = "https://evil.example";
//! let mut printed = 0;
//! for i in 0..10_000u64 {
//!     let now = i / 10; // 10,000 requests in one second
//!     if let RateDecision::Limit { .. } = get_tools.check(flooder, now) {
//!         if let WarningDecision::Print { .. } = warnings.check(RefusalKind::GetToolsRateLimited, flooder, now) {
//!             printed += 1;
//!         }
//!     }
//! }
//! assert_eq!(printed, 1);
//! assert_eq!(get_tools.check("https://shop.example", 999), RateDecision::Allow);
//! ```

mod origins;
mod rate;
mod warnings;

pub use rate::{OriginRateLimiter, RateDecision};
pub use warnings::{RefusalKind, WarningDecision, WarningGate};
