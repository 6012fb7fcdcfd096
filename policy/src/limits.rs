//! The defensive limits every message and every peer is held to.
//!
//! All of them are public fields with a default, so a page changes one with struct update syntax:
//!
//! ```
//! use interpane_policy::Limits;
//!
//! let limits = Limits { max_depth: 32, max_result_chars: 100_000, ..Limits::default() };
//! assert_eq!(limits.max_message_bytes, 1024 * 1024);
//! ```
//!
//! None is unbounded by default. A limit set to `0` refuses everything it bounds.

use crate::outcome::MAX_ERROR_MESSAGE_CHARS;

/// Limits on message size and shape, and on how much one origin may ask for.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The largest message, in bytes of JSON text (1 MiB).
    pub max_message_bytes: usize,
    /// The deepest nesting of arrays and objects in a message, the envelope itself counting as 1 (64).
    pub max_depth: usize,
    /// The most tools one `WEBMCP_GET_TOOLS_RESPONSE` may list (512).
    pub max_tools_per_response: usize,
    /// The longest tool description, in characters (4096).
    pub max_description_chars: usize,
    /// The longest error message, in characters; longer ones are cut, never refused (1000, as in
    /// [`crate::outcome::MAX_ERROR_MESSAGE_CHARS`], which is also the most any error keeps).
    pub max_error_message_chars: usize,
    /// The longest result, in characters of JSON text; a longer one travels as a truncated preview (30,000).
    pub max_result_chars: usize,
    /// The most calls one caller origin may have running at once; more get a "too many calls" error (64).
    pub max_calls_in_flight_per_origin: usize,
    /// How many `WEBMCP_GET_TOOLS_REQUEST` one origin may send per second, and in one burst (20).
    pub max_get_tools_per_origin_per_second: u32,
    /// The most request ids one `WEBMCP_CALL_ACK` may carry (512).
    pub max_ack_ids: usize,
    /// The most origins the flood guards remember at once; the least recently seen is forgotten first (256).
    pub max_tracked_origins: usize,
    /// The most messages one port batch may carry (4096).
    pub max_batch_len: usize,
    /// The largest port batch, in bytes of JSON text (16 MiB); each message in it is still held to
    /// [`Limits::max_message_bytes`].
    pub max_batch_bytes: usize,
}

impl Limits {
    /// The defaults, as a constant.
    pub const DEFAULT: Self = Self {
        max_message_bytes: 1024 * 1024,
        max_depth: 64,
        max_tools_per_response: 512,
        max_description_chars: 4096,
        max_error_message_chars: MAX_ERROR_MESSAGE_CHARS,
        max_result_chars: 30_000,
        max_calls_in_flight_per_origin: 64,
        max_get_tools_per_origin_per_second: 20,
        max_ack_ids: 512,
        max_tracked_origins: 256,
        max_batch_len: 4096,
        max_batch_bytes: 16 * 1024 * 1024,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_protocol() {
        let limits = Limits::default();
        assert_eq!(limits.max_message_bytes, 1_048_576);
        assert_eq!(limits.max_depth, 64);
        assert_eq!(limits.max_tools_per_response, 512);
        assert_eq!(limits.max_description_chars, 4096);
        assert_eq!(limits.max_error_message_chars, 1000);
        assert_eq!(limits.max_result_chars, 30_000);
        assert_eq!(limits.max_calls_in_flight_per_origin, 64);
        assert_eq!(limits.max_get_tools_per_origin_per_second, 20);
        assert_eq!(limits.max_ack_ids, 512);
        assert_eq!(limits.max_tracked_origins, 256);
        assert_eq!(limits.max_batch_len, 4096);
    }
}

/// A time limit a caller gave (`timeoutMs` of `executeTool` and `getTools`, `timeout_ms` of the Rust API) that is not
/// a positive number of milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("timeoutMs must be a positive number of milliseconds")]
pub struct TimeLimitError;

/// The one rule for a caller's time limit, for every API: a finite number of milliseconds, at least 1 (a fraction
/// is dropped; beyond `u32::MAX`, about 49 days, it is `u32::MAX`).
///
/// ```
/// use interpane_policy::limits::{TimeLimitError, time_limit_ms};
///
/// assert_eq!(time_limit_ms(2500.7), Ok(2500));
/// assert_eq!(time_limit_ms(0.0), Err(TimeLimitError));
/// assert_eq!(time_limit_ms(f64::NAN), Err(TimeLimitError));
/// ```
pub fn time_limit_ms(ms: f64) -> Result<u32, TimeLimitError> {
    if ms.is_finite() && ms >= 1.0 { Ok(ms as u32) } else { Err(TimeLimitError) }
}
