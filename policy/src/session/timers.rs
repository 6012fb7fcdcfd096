//! The session's deadlines. The driver keeps one browser timer for the earliest ([`Session::poll_timeout`]) and
//! calls [`Session::handle_timeout`] when it fires.
//!
//! [`Session::poll_timeout`]: crate::session::Session::poll_timeout
//! [`Session::handle_timeout`]: crate::session::Session::handle_timeout

use crate::ids::RequestId;
use crate::session::ids::PeerId;

/// How long acknowledgements may wait for other messages to the same peer (ms).
pub const ACK_DELAY_MS: u64 = 250;
/// Acknowledgements that are sent at once, without waiting for company.
pub const ACK_BATCH: usize = 64;
/// The waits between the questions "how does this call stand?" to a provider that does not answer (ms); after
/// the last, the provider counts as gone.
pub const STATUS_RETRY_MS: [u64; 6] = [250, 500, 1000, 2000, 4000, 8000];
/// How long a bridge provider may say nothing while a call waits on it before it is asked how the call stands.
pub const SILENT_PROVIDER_MS: u64 = 3000;
/// How often calls that wait are checked for a provider window that closed or fell silent (ms).
pub const LIVENESS_MS: u64 = 500;

/// How long an error that a tool threw while the page seemed to be leaving is held before it is sent anyway (ms):
/// a navigation that the page announced and that has not unloaded it by then may never do so (a download, a
/// response without content, a `beforeunload` prompt the user refused).
pub const HELD_ERROR_MS: u64 = 2000;

/// How long this page's `WEBMCP_CONNECT` may wait for its `WEBMCP_CONNECTED` before the next listing of the peer
/// gives it up and starts another (ms).
pub const HANDSHAKE_WAIT_MS: u64 = 2000;

/// What a deadline is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Timer {
    /// A tool listing's wait for windows that have not answered.
    Listing(u32),
    /// Acknowledgements that waited for company long enough.
    Acks,
    /// Batched journal changes are due in storage.
    JournalFlush,
    /// A peer said its tools changed; list them again (debounced).
    Relist(PeerId),
    /// Ask again how a call stands.
    StatusRetry(RequestId),
    /// A call's own time limit.
    CallTimeout(RequestId),
    /// Check the windows that calls wait on.
    Liveness,
    /// Send the errors held while the page seemed to be leaving.
    HeldErrors,
}

/// Deadlines in ms since the epoch; at most one per [`Timer`].
#[derive(Default)]
pub(crate) struct Timers {
    entries: Vec<(u64, Timer)>,
}

impl Timers {
    /// Sets `timer` to fire at `at`, replacing its earlier deadline.
    pub fn set(&mut self, timer: Timer, at: u64) {
        self.clear(&timer);
        self.entries.push((at, timer));
    }

    /// Sets `timer` unless it is already set.
    pub fn set_once(&mut self, timer: Timer, at: u64) {
        if !self.is_set(&timer) {
            self.entries.push((at, timer));
        }
    }

    pub fn clear(&mut self, timer: &Timer) {
        self.entries.retain(|(_, t)| t != timer);
    }

    pub fn is_set(&self, timer: &Timer) -> bool {
        self.entries.iter().any(|(_, t)| t == timer)
    }

    /// The earliest deadline.
    pub fn next(&self) -> Option<u64> {
        self.entries.iter().map(|(at, _)| *at).min()
    }

    /// Removes and returns the timers due at `now`, earliest first.
    pub fn take_due(&mut self, now: u64) -> Vec<Timer> {
        let mut due: Vec<(u64, Timer)> = Vec::new();
        self.entries.retain(|(at, timer)| {
            if *at <= now {
                // Earliest first, and in the order they were set among equal times: an ordered insert (a few
                // timers are due at once), not a sort, whose code would be one more copy per element type.
                let position = due.partition_point(|(earlier, _)| earlier <= at);
                due.insert(position, (*at, timer.clone()));
                false
            } else {
                true
            }
        });
        due.into_iter().map(|(_, timer)| timer).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Timer, Timers};

    #[test]
    fn a_timer_set_again_keeps_only_its_latest_deadline() {
        let mut timers = Timers::default();
        timers.set(Timer::Acks, 100);
        timers.set(Timer::JournalFlush, 50);
        timers.set(Timer::Acks, 200);
        assert_eq!(timers.next(), Some(50));
        assert_eq!(timers.take_due(150), vec![Timer::JournalFlush]);
        assert_eq!(timers.take_due(250), vec![Timer::Acks]);
        assert_eq!(timers.next(), None);
    }

    #[test]
    fn set_once_keeps_the_first_deadline() {
        let mut timers = Timers::default();
        timers.set_once(Timer::JournalFlush, 50);
        timers.set_once(Timer::JournalFlush, 10);
        assert_eq!(timers.next(), Some(50));
    }
}
