//! Test gates: a page's request waits at a named gate until the test opens it.
//!
//! An end-to-end test that must act while a tool is running (reload a page, stop the call) holds the tool open
//! with a gate instead of a sleep: the tool's page asks `GET /__gate/<name>/wait` on its own origin, which answers
//! only once the test opens the gate (or after a timeout). The test sees the request waiting
//! ([`Gates::waiting`]), does what it has to, and opens the gate ([`Gates::open`], or `POST /__gate/<name>/open`
//! without an `Origin` header). Gates are kept per site, like the counters, so a page of one origin never waits at
//! another origin's gate, and the server listens on loopback addresses only.
//!
//! An open gate stays open: a later wait returns at once. [`Gates::reset_prefix`] forgets a test's gates.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

use crate::site::Site;

/// Most distinct gates kept at once (over all sites); a defensive bound.
pub const MAX_GATES: usize = 1024;

/// Longest gate name, the same bound as a counter name.
pub const MAX_GATE_NAME_LEN: usize = 128;

/// How long a wait lasts when the request names no timeout.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(20);

/// The longest wait a request may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// Why a gate could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// The name is not 1 to 128 characters of `[A-Za-z0-9_.-]`.
    #[error("gate name {name:?} is invalid: use 1 to 128 characters of A-Z, a-z, 0-9, '_', '.', '-'")]
    InvalidName {
        /// The name as given (cut to 200 characters).
        name: String,
    },
    /// The bound on distinct gates was reached.
    #[error("too many gates ({MAX_GATES}): reset the gates of finished tests before making new ones")]
    TooMany,
}

/// How a wait at a gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The gate is open.
    Opened,
    /// The timeout passed first.
    TimedOut,
    /// The gate was forgotten (reset) while the request waited.
    Reset,
}

/// What a test can see of one gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GateState {
    /// Whether the gate is open.
    pub open: bool,
    /// How many requests are waiting at it now.
    pub waiting: usize,
}

/// The gates of all sites of one running demo.
#[derive(Debug, Default)]
pub struct Gates {
    gates: Mutex<BTreeMap<(Site, String), watch::Sender<bool>>>,
}

impl Gates {
    /// Waits until `site`'s gate `name` is open, for at most `timeout`. The gate is made (closed) if it is new.
    pub async fn wait(&self, site: Site, name: &str, timeout: Duration) -> Result<WaitOutcome, GateError> {
        let mut receiver = self.sender(site, name)?.subscribe();
        match tokio::time::timeout(timeout, receiver.wait_for(|open| *open)).await {
            Ok(Ok(_)) => Ok(WaitOutcome::Opened),
            Ok(Err(_closed)) => Ok(WaitOutcome::Reset),
            Err(_elapsed) => Ok(WaitOutcome::TimedOut),
        }
    }

    /// Opens `site`'s gate `name` (made open if it is new): every request waiting at it is answered.
    pub fn open(&self, site: Site, name: &str) -> Result<(), GateError> {
        self.sender(site, name)?.send_replace(true);
        Ok(())
    }

    /// Whether `site`'s gate `name` is open and how many requests wait at it (a gate never used: closed, none).
    pub fn state(&self, site: Site, name: &str) -> GateState {
        self.lock()
            .get(&(site, name.to_owned()))
            .map(|sender| GateState { open: *sender.borrow(), waiting: sender.receiver_count() })
            .unwrap_or_default()
    }

    /// How many requests wait at `site`'s gate `name` now.
    pub fn waiting(&self, site: Site, name: &str) -> usize {
        self.state(site, name).waiting
    }

    /// Forgets the gates of `site`; requests waiting at them end with [`WaitOutcome::Reset`].
    pub fn reset_site(&self, site: Site) {
        self.lock().retain(|(owner, _), _| *owner != site);
    }

    /// Forgets, on every site, the gates whose name starts with `prefix` (one test's gates).
    pub fn reset_prefix(&self, prefix: &str) {
        self.lock().retain(|(_, name), _| !name.starts_with(prefix));
    }

    /// The sender of a gate, made closed when it is new.
    fn sender(&self, site: Site, name: &str) -> Result<watch::Sender<bool>, GateError> {
        check_name(name)?;
        let mut gates = self.lock();
        let key = (site, name.to_owned());
        if let Some(sender) = gates.get(&key) {
            return Ok(sender.clone());
        }
        if gates.len() >= MAX_GATES {
            return Err(GateError::TooMany);
        }
        let sender = watch::Sender::new(false);
        gates.insert(key, sender.clone());
        Ok(sender)
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<(Site, String), watch::Sender<bool>>> {
        // Every update is one insert, remove or send: a panic elsewhere cannot leave the map half-changed.
        self.gates.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn check_name(name: &str) -> Result<(), GateError> {
    let valid_chars = name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if name.is_empty() || name.len() > MAX_GATE_NAME_LEN || !valid_chars {
        return Err(GateError::InvalidName { name: name.chars().take(200).collect() });
    }
    Ok(())
}

/// The timeout a wait request asked for (`timeoutMs`), within [`MAX_WAIT`]; [`DEFAULT_WAIT`] when absent.
pub fn wait_timeout(timeout_ms: Option<u64>) -> Duration {
    timeout_ms.map_or(DEFAULT_WAIT, Duration::from_millis).min(MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(30);

    #[test]
    fn names_are_checked() {
        let long = "g".repeat(MAX_GATE_NAME_LEN);
        let too_long = "g".repeat(MAX_GATE_NAME_LEN + 1);
        let cases: [(&str, bool); 7] = [
            ("t3.r7-run", true),
            (&long, true),
            ("", false),
            (&too_long, false),
            ("a/b", false),
            ("a b", false),
            ("é", false),
        ];
        for (name, ok) in cases {
            assert_eq!(check_name(name).is_ok(), ok, "name {name:?}");
        }
        let gates = Gates::default();
        assert_eq!(gates.open(Site::Pay, "a b"), Err(GateError::InvalidName { name: "a b".into() }));
    }

    #[test]
    fn wait_timeouts_are_capped() {
        assert_eq!(wait_timeout(None), DEFAULT_WAIT);
        assert_eq!(wait_timeout(Some(250)), Duration::from_millis(250));
        assert_eq!(wait_timeout(Some(u64::MAX)), MAX_WAIT);
    }

    #[tokio::test]
    async fn a_closed_gate_holds_its_waiters_until_it_opens() {
        let gates = std::sync::Arc::new(Gates::default());
        let waiter = {
            let gates = gates.clone();
            tokio::spawn(async move { gates.wait(Site::Pay, "g1", DEFAULT_WAIT).await })
        };
        while gates.waiting(Site::Pay, "g1") == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(gates.state(Site::Pay, "g1"), GateState { open: false, waiting: 1 });
        assert_eq!(gates.wait(Site::Pay, "g1", SHORT).await, Ok(WaitOutcome::TimedOut), "still closed");
        assert!(!waiter.is_finished(), "the first waiter still waits");
        gates.open(Site::Pay, "g1").ok();
        assert_eq!(waiter.await.ok(), Some(Ok(WaitOutcome::Opened)));
        assert_eq!(gates.state(Site::Pay, "g1"), GateState { open: true, waiting: 0 });
        assert_eq!(gates.wait(Site::Pay, "g1", SHORT).await, Ok(WaitOutcome::Opened), "an open gate stays open");
    }

    #[tokio::test]
    async fn gates_are_kept_per_site_and_reset_by_prefix() {
        let gates = Gates::default();
        gates.open(Site::Shop, "t1.g").ok();
        assert_eq!(gates.wait(Site::Pay, "t1.g", SHORT).await, Ok(WaitOutcome::TimedOut), "pay's gate is another");
        assert_eq!(gates.wait(Site::Shop, "t1.g", SHORT).await, Ok(WaitOutcome::Opened));
        gates.open(Site::Shop, "t2.g").ok();
        gates.reset_prefix("t1.");
        assert_eq!(gates.state(Site::Shop, "t1.g"), GateState::default(), "forgotten");
        assert!(gates.state(Site::Shop, "t2.g").open, "another test's gate stays");
        gates.reset_site(Site::Shop);
        assert_eq!(gates.state(Site::Shop, "t2.g"), GateState::default());
    }

    #[tokio::test]
    async fn a_reset_ends_the_waits() {
        let gates = std::sync::Arc::new(Gates::default());
        let waiter = {
            let gates = gates.clone();
            tokio::spawn(async move { gates.wait(Site::Shop, "g", DEFAULT_WAIT).await })
        };
        while gates.waiting(Site::Shop, "g") == 0 {
            tokio::task::yield_now().await;
        }
        gates.reset_prefix("");
        assert_eq!(waiter.await.ok(), Some(Ok(WaitOutcome::Reset)));
    }

    #[test]
    fn distinct_gates_are_bounded() {
        let gates = Gates::default();
        for index in 0..MAX_GATES {
            assert_eq!(gates.open(Site::Evil, &format!("g{index}")), Ok(()));
        }
        assert_eq!(gates.open(Site::Evil, "one_more"), Err(GateError::TooMany));
        assert_eq!(gates.open(Site::Evil, "g0"), Ok(()), "existing gates still work");
    }
}
