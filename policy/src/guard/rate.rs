//! A token bucket per origin, for requests that are cheap to send and costly to answer (`GET_TOOLS`).

use super::origins::OriginTable;
use crate::limits::Limits;

/// Whether a request may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    /// Within the rate: answer it.
    Allow,
    /// Over the rate: drop it.
    Limit {
        /// How long until the origin may send one more (`u64::MAX` when the rate is 0: never).
        retry_in_ms: u64,
    },
}

/// One origin's bucket, in thousandths of a request so that refills are exact integers.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    milli: u64,
    at: u64,
}

/// Allows each origin `per_second` requests per second, in bursts of at most `per_second`.
///
/// Pure: the time comes in as `now` (milliseconds, any origin of time; a clock that goes back refills nothing).
/// Bounded: at most `max_tracked_origins` buckets; a forgotten origin starts again with a full bucket.
///
/// ```
/// use interpane_policy::guard::{OriginRateLimiter, RateDecision};
/// use interpane_policy::Limits;
///
/// let limits = Limits { max_get_tools_per_origin_per_second: 2, ..Limits::default() };
/// let mut limiter = OriginRateLimiter::for_get_tools(&limits);
/// let peer = "https://shop.example";
/// assert_eq!(limiter.check(peer, 1_000), RateDecision::Allow);
/// assert_eq!(limiter.check(peer, 1_000), RateDecision::Allow);
/// assert_eq!(limiter.check(peer, 1_000), RateDecision::Limit { retry_in_ms: 500 });
/// assert_eq!(limiter.check(peer, 1_500), RateDecision::Allow);
/// ```
#[derive(Debug, Clone)]
pub struct OriginRateLimiter {
    per_second: u32,
    buckets: OriginTable<Bucket>,
}

impl OriginRateLimiter {
    /// `per_second` requests per second and origin, for at most `max_origins` origins at once.
    pub fn new(per_second: u32, max_origins: usize) -> Self {
        Self { per_second, buckets: OriginTable::new(max_origins) }
    }

    /// The limiter for `WEBMCP_GET_TOOLS_REQUEST`: `Limits::max_get_tools_per_origin_per_second`, tracking
    /// `Limits::max_tracked_origins`.
    pub fn for_get_tools(limits: &Limits) -> Self {
        Self::new(limits.max_get_tools_per_origin_per_second, limits.max_tracked_origins)
    }

    /// Takes one request from `origin`'s bucket at time `now`. Allocates only for an origin not tracked yet.
    pub fn check(&mut self, origin: &str, now: u64) -> RateDecision {
        const NEVER: RateDecision = RateDecision::Limit { retry_in_ms: u64::MAX };
        let rate = u64::from(self.per_second);
        if rate == 0 {
            return NEVER;
        }
        let full = rate * 1000;
        let Some(bucket) = self.buckets.entry(origin, || Bucket { milli: full, at: now }) else {
            return NEVER;
        };
        let elapsed = now.saturating_sub(bucket.at);
        bucket.milli = bucket.milli.saturating_add(elapsed.saturating_mul(rate)).min(full);
        bucket.at = bucket.at.max(now);
        if bucket.milli >= 1000 {
            bucket.milli -= 1000;
            RateDecision::Allow
        } else {
            RateDecision::Limit { retry_in_ms: (1000 - bucket.milli).div_ceil(rate) }
        }
    }

    /// How many origins have a bucket.
    pub fn tracked_origins(&self) -> usize {
        self.buckets.len()
    }
}
