//! The journals' limits (docs/once-only.md §8). Every one is bounded; all can be changed.

/// One minute in milliseconds.
const MINUTE_MS: u64 = 60_000;

/// The limits of both journals. [`JournalConfig::default`] gives the documented defaults.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalConfig {
    /// Settled consumer entries kept (for `callId` replay and unsent acknowledgements); the oldest go first.
    pub settled_calls_kept: usize,
    /// A settled consumer entry older than this (since it settled) is dropped, in milliseconds: 24 hours by default,
    /// as long as a provider remembers the ids that ran (`ran_id_max_age_ms`), so that a `callId` retried within a
    /// day never runs twice (within `settled_calls_kept`).
    pub settled_call_max_age_ms: u64,
    /// Bytes of outcomes (result texts and error messages, counted as the journal stores them: JSON text, escaped,
    /// in UTF-8 bytes) that the settled consumer entries keep together; beyond it the oldest outcomes are replaced
    /// by a short error saying so, and their entries stay (within [`JournalConfig::settled_calls_kept`] and
    /// [`JournalConfig::settled_call_max_age_ms`]), so that a `callId` still never runs twice. The newest outcome
    /// stays whatever its size. Without it, 256 outcomes of the default result cap would need more than the
    /// origin's sessionStorage quota, and the journal would then give up the storage (docs/once-only.md §7).
    pub settled_outcome_bytes_max: usize,
    /// Unsettled consumer entries allowed; a new call beyond this is refused.
    pub unsettled_calls_max: usize,
    /// A consumer call unsettled for longer than this (since it was recorded) settles as interrupted and is
    /// never sent again, in milliseconds. Keep it at most [`JournalConfig::ran_id_max_age_ms`] of the provider.
    pub unsettled_call_max_age_ms: u64,
    /// How long a provider keeps a result that the consumer has not acknowledged, in milliseconds; later the id is
    /// remembered as expired.
    pub result_kept_ms: u64,
    /// Bytes of results that a provider holds for one caller origin until they are acknowledged (counted as the
    /// journal stores them: JSON text, escaped, in UTF-8 bytes). A result that would exceed it drops that origin's
    /// oldest held results first, which read as expired from then on, so that one origin that never acknowledges
    /// cannot fill the storage that every caller's records share. A result larger than this alone is sent, and
    /// not held.
    pub held_result_bytes_per_origin_max: usize,
    /// Provider records of ids that ran (results and tombstones) kept, newest first.
    pub ran_ids_kept: usize,
    /// A provider record older than this (since its last change) is dropped, in milliseconds.
    pub ran_id_max_age_ms: u64,
    /// The longest result text kept or sent, in characters; a longer one becomes
    /// `{"truncated":true,"preview":"…"}`. At least 31 characters are always used (the size of that wrapper).
    pub result_cap_chars: usize,
    /// Calls of one caller origin that a provider runs at once; more are refused with `too_many_calls`.
    pub running_per_origin_max: usize,
    /// Cancels of calls it never received that a provider keeps per caller origin (so that such a call never
    /// starts if its request arrives after all). A cancel that overtakes its request is rare; an origin that sends
    /// more is filling the journal, and only its own later requests could be affected.
    pub early_cancels_per_origin_max: usize,
}

impl Default for JournalConfig {
    fn default() -> Self {
        Self {
            settled_calls_kept: 256,
            settled_call_max_age_ms: 24 * 60 * MINUTE_MS,
            // Two held budgets' worth: with a snapshot and its segments, the log may store an entry twice.
            settled_outcome_bytes_max: 512 * 1024,
            unsettled_calls_max: 4096,
            unsettled_call_max_age_ms: 24 * 60 * MINUTE_MS,
            result_kept_ms: 10 * MINUTE_MS,
            // sessionStorage holds about 5 MiB per origin, shared by both journals of every frame of the tab and by
            // the page; a batched log may hold a record twice between snapshots. 256 KiB is 8 results of 30,000
            // ASCII characters, and keeps one origin's results below a tenth of the quota even when stored twice.
            held_result_bytes_per_origin_max: 256 * 1024,
            ran_ids_kept: 2000,
            ran_id_max_age_ms: 24 * 60 * MINUTE_MS,
            result_cap_chars: 30_000,
            running_per_origin_max: 64,
            early_cancels_per_origin_max: 256,
        }
    }
}
