//! The flood guards, step by step with explicit clock values.

// On wasm32 the `test` alias below hides these functions from clippy's test detection, so allow there what
// tests may do anyway (clippy.toml allows it in tests): a failed unwrap is a failed test.
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::guard::{OriginRateLimiter, RateDecision, RefusalKind, WarningDecision, WarningGate};
use interpane_policy::{ErrorCategory, Limits};

const A: &str = "https://a.example";
const B: &str = "https://b.example";
const C: &str = "https://c.example";

fn limit(retry_in_ms: u64) -> RateDecision {
    RateDecision::Limit { retry_in_ms }
}

const ALLOW: RateDecision = RateDecision::Allow;

#[test]
fn the_rate_limiter_allows_a_burst_then_refills_over_time() {
    let mut limiter = OriginRateLimiter::new(4, 8);
    // (origin, now, expected)
    let steps = [
        (A, 1_000, ALLOW),
        (A, 1_000, ALLOW),
        (A, 1_000, ALLOW),
        (A, 1_000, ALLOW),
        (A, 1_000, limit(250)),
        (A, 1_100, limit(150)),
        (B, 1_100, ALLOW),
        (A, 1_250, ALLOW),
        (A, 1_250, limit(250)),
        (A, 900, limit(250)),
        (A, 2_250, ALLOW),
        (A, 2_250, ALLOW),
        (A, 2_250, ALLOW),
        (A, 2_250, ALLOW),
        (A, 2_250, limit(250)),
        (A, 100_000, ALLOW),
    ];
    for (i, (origin, now, want)) in steps.into_iter().enumerate() {
        assert_eq!(limiter.check(origin, now), want, "step {i}: {origin} at {now}");
    }
}

#[test]
fn the_rate_limiter_is_bounded_and_a_rate_of_zero_allows_nothing() {
    let mut limiter = OriginRateLimiter::new(1, 2);
    assert_eq!(limiter.check(A, 0), ALLOW);
    assert_eq!(limiter.check(A, 0), limit(1000));
    assert_eq!(limiter.check(B, 0), ALLOW);
    assert_eq!(limiter.check(C, 0), ALLOW);
    assert_eq!(limiter.tracked_origins(), 2);
    // A was the least recently used: forgotten, it starts with a full bucket.
    assert_eq!(limiter.check(A, 0), ALLOW);
    assert_eq!(limiter.tracked_origins(), 2);

    let mut closed = OriginRateLimiter::new(0, 2);
    assert_eq!(closed.check(A, 0), limit(u64::MAX));
    let mut untracked = OriginRateLimiter::new(5, 0);
    assert_eq!(untracked.check(A, 0), limit(u64::MAX));
}

#[test]
fn a_flood_from_many_origins_stays_bounded() {
    let limits = Limits::default();
    let mut limiter = OriginRateLimiter::for_get_tools(&limits);
    let mut allowed = 0;
    for i in 0..10_000u64 {
        let origin = format!("https://{i}.evil.example");
        if limiter.check(&origin, i / 10) == ALLOW {
            allowed += 1;
        }
        if limiter.check("https://evil.example", i / 10) == ALLOW {
            allowed += 1;
        }
    }
    assert_eq!(limiter.tracked_origins(), limits.max_tracked_origins);
    // Each fresh origin gets its first request; the one flooding origin gets 20 a second for one second.
    assert_eq!(allowed, 10_000 + 20 + 19);
}

#[test]
fn a_warning_prints_first_then_once_a_minute_with_the_count() {
    let mut gate: WarningGate = WarningGate::new(&Limits::default());
    let too_many = RefusalKind::TooManyCalls;
    let malformed = RefusalKind::from(ErrorCategory::Malformed);
    let print = |suppressed| WarningDecision::Print { suppressed };
    let quiet = WarningDecision::Suppress;
    let steps = [
        (too_many, A, 5_000, print(0)),
        (too_many, A, 5_001, quiet),
        (too_many, A, 30_000, quiet),
        (malformed, A, 30_000, print(0)),
        (too_many, B, 30_000, print(0)),
        (too_many, A, 64_999, quiet),
        (too_many, A, 65_000, print(3)),
        (too_many, A, 1_000, quiet),
        (too_many, A, 125_000, print(1)),
        (too_many, A, 185_000, print(0)),
        (malformed, A, 185_000, print(0)),
    ];
    for (i, (kind, origin, now, want)) in steps.into_iter().enumerate() {
        assert_eq!(gate.check(kind, origin, now), want, "step {i}: {kind:?} from {origin} at {now}");
    }
}

#[test]
fn the_warning_gate_is_bounded() {
    let mut gate = WarningGate::with_interval(2, 1_000);
    assert_eq!(gate.check(1u8, A, 0), WarningDecision::Print { suppressed: 0 });
    assert_eq!(gate.check(1u8, B, 0), WarningDecision::Print { suppressed: 0 });
    assert_eq!(gate.check(1u8, A, 1), WarningDecision::Suppress);
    assert_eq!(gate.check(1u8, C, 2), WarningDecision::Print { suppressed: 0 });
    assert_eq!(gate.tracked_origins(), 2);
    // B was forgotten: its next refusal prints again.
    assert_eq!(gate.check(1u8, B, 3), WarningDecision::Print { suppressed: 0 });

    let mut kinds = WarningGate::with_interval(1, 1_000);
    for kind in 0..=WarningGate::<u32>::MAX_KINDS as u32 {
        assert_eq!(kinds.check(kind, A, u64::from(kind)), WarningDecision::Print { suppressed: 0 });
    }
    // Kind 0 was printed longest ago and was forgotten; the most recent kinds are remembered.
    assert_eq!(kinds.check(0, A, 100), WarningDecision::Print { suppressed: 0 });
    assert_eq!(kinds.check(WarningGate::<u32>::MAX_KINDS as u32, A, 100), WarningDecision::Suppress);

    let mut silent = WarningGate::with_interval(0, 1_000);
    assert_eq!(silent.check(RefusalKind::OpaqueOrigin, A, 0), WarningDecision::Suppress);
}

#[test]
fn ten_thousand_refusals_print_one_warning() {
    let mut gate: WarningGate = WarningGate::new(&Limits::default());
    let printed = (0..10_000u64)
        .filter(|i| gate.check(RefusalKind::GetToolsRateLimited, A, i / 10) != WarningDecision::Suppress)
        .count();
    assert_eq!(printed, 1);
    assert_eq!(gate.check(RefusalKind::GetToolsRateLimited, A, 60_000), WarningDecision::Print { suppressed: 9_999 });
}
