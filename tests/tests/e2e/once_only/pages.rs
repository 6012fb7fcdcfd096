//! Driving the once-only pages (`/once/` on the shop and pay origins): opening them, switching between the
//! caller's and the provider's documents, reloading either one, calling, and holding the tool at a gate.
//!
//! The caller (shop) reports every outcome its application sees as a shop counter `obs.<callId>.<kind>.<status>`;
//! the provider's tool counts its runs as pay counters `charge.<callId>[.aborted|.abortedAtStart|.held|.returned]`.
//! expectations.rs compares them with exact expectations; journals.rs reads what the bridge stored.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{Ctx, E2eError, E2eResult, Session, check_eq};
use serde_json::{Value, json};

/// How often each scenario runs.
pub const REPETITIONS: usize = 20;

/// How long the server's counters may take to show what a page reported.
pub(super) const COUNTER_WAIT: Duration = Duration::from_secs(10);

/// How often counters and gates are polled (they live in this process: polling is cheap).
pub(super) const POLL: Duration = Duration::from_millis(5);

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
    /// Every counter the scenario expects at its end (see expectations.rs).
    pub(super) expected: BTreeMap<(Site, String), u64>,
    /// Where the session is, so that consecutive commands to one page skip switching frames.
    frame: Mutex<Frame>,
    /// When the scenario started.
    pub(super) started: Instant,
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

    /// Calls again with the same callId and arguments (`options` as the first call had them) and returns the
    /// outcome the promise gave (`completed`, or an error code).
    pub async fn retry(&self, call_id: &str, options: Value) -> E2eResult<String> {
        let retry = "return await window.__once.retry(args[0], args[1]);";
        let outcome = self.in_caller_async(retry, vec![json!(call_id), options]).await?;
        Ok(outcome.as_str().unwrap_or_default().to_owned())
    }

    /// A round trip from the caller to the provider (a tool listing) on the path calls take: whatever the
    /// provider posted before has reached the caller, and the caller has handled it, when this returns.
    pub async fn sync(&self) -> E2eResult<()> {
        let synced = self.in_caller_async("return await window.__once.sync();", vec![]).await?;
        check_eq(synced, json!(true), "a round trip from the caller to the provider")
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
