//! Exact expectations on what the server counted: the tool's runs on pay and the outcomes the caller's
//! application saw on the shop, per call and, when a scenario ends, over all the case's counters.

use std::collections::BTreeMap;
use std::time::Instant;

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{E2eError, E2eResult};

use super::pages::{COUNTER_WAIT, POLL, Pages, REPETITIONS};

impl Pages<'_> {
    /// Waits until the server shows exactly `observed` for `call_id` on the shop (the application's outcomes,
    /// `<kind>.<status>`, once each) and `runs` on pay (`""` for the run itself, or `aborted`, `abortedAtStart`,
    /// `returned`, with their counts). The expectation is kept for [`Pages::finish`].
    pub async fn expect(&mut self, call_id: &str, observed: &[&str], runs: &[(&str, u64)]) -> E2eResult<()> {
        let observed: BTreeMap<String, u64> =
            observed.iter().map(|kind_status| (format!("obs.{call_id}.{kind_status}"), 1)).collect();
        let runs: BTreeMap<String, u64> = runs
            .iter()
            .map(|(what, count)| {
                let name =
                    if what.is_empty() { format!("charge.{call_id}") } else { format!("charge.{call_id}.{what}") };
                (name, *count)
            })
            .collect();
        self.wait_counters(Site::Shop, &format!("obs.{call_id}."), &observed).await?;
        self.wait_counters(Site::Pay, &format!("charge.{call_id}"), &runs).await?;
        for (site, expected) in [(Site::Shop, observed), (Site::Pay, runs)] {
            self.expected.extend(expected.into_iter().map(|(name, count)| ((site, name), count)));
        }
        Ok(())
    }

    /// Every counter expected so far, to carry over to the pages of a new load ([`Pages::expect_all`]).
    pub fn expected(&self) -> Vec<((Site, String), u64)> {
        self.expected.iter().map(|(key, count)| (key.clone(), *count)).collect()
    }

    /// Carries over what earlier loads of the same case expected, and when the case started.
    pub fn continue_from(&mut self, expected: &[((Site, String), u64)], started: Instant) {
        self.expected.extend(expected.iter().cloned());
        self.started = started;
    }

    /// The case's counters of `site` whose name (without the case prefix) starts with `family`.
    pub(super) fn counters(&self, site: Site, family: &str) -> BTreeMap<String, u64> {
        let prefix = self.t.counter_prefix();
        self.t
            .demo()
            .counters_of(site)
            .into_iter()
            .filter_map(|(name, count)| name.strip_prefix(prefix).map(|name| (name.to_owned(), count)))
            .filter(|(name, _)| name.starts_with(family))
            .collect()
    }

    async fn wait_counters(&self, site: Site, family: &str, expected: &BTreeMap<String, u64>) -> E2eResult<()> {
        let started = Instant::now();
        loop {
            let actual = self.counters(site, family);
            if &actual == expected {
                return Ok(());
            }
            // A count above the expected one, or a name not expected, can only get worse: fail at once.
            let exceeded = actual.iter().any(|(name, count)| expected.get(name).is_none_or(|want| count > want));
            if exceeded || started.elapsed() > COUNTER_WAIT {
                let diagnostics = self.diagnostics().await;
                return Err(E2eError::Check(format!(
                    "{site} counters {family}*: expected {expected:?}, got {actual:?}\n{diagnostics}"
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until no call of the caller's page is pending: every promise of this page load settled, and its
    /// journal (sessionStorage, when the page has it) holds no call that is not settled.
    pub async fn expect_nothing_pending(&self) -> E2eResult<()> {
        self.enter_caller().await?;
        let condition = "(() => { const o = window.__once; if (!o || !o.unsettled) return null; \
            const left = { pending: o.pending(), unsettled: o.storage.usable ? o.unsettled() : [] }; \
            return left.pending.length === 0 && left.unsettled.length === 0 ? 'none' : null; })()";
        if self.session.wait_for(condition, DEFAULT_WAIT).await.is_err() {
            let diagnostics = self.diagnostics().await;
            return Err(E2eError::Check(format!("calls are left pending in the caller\n{diagnostics}")));
        }
        Ok(())
    }

    /// Every counter of the case on the shop and on pay is exactly what the scenario expected, no more: no late
    /// run, no second outcome, nothing reported for a call that should have stayed silent.
    pub async fn finish(self, scenario: &str) -> E2eResult<()> {
        self.expect_nothing_pending().await?;
        let took = self.started.elapsed();
        eprintln!("once::{scenario}: {REPETITIONS} repetitions in {:.1} s", took.as_secs_f64());
        let mut actual: BTreeMap<(Site, String), u64> = BTreeMap::new();
        for site in [Site::Shop, Site::Pay] {
            actual.extend(self.counters(site, "").into_iter().map(|(name, count)| ((site, name), count)));
        }
        if actual != self.expected {
            let unexpected: Vec<_> =
                actual.iter().filter(|(key, count)| self.expected.get(key) != Some(count)).collect();
            let missing: Vec<_> = self.expected.iter().filter(|(key, _)| !actual.contains_key(key)).collect();
            return Err(E2eError::Check(format!(
                "the case's counters differ from the expected ones at its end: unexpected or different {unexpected:?}, \
                 missing {missing:?}"
            )));
        }
        Ok(())
    }
}
