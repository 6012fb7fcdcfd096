//! What the pages' journals say (sessionStorage, as the bridge wrote it), for checks of the path a call took
//! and for failure reports.

use std::time::{Duration, Instant};

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{E2eError, E2eResult};
use serde_json::Value;

use super::pages::{COUNTER_WAIT, Pages};

impl Pages<'_> {
    /// Waits until the caller's journal in sessionStorage holds `call_id` in `state` (`recorded`, `sent`,
    /// `settled`): the journal reaches storage shortly after each change.
    pub async fn wait_caller_state(&self, call_id: &str, state: &str) -> E2eResult<()> {
        self.enter_caller().await?;
        let condition = format!(
            "(() => {{ for (const log of Object.values(window.__once.journal().logs)) for (const e of Object.values(log)) \
             if (e.k === {} && e.s === {}) return true; return null; }})()",
            Value::String(call_id.to_owned()),
            Value::String(state.to_owned())
        );
        self.session.wait_for(&condition, DEFAULT_WAIT).await.map(drop)
    }

    /// The state of `call_id` in the provider's journal in sessionStorage (`running`, `done`, `interrupted`,
    /// `cancelled`, `acked`, ...), or null when the provider has no record of it. The call is found by its id on
    /// the wire, read from the caller's journal.
    pub async fn provider_state(&self, call_id: &str) -> E2eResult<Value> {
        let wire = self.wire_id(call_id).await?;
        self.in_provider(
            "for (const log of Object.values(window.__provider.journal().logs)) for (const e of Object.values(log)) \
             if (e.w === arguments[0]) return e.s; return null;",
            vec![wire],
        )
        .await
    }

    /// The id on the wire of `call_id`, from the caller's journal in sessionStorage (waiting for the journal
    /// to reach storage).
    async fn wire_id(&self, call_id: &str) -> E2eResult<Value> {
        self.enter_caller().await?;
        let condition = format!(
            "(() => {{ for (const log of Object.values(window.__once.journal().logs)) for (const e of Object.values(log)) \
             if (e.k === {}) return e.w; return null; }})()",
            Value::String(call_id.to_owned())
        );
        self.session.wait_for(&condition, DEFAULT_WAIT).await
    }

    /// Waits until the provider's journal holds `call_id` in `state` (see [`Pages::provider_state`]).
    pub async fn wait_provider_state(&self, call_id: &str, state: &str) -> E2eResult<()> {
        let started = Instant::now();
        loop {
            let found = self.provider_state(call_id).await?;
            if found == state {
                return Ok(());
            }
            if started.elapsed() > COUNTER_WAIT {
                let diagnostics = self.diagnostics().await;
                return Err(E2eError::Check(format!(
                    "the provider's journal holds {call_id} as {found}, not {state}\n{diagnostics}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// What the pages know, for a failure report: each page's events, promises and journals (the entries under
    /// `webmcp:log:` in sessionStorage).
    pub async fn diagnostics(&self) -> String {
        let caller = self
            .in_caller(
                "const o = window.__once; return o ? JSON.stringify({ loadId: o.loadId, slot: o.slot, storage: o.storage, \
                 events: o.events, outcomes: o.outcomes, dropped: o.deafness.dropped, warnings: o.warnings, \
                 journal: o.journal() }) : 'no page';",
                vec![],
            )
            .await;
        let provider = self
            .in_provider(
                "const p = window.__provider; return p && p.journal ? JSON.stringify({ loadId: p.loadId, \
                 storage: p.storage, warnings: p.warnings, holds: Object.keys(p.holds), \
                 countErrors: p.countErrors, journal: p.journal() }) : 'no page';",
                vec![],
            )
            .await;
        let shop = self.counters(Site::Shop, "");
        let pay = self.counters(Site::Pay, "");
        format!(
            "caller: {}\nprovider: {}\nshop counters: {shop:?}\npay counters: {pay:?}",
            shown(caller),
            shown(provider)
        )
    }
}

fn shown(value: E2eResult<Value>) -> String {
    match value {
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("unreadable ({error})"),
    }
}
