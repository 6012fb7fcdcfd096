//! A small deterministic generator (xorshift) for the crate's randomized unit tests: a failure replays, and the
//! tests need no dependency.

/// The next value of the sequence that `state` (not zero) is at.
pub(crate) fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
