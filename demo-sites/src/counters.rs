//! Per-tool execution counters: the truth the end-to-end suite reads.
//!
//! Every tool of the demo pages counts its real executions by posting to its own origin's
//! `/__counter/<name>` before doing anything else. Counters are kept per site, and a site's counters can be
//! changed only by requests from that site's own pages (checked with the `Origin` header, which a page
//! cannot forge), so the attacker's pages cannot make the shop's counters lie. Tests read them from Rust.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::site::Site;

/// Most distinct counters kept at once (over all sites); a defensive bound, never reached by the demo.
pub const MAX_COUNTERS: usize = 1024;

/// Longest counter name, the same bound as a tool name on the wire.
pub const MAX_NAME_LEN: usize = 128;

/// Counter values of one site, by name.
pub type SiteCounters = BTreeMap<String, u64>;

/// Why a counter could not be changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CounterError {
    /// The name is not 1 to 128 characters of `[A-Za-z0-9_.-]`.
    #[error("counter name {name:?} is invalid: use 1 to 128 characters of A-Z, a-z, 0-9, '_', '.', '-'")]
    InvalidName {
        /// The name as given (cut to 200 characters).
        name: String,
    },
    /// The bound on distinct counters was reached.
    #[error("too many counters ({MAX_COUNTERS}): reset the counters before counting new names")]
    TooMany,
}

/// Execution counters of all sites, shared by all origins of one running demo.
#[derive(Debug, Default)]
pub struct Counters {
    values: Mutex<BTreeMap<(Site, String), u64>>,
}

impl Counters {
    /// Adds one to `site`'s counter `name` and returns the new value.
    pub fn increment(&self, site: Site, name: &str) -> Result<u64, CounterError> {
        check_name(name)?;
        let mut values = self.lock();
        let key = (site, name.to_owned());
        if !values.contains_key(&key) && values.len() >= MAX_COUNTERS {
            return Err(CounterError::TooMany);
        }
        let value = values.entry(key).or_insert(0);
        *value = value.saturating_add(1);
        Ok(*value)
    }

    /// The value of `site`'s counter `name` (0 when it never counted).
    pub fn get(&self, site: Site, name: &str) -> u64 {
        self.lock().get(&(site, name.to_owned())).copied().unwrap_or(0)
    }

    /// All counters of `site`.
    pub fn of_site(&self, site: Site) -> SiteCounters {
        self.lock()
            .iter()
            .filter(|((owner, _), _)| *owner == site)
            .map(|((_, name), value)| (name.clone(), *value))
            .collect()
    }

    /// All counters, by site name then counter name; every site is present, possibly empty.
    pub fn snapshot(&self) -> BTreeMap<&'static str, SiteCounters> {
        Site::ALL.into_iter().map(|site| (site.name(), self.of_site(site))).collect()
    }

    /// Forgets the counters of `site`.
    pub fn reset_site(&self, site: Site) {
        self.lock().retain(|(owner, _), _| *owner != site);
    }

    /// Forgets, on every site, the counters whose name starts with `prefix` (one test's counters).
    pub fn reset_prefix(&self, prefix: &str) {
        self.lock().retain(|(_, name), _| !name.starts_with(prefix));
    }

    /// Forgets every counter.
    pub fn reset_all(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<(Site, String), u64>> {
        // A panic while holding the lock cannot leave the map half-updated: every update is one insert.
        self.values.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn check_name(name: &str) -> Result<(), CounterError> {
    let valid_chars = name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if name.is_empty() || name.len() > MAX_NAME_LEN || !valid_chars {
        return Err(CounterError::InvalidName { name: name.chars().take(200).collect() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        let long = "a".repeat(MAX_NAME_LEN);
        let too_long = "a".repeat(MAX_NAME_LEN + 1);
        let cases: [(&str, bool); 8] = [
            ("add_to_cart", true),
            ("pay.invoice-2", true),
            (&long, true),
            ("", false),
            (&too_long, false),
            ("a b", false),
            ("../etc", false),
            ("é", false),
        ];
        for (name, ok) in cases {
            assert_eq!(check_name(name).is_ok(), ok, "name {name:?}");
        }
    }

    #[test]
    fn counters_are_kept_per_site() {
        let counters = Counters::default();
        assert_eq!(counters.increment(Site::Shop, "add_to_cart"), Ok(1));
        assert_eq!(counters.increment(Site::Shop, "add_to_cart"), Ok(2));
        assert_eq!(counters.increment(Site::Evil, "add_to_cart"), Ok(1));
        assert_eq!(counters.get(Site::Shop, "add_to_cart"), 2);
        assert_eq!(counters.get(Site::Pay, "add_to_cart"), 0);
        counters.reset_site(Site::Evil);
        assert_eq!(counters.get(Site::Evil, "add_to_cart"), 0);
        assert_eq!(counters.get(Site::Shop, "add_to_cart"), 2);
        let snapshot = counters.snapshot();
        assert_eq!(snapshot.len(), 4);
        assert_eq!(snapshot["shop"].get("add_to_cart"), Some(&2));
        assert_eq!(counters.increment(Site::Pay, "t1.pay_invoice"), Ok(1));
        assert_eq!(counters.increment(Site::Pay, "t2.pay_invoice"), Ok(1));
        counters.reset_prefix("t1.");
        assert_eq!(counters.get(Site::Pay, "t1.pay_invoice"), 0);
        assert_eq!(counters.get(Site::Pay, "t2.pay_invoice"), 1);
        counters.reset_all();
        assert_eq!(counters.get(Site::Shop, "add_to_cart"), 0);
        assert_eq!(counters.get(Site::Pay, "t2.pay_invoice"), 0);
    }

    #[test]
    fn distinct_counters_are_bounded() {
        let counters = Counters::default();
        for index in 0..MAX_COUNTERS {
            assert_eq!(counters.increment(Site::Evil, &format!("c{index}")), Ok(1));
        }
        assert_eq!(counters.increment(Site::Evil, "one_more"), Err(CounterError::TooMany));
        assert_eq!(counters.increment(Site::Evil, "c0"), Ok(2), "existing counters still count");
    }
}
