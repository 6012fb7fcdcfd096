//! Calling other windows' tools: starting (or joining, or replaying) a call through the consumer journal, sending
//! it, accepting its answer only from the window that runs it, and settling it once.

use crate::call_args::accept_call_args;
use crate::calls_channel::{ObservedCall, ObservedStatus};
use crate::envelope::JsonText;
use crate::envelope::{CallState, CallStatusResponse, ExecuteRequest as WireExecute, ExecuteResponse, Message};
use crate::guard::RefusalKind;
use crate::ids::{RequestId, ToolName};
use crate::journal::{
    CallOutcome, ExecuteRequest, Followup, NewCall, ProviderStatus, ProviderWindow, Settled, Start, StatusDecision,
    ToolOutcome,
};
use crate::origin::{TupleOrigin, WindowOrigin};
use crate::outcome::{ErrorKind, ToolError};
use crate::session::ids::{Locator, PeerId, WaiterId};
use crate::session::io::{CallRefusal, CallRequest, CallTarget, Effect, Finished};
use crate::session::journals::Deferred;
use crate::session::peers::{Sender, Via};
use crate::session::timers::{LIVENESS_MS, Timer};
use crate::session::{PendingCall, Session};

/// A call of the page whose arguments passed the rules ([`Session::execute`]).
#[derive(Debug)]
pub(crate) struct PageCall {
    pub waiter: WaiterId,
    pub peer: PeerId,
    pub tool: ToolName,
    pub args: JsonText,
    pub call_id: Option<String>,
    pub timeout_ms: Option<u32>,
    /// Stopped while it waited for the journals: it is recorded (its `callId` replays the stop) and stopped before
    /// its request is posted, so that no provider ever hears of it (docs/once-only.md §4).
    pub stopped: bool,
}

impl Session {
    /// A call the page made: its tool object must name a tool, and its arguments are held to the rules and the
    /// page's limits (refused at once otherwise); then it starts when the journals are open.
    pub(crate) fn execute(&mut self, request: CallRequest) {
        let CallRequest { waiter, target, tool, args, call_id, timeout_ms } = request;
        let accepted = timeout_ms
            .map_or(Ok(()), |ms| crate::limits::time_limit_ms(f64::from(ms)).map(drop))
            .map_err(CallRefusal::from)
            .and_then(|()| self.call_peer(target, &tool))
            .and_then(|peer| Ok((peer, accept_call_args(args.as_deref().unwrap_or("{}"), &self.config.limits)?)));
        match accepted {
            Ok((peer, args)) => {
                let call = PageCall { waiter, peer, tool, args, call_id, timeout_ms, stopped: false };
                self.when_journals_open(Deferred::Execute(call));
            }
            Err(error) => self.effects.push_back(Effect::RefuseCall { waiter, error }),
        }
    }

    /// The peer whose tool a call's tool object names.
    fn call_peer(&self, target: CallTarget, tool: &ToolName) -> Result<PeerId, CallRefusal> {
        match target {
            CallTarget::Listed(peer) => Ok(peer),
            CallTarget::Copy { origin, own_window } => {
                let own = own_window && origin == self.config.own_origin;
                if own && self.catalog.get(tool.as_str()).is_some() {
                    Ok(PeerId::SELF)
                } else if own {
                    Err(CallRefusal::NoSuchTool { tool: tool.to_string() })
                } else {
                    Err(CallRefusal::NotListed { tool: tool.to_string(), origin: origin.serialization().to_owned() })
                }
            }
        }
    }

    /// Starts (or joins, or replays) a call for the page.
    pub(crate) fn start_call(&mut self, call: PageCall) {
        let PageCall { waiter, peer, tool, args, call_id, timeout_ms, stopped } = call;
        let Some(target) = self.peers.get(peer).filter(|p| !p.gone) else {
            let error = ToolError::new(ErrorKind::Interrupted, "the tool's window went away: list the tools again");
            return self.effects.push_back(Effect::Settle { waiter, outcome: CallOutcome::Failed(error) });
        };
        let origin = target.origin.serialization().to_owned();
        let provider = ProviderWindow::new(origin, target.locator.to_string(), target.bridge);
        let wire_id = match self.ids.request_id("c_") {
            Ok(wire_id) => wire_id,
            Err(error) => {
                // No call without an unguessable id: one of zeros or of the clock answers to another page's guess.
                let error = ToolError::new(ErrorKind::Refused, format!("the call was not made: {error}"));
                return self.effects.push_back(Effect::Settle { waiter, outcome: CallOutcome::Failed(error) });
            }
        };
        let call = NewCall { call_id, wire_id: wire_id.clone(), tool, provider, args };
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let start = journals.consumer.start(call, now);
        self.schedule_journal_flush();
        match start {
            Err(error) => {
                let error = ToolError::new(ErrorKind::Refused, error.to_string());
                self.effects.push_back(Effect::Settle { waiter, outcome: CallOutcome::Failed(error) });
            }
            Ok(Start::Replay { outcome, .. }) => self.effects.push_back(Effect::Settle { waiter, outcome }),
            Ok(Start::Join { wire_id }) => {
                self.outgoing.calls.get_or_insert_with(wire_id.clone(), || PendingCall {
                    peer,
                    since: now,
                    waiters: Vec::new(),
                });
                self.wait_for(&wire_id, waiter, timeout_ms);
                if stopped {
                    self.stop_waiter(waiter);
                }
            }
            Ok(Start::New) => {
                self.outgoing.calls.insert(wire_id.clone(), PendingCall { peer, since: now, waiters: Vec::new() });
                self.wait_for(&wire_id, waiter, timeout_ms);
                if stopped {
                    // Recorded, not sent: the stop settles it with nothing to tell the provider.
                    return self.stop_waiter(waiter);
                }
                let Some(journals) = self.journals.as_ref() else { return };
                let Some(entry) = journals.consumer.get(&wire_id) else { return };
                let Some(args) = entry.args().cloned() else { return };
                let request = ExecuteRequest {
                    wire_id: wire_id.clone(),
                    tool: entry.tool().clone(),
                    provider: entry.provider().clone(),
                    args,
                    resend: false,
                };
                self.announce_running(&wire_id);
                if self.peers.get(peer).is_some_and(|p| p.native) {
                    self.call_native(peer, request);
                } else {
                    self.send_execute(peer, request);
                }
            }
        }
    }

    /// Posts a call's request. A first send is recorded as sent before it leaves (written at once when the
    /// provider is a plain peer, which cannot tell a repeat from a new call); a re-send after "unknown" is marked
    /// so that the provider runs it only if it can still prove it never received the call.
    pub(crate) fn send_execute(&mut self, peer: PeerId, request: ExecuteRequest) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if !request.resend {
            if !journals.consumer.mark_sent(&request.wire_id, now) {
                return;
            }
            if !request.provider.bridge {
                self.flush_journals();
            }
        }
        let resend = request.resend;
        let message = Message::ExecuteRequest(WireExecute {
            request_id: request.wire_id,
            name: request.tool,
            args: request.args,
            resend,
        });
        if resend {
            // The provider said, by window, that it never received the call: the way the request took (a private
            // port whose other end may be gone) did not carry it, so the re-send goes the way the answer came.
            self.send_by_window(peer, &message);
        } else if peer == PeerId::SELF {
            // The page's own call is delivered at the end of the task and starts then, stopped or not (§4).
            self.send(peer, &message);
        } else {
            self.hold_request(message);
        }
    }

    /// Starts a call on native's path: recorded as sent first (native ignores `callId` and cannot say whether a
    /// call ran, so the journal treats it as a plain peer's), then handed to the driver.
    fn call_native(&mut self, peer: PeerId, request: ExecuteRequest) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if !journals.consumer.mark_sent(&request.wire_id, now) {
            return;
        }
        self.flush_journals();
        let ExecuteRequest { wire_id, tool, args, .. } = request;
        self.effects.push_back(Effect::CallNative { peer, wire_id, tool, args });
    }

    /// A call on native's path ended. An end for a call that settled meanwhile (stopped, its frame reloaded) is
    /// dropped: native's promise settles on its own time.
    pub(crate) fn native_settled(&mut self, wire_id: &RequestId, result: Result<crate::JsonText, ToolError>) {
        let outcome = match result {
            Ok(result) => ToolOutcome::Completed { result },
            Err(error) => ToolOutcome::Failed(error),
        };
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.on_response(wire_id, outcome, now) {
            self.settle(settled);
        }
    }

    /// `waiter` waits for call `wire_id`: its time limit, the frame its provider is in, and the liveness check.
    fn wait_for(&mut self, wire_id: &RequestId, waiter: WaiterId, timeout_ms: Option<u32>) {
        let Some(call) = self.outgoing.calls.get_mut(wire_id) else { return };
        call.waiters.push(waiter);
        let peer = call.peer;
        self.outgoing.waiting_on.insert(waiter, wire_id.clone());
        if let Some(ms) = timeout_ms {
            self.timers.set(Timer::CallTimeout(wire_id.clone()), self.now + u64::from(ms));
        }
        if peer != PeerId::SELF
            && let Some(window) = self.peers.get(peer).map(|p| p.window)
        {
            self.effects.push_back(Effect::WatchFrame(window));
        }
        self.timers.set_once(Timer::Liveness, self.now + LIVENESS_MS);
    }

    /// The caller behind `waiter` gave up: its call is recorded as stopped first, then the provider is told.
    pub(crate) fn stop_waiter(&mut self, waiter: WaiterId) {
        let Some(wire_id) = self.outgoing.waiting_on.get(&waiter).cloned() else {
            return self.stop_when_started(waiter);
        };
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.stop(&wire_id, now) {
            self.flush_journals();
            self.settle(settled);
        }
    }

    /// A call of `waiter` that still waits for the journals is marked to stop as soon as it starts.
    fn stop_when_started(&mut self, waiter: WaiterId) {
        for work in &mut self.deferred {
            if let Deferred::Execute(call) = work
                && call.waiter == waiter
            {
                call.stopped = true;
            }
        }
    }

    /// Nobody will read what `waiter` is settled with: it leaves its call, which stops when no waiter is left.
    pub(crate) fn abandon_waiter(&mut self, waiter: WaiterId) {
        let Some(wire_id) = self.outgoing.waiting_on.remove(&waiter) else {
            return self.stop_when_started(waiter);
        };
        let Some(call) = self.outgoing.calls.get_mut(&wire_id) else { return };
        call.waiters.retain(|w| *w != waiter);
        if !call.waiters.is_empty() {
            return;
        }
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.stop(&wire_id, now) {
            self.flush_journals();
            self.settle(settled);
        }
    }

    pub(crate) fn time_out(&mut self, wire_id: &RequestId) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.timed_out(wire_id, now) {
            self.settle(settled);
        }
    }

    /// The provider of call `wire_id` went away: the call is interrupted (or did not run, if never sent).
    pub(crate) fn provider_gone(&mut self, wire_id: &RequestId) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.peer_gone(wire_id, now) {
            self.settle(settled);
        }
    }

    /// Whether a message from `from` may speak for call `wire_id`: the origin of the call's provider, and the same
    /// window (the one the call went to, or, for a call this page resumed after a reload, the window at the
    /// provider's locator).
    pub(crate) fn sent_by_provider_of(&self, from: &Sender, wire_id: &RequestId) -> bool {
        let Some(entry) = self.journals.as_ref().and_then(|j| j.consumer.get(wire_id)) else { return false };
        // The journal keeps the provider's origin as its serialization (text in storage).
        if entry.provider().origin != from.origin.serialization() {
            return false;
        }
        if let Some(call) = self.outgoing.calls.get(wire_id) {
            return call.peer == from.peer;
        }
        let expected = Locator::parse(&entry.provider().locator);
        if from.via == Via::Loopback || from.peer == PeerId::SELF {
            return expected == Locator::SelfPage;
        }
        expected.is_known() && self.peers.get(from.peer).is_some_and(|p| p.locator == expected)
    }

    /// `WEBMCP_EXECUTE_TOOL_RESPONSE`: from the provider of the call only.
    pub(crate) fn on_execute_response(&mut self, from: &Sender, response: ExecuteResponse) {
        let wire_id = response.request_id.clone();
        if !self.sent_by_provider_of(from, &wire_id) {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a call result nobody waits for");
        }
        self.stop_asking(&wire_id);
        let outcome = match response.outcome {
            Ok(result) => ToolOutcome::Completed { result },
            Err(error) => ToolOutcome::Failed(error),
        };
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        match journals.consumer.on_response(&wire_id, outcome, now) {
            Some(settled) => self.settle(settled),
            None => self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a second result for a settled call"),
        }
    }

    /// `WEBMCP_CALL_STATUS_RESPONSE`: from the provider of the call only.
    pub(crate) fn on_status_response(&mut self, from: &Sender, status: CallStatusResponse) {
        let CallStatusResponse { request_id, state, durable } = status;
        if !self.sent_by_provider_of(from, &request_id) {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a call status nobody asked for");
        }
        self.stop_asking(&request_id);
        let status = match state {
            CallState::Running => ProviderStatus::Running,
            CallState::Unknown => ProviderStatus::Unknown { durable },
        };
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        match journals.consumer.on_status(&request_id, status, now) {
            StatusDecision::Wait | StatusDecision::Ignored => {}
            StatusDecision::Resend(request) => self.send_execute(from.peer, request),
            StatusDecision::Settled(settled) => self.settle(settled),
        }
    }

    /// Announces this page's call `wire_id` as running to the other pages of the origin, when one listens.
    pub(crate) fn announce_running(&mut self, wire_id: &RequestId) {
        self.announce(|journals| {
            let entry = journals.consumer.get(wire_id)?;
            Some(ObservedCall {
                tab_label: journals.label.clone(),
                call_id: entry.call_id().to_owned(),
                name: entry.tool().to_string(),
                origin: entry.provider().origin.clone(),
                status: ObservedStatus::Running,
                duration_ms: None,
            })
        });
    }

    /// A call settled: its waiters learn the outcome, the page gets a `toolresult` event, the other pages of the
    /// origin an announcement, the provider an acknowledgement (or a cancel).
    pub(crate) fn settle(&mut self, settled: Settled) {
        let Settled { call_id, wire_id, tool, provider, outcome, duration_ms, recovered, followup } = settled;
        self.stop_asking(&wire_id);
        self.timers.clear(&Timer::CallTimeout(wire_id.clone()));
        let pending = self.outgoing.calls.remove(&wire_id);
        let peer = pending.as_ref().map(|p| p.peer).or_else(|| self.peer_at(&provider));
        for waiter in pending.map(|p| p.waiters).unwrap_or_default() {
            self.outgoing.waiting_on.remove(&waiter);
            self.effects.push_back(Effect::Settle { waiter, outcome: outcome.clone() });
        }
        self.announce(|journals| {
            Some(ObservedCall {
                tab_label: journals.label.clone(),
                call_id: call_id.clone(),
                name: tool.to_string(),
                origin: provider.origin.clone(),
                status: ObservedStatus::Settled(outcome.status()),
                duration_ms: Some(duration_ms),
            })
        });
        let origin = WindowOrigin::from_browser(&provider.origin);
        self.effects.push_back(Effect::ToolResult(Finished {
            call_id,
            name: tool.to_string(),
            origin,
            outcome,
            duration_ms,
            recovered,
        }));
        let native = peer.and_then(|p| self.peers.get(p)).is_some_and(|p| p.native);
        if native {
            // However it ended here (stopped, timed out, its window gone), native's call stops too; for a call that
            // native itself ended, the driver has nothing left to abort.
            self.effects.push_back(Effect::AbortNative(wire_id.clone()));
        } else if let Some(peer) = peer
            // A call that ends in the task that made it (stopped): its request never leaves, nor does anything else.
            && !self.request_held(&wire_id)
        {
            match followup {
                Followup::Ack => self.acknowledge(peer, [wire_id.clone()]),
                Followup::Cancel => self.send(peer, &Message::CancelTool { request_id: wire_id.clone() }),
                Followup::Nothing => {}
            }
        }
        if followup == Followup::Ack
            && let Some(journals) = self.journals.as_mut()
        {
            journals.consumer.mark_acked(std::slice::from_ref(&wire_id));
        }
        self.schedule_journal_flush();
    }

    /// The live peer of a journal entry's provider window, found by its locator among the windows this page
    /// knows, if it can be found.
    pub(crate) fn peer_at(&mut self, provider: &ProviderWindow) -> Option<PeerId> {
        let locator = Locator::parse(&provider.locator);
        if locator == Locator::SelfPage {
            return Some(PeerId::SELF);
        }
        if !locator.is_known() {
            return None;
        }
        let window = self.windows.iter().find(|(_, facts)| facts.locator == locator).map(|(w, _)| *w)?;
        let origin = TupleOrigin::from_browser(&provider.origin)?;
        let id = self.peers.upsert(window, &origin, &locator);
        if let Some(peer) = self.peers.get_mut(id) {
            peer.bridge |= provider.bridge;
        }
        Some(id)
    }
}
