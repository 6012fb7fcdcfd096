//! Driving the once-only pages (`/once/` on the shop and pay origins) and reading what the server counted.
//!
//! The caller (shop) reports every outcome its application sees as a shop counter `obs.<callId>.<kind>.<status>`;
//! the provider's tool counts its runs as pay counters `charge.<callId>[.aborted|.abortedAtStart|.returned]`.
//! Both are read here from the server, where no page can fake them, and compared with exact expectations; every
//! expectation is also kept for a final sweep over all the case's counters when the scenario ends.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webmcp_demo_sites::Site;
use webmcp_e2e::session::DEFAULT_WAIT;
use webmcp_e2e::{Ctx, E2eError, E2eResult, Session, check_eq};

/// How often each scenario runs.
pub const REPETITIONS: usize = 20;

/// How long the server's counters may take to show what a page reported.
const COUNTER_WAIT: Duration = Duration::from_secs(10);

/// How often counters and gates are polled (they live in this process: polling is cheap).
const POLL: Duration = Duration::from_millis(5);

/// Where the caller and the provider sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `pay/once/host.html`: the caller (`#caller`, shop) and the provider (`#provider`, pay) are sibling
    /// frames, so either one reloads alone.
    Siblings,
    /// `shop/once/caller.html?embed=1` at the top, with the provider in its `#provider` frame.
    CallerOnTop,
}

/// The document the session's commands go to, as far as [`Pages`] knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Unknown,
    Caller,
    Provider,
}

/// One scenario's pages in one browser session, and every counter it expects.
pub struct Pages<'a> {
    pub t: &'a Ctx,
    pub session: &'a Session,
    layout: Layout,
    expected: BTreeMap<(Site, String), u64>,
    /// Where the session is, so that consecutive commands to one page skip switching frames.
    frame: Mutex<Frame>,
    started: Instant,
}

impl<'a> Pages<'a> {
    /// Opens the layout with `query` (e.g. `twice=1`; the case's counter prefix is added) and waits until the
    /// caller has found the provider's tool.
    pub async fn open(t: &'a Ctx, session: &'a Session, layout: Layout, query: &str) -> E2eResult<Pages<'a>> {
        let (site, path) = match layout {
            Layout::Siblings => (Site::Pay, format!("/once/host.html?{query}")),
            Layout::CallerOnTop => (Site::Shop, format!("/once/caller.html?embed=1&{query}")),
        };
        session.open(&t.url(site, &path)).await?;
        // The host adds the caller's frame once the provider is ready; it is ready itself after that.
        check_eq(session.wait_page_settled().await?, "ready".to_owned(), "the top page's state")?;
        let pages = Pages {
            t,
            session,
            layout,
            expected: BTreeMap::new(),
            frame: Mutex::new(Frame::Unknown),
            started: Instant::now(),
        };
        pages.wait_provider_ready(None).await?;
        pages.wait_caller_ready(None).await?;
        Ok(pages)
    }

    /// Switches to the caller's document (a frame keeps the session's focus when its page reloads).
    pub async fn enter_caller(&self) -> E2eResult<()> {
        if self.frame() == Frame::Caller {
            return Ok(());
        }
        self.set_frame(Frame::Unknown);
        self.session.to_top().await?;
        if self.layout == Layout::Siblings {
            self.session.enter_frame_of("#caller", self.t.origin(Site::Shop)).await?;
        }
        self.set_frame(Frame::Caller);
        Ok(())
    }

    /// Switches to the provider's document.
    pub async fn enter_provider(&self) -> E2eResult<()> {
        if self.frame() == Frame::Provider {
            return Ok(());
        }
        self.set_frame(Frame::Unknown);
        self.session.to_top().await?;
        self.session.enter_frame_of("#provider", self.t.origin(Site::Pay)).await?;
        self.set_frame(Frame::Provider);
        Ok(())
    }

    fn frame(&self) -> Frame {
        *self.frame.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set_frame(&self, frame: Frame) {
        *self.frame.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = frame;
    }

    /// Forgets which document the session is in (after switching windows).
    pub fn lost_focus(&self) {
        self.set_frame(Frame::Unknown);
    }

    /// Runs `script` (a function body) in the caller.
    pub async fn in_caller(&self, script: &str, args: Vec<Value>) -> E2eResult<Value> {
        self.enter_caller().await?;
        self.session.execute(script, args).await
    }

    /// Runs `body` (an async function body) in the caller and waits for its promise.
    pub async fn in_caller_async(&self, body: &str, args: Vec<Value>) -> E2eResult<Value> {
        self.enter_caller().await?;
        self.session.execute_async(body, args).await
    }

    /// Runs `script` (a function body) in the provider.
    pub async fn in_provider(&self, script: &str, args: Vec<Value>) -> E2eResult<Value> {
        self.enter_provider().await?;
        self.session.execute(script, args).await
    }

    /// Waits until the caller's page (a new one when `previous` names the load before) has found the tool;
    /// returns its load id.
    pub async fn wait_caller_ready(&self, previous: Option<&str>) -> E2eResult<String> {
        self.enter_caller().await?;
        let condition = ready_condition("__once", previous);
        self.settled_load(&condition, "the caller").await
    }

    /// Waits until the provider's page (a new one when `previous` names the load before) is ready.
    pub async fn wait_provider_ready(&self, previous: Option<&str>) -> E2eResult<String> {
        self.enter_provider().await?;
        let condition = ready_condition("__provider", previous);
        self.settled_load(&condition, "the provider").await
    }

    async fn settled_load(&self, condition: &str, who: &str) -> E2eResult<String> {
        let state = self.session.wait_for(condition, DEFAULT_WAIT).await?;
        match (&state["loadId"], &state["error"]) {
            (Value::String(load), _) => Ok(load.clone()),
            (_, error) => Err(E2eError::Check(format!("{who} failed to load: {error}"))),
        }
    }

    /// Reloads the caller's page and waits until the new one is ready (its recovery has run by then).
    pub async fn reload_caller(&self) -> E2eResult<()> {
        let old =
            self.in_caller("setTimeout(() => location.reload(), 0); return window.__once.loadId;", vec![]).await?;
        self.wait_caller_ready(old.as_str()).await.map(drop)
    }

    /// Reloads the provider's page and waits until the new one is ready (its journal has been opened by then).
    pub async fn reload_provider(&self) -> E2eResult<()> {
        let old = self
            .in_provider("setTimeout(() => location.reload(), 0); return window.__provider.loadId;", vec![])
            .await?;
        self.wait_provider_ready(old.as_str()).await.map(drop)
    }

    /// Starts a call of `charge` in the caller (`options` as `__once.call` takes them).
    pub async fn call(&self, call_id: &str, options: Value) -> E2eResult<()> {
        let started = self
            .in_caller("return window.__once.call(arguments[0], arguments[1]);", vec![json!(call_id), options])
            .await?;
        check_eq(started, json!(true), &format!("call {call_id} started"))
    }

    /// Calls again with the same callId and returns the outcome the promise gave (`completed`, or an error code).
    pub async fn retry(&self, call_id: &str) -> E2eResult<String> {
        let outcome = self.in_caller_async("return await window.__once.retry(args[0]);", vec![json!(call_id)]).await?;
        Ok(outcome.as_str().unwrap_or_default().to_owned())
    }

    /// A round trip from the caller to the provider (a tool listing) on the path calls take: whatever the
    /// provider posted before has reached the caller, and the caller has handled it, when this returns.
    pub async fn sync(&self) -> E2eResult<()> {
        let synced = self.in_caller_async("return await window.__once.sync();", vec![]).await?;
        check_eq(synced, json!(true), "a round trip from the caller to the provider")
    }

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

    /// The server-side name of the gate `gate` of this case.
    fn gate_name(&self, gate: &str) -> String {
        format!("{}{gate}", self.t.counter_prefix())
    }

    /// Waits until a run of the tool waits at `gate` (it has counted its run and not returned).
    pub async fn wait_at_gate(&self, gate: &str) -> E2eResult<()> {
        let name = self.gate_name(gate);
        let started = Instant::now();
        while self.t.demo().gates().waiting(Site::Pay, &name) == 0 {
            if started.elapsed() > COUNTER_WAIT {
                let diagnostics = self.diagnostics().await;
                return Err(E2eError::Check(format!("no run of the tool reached the gate {gate}\n{diagnostics}")));
            }
            tokio::time::sleep(POLL).await;
        }
        Ok(())
    }

    /// Waits until a run of the tool holds in the provider's page (`hold: true`): it has counted its run and
    /// waits for `__provider.release`, with no request in flight.
    pub async fn wait_held(&self, call_id: &str) -> E2eResult<()> {
        let name = format!("{}charge.{call_id}.held", self.t.counter_prefix());
        let started = Instant::now();
        while self.t.demo().counter(Site::Pay, &name) == 0 {
            if started.elapsed() > COUNTER_WAIT {
                let diagnostics = self.diagnostics().await;
                return Err(E2eError::Check(format!("no run of {call_id} held in the provider\n{diagnostics}")));
            }
            tokio::time::sleep(POLL).await;
        }
        Ok(())
    }

    /// Opens `gate`: the run waiting at it goes on.
    pub fn open_gate(&self, gate: &str) -> E2eResult<()> {
        self.t.demo().gates().open(Site::Pay, &self.gate_name(gate)).map_err(|error| E2eError::Check(error.to_string()))
    }

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
    fn counters(&self, site: Site, family: &str) -> BTreeMap<String, u64> {
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

    /// What the pages know, for a failure report: each page's events, promises and journals (the entries under
    /// `webmcp:log:` in sessionStorage).
    pub async fn diagnostics(&self) -> String {
        let caller = self
            .in_caller(
                "const o = window.__once; return o ? JSON.stringify({ loadId: o.loadId, slot: o.slot, storage: o.storage, \
                 events: o.events, outcomes: o.outcomes, dropped: o.deafness.dropped, journal: o.journal() }) : 'no page';",
                vec![],
            )
            .await;
        let provider = self
            .in_provider(
                "const p = window.__provider; return p && p.journal ? JSON.stringify({ loadId: p.loadId, \
                 storage: p.storage, journal: p.journal() }) : 'no page';",
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

/// A condition that is `{ loadId }` once the page's state is `ready` (and its load differs from `previous`),
/// `{ error }` when it failed.
fn ready_condition(global: &str, previous: Option<&str>) -> String {
    let previous = Value::String(previous.unwrap_or_default().to_owned());
    format!(
        "(() => {{ const d = window.__demo, p = window.{global}; if (!d || !p) return null; \
         if (d.state === 'error' || d.state === 'no-bridge') return {{ error: d.error ?? d.state }}; \
         return d.state === 'ready' && p.loadId !== {previous} ? {{ loadId: p.loadId }} : null; }})()"
    )
}

fn shown(value: E2eResult<Value>) -> String {
    match value {
        Ok(Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("unreadable ({error})"),
    }
}
