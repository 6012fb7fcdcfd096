//! Calling other windows: finding their tools, calling them once, and learning how every call ended, even after
//! this page reloads.

use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::{JsCast, JsValue};
use webmcp_policy::envelope::{
    CallState, CallStatusResponse, ExecuteRequest as WireExecute, ExecuteResponse, GetToolsResponse,
};
use webmcp_policy::guard::RefusalKind;
use webmcp_policy::journal::{
    CallOutcome, ExecuteRequest, Followup, NewCall, ProviderStatus, ProviderWindow, Recovery, Settled, Start,
    StatusDecision,
};
use webmcp_policy::{ErrorKind, JsonText, Message, OriginList, RequestId, ToolError, ToolName};

use crate::convert::response_to_outcome;
use crate::core::{From, State, Via, with_core};
use crate::oneshot;
use crate::peers::{PeerId, PortLink, PortSide, SELF_PEER, UNKNOWN_LOCATOR, locate};
use crate::user::{Outcome, UserCall};
use crate::{CallOptions, ObservedCall, ObservedStatus, js, random};

/// Someone waiting for a call's outcome: a JavaScript promise or a Rust future.
pub(crate) enum Waiter {
    Js { resolve: js_sys::Function, reject: js_sys::Function, signal: Option<web_sys::AbortSignal> },
    Rust(oneshot::Sender<Outcome>),
}

/// A call of this page that someone waits for.
pub(crate) struct PendingCall {
    pub peer: PeerId,
    /// When the call was sent, or its provider last said it is running (ms since the epoch).
    pub since: u64,
    pub waiters: Vec<Waiter>,
    pub guards: Vec<EventListener>,
    pub timeout: Option<Timeout>,
}

/// Someone waiting for a tool list.
pub(crate) enum ListWaiter {
    Js(js_sys::Function),
    Rust(oneshot::Sender<Vec<crate::RemoteTool>>),
    /// A re-list after a provider's `WEBMCP_TOOLS_CHANGED`: fire `toolchange` when done.
    Relist,
}

/// A `getTools` in progress.
pub(crate) struct Discovery {
    /// The windows asked, with their locators.
    pub targets: Vec<(JsValue, String)>,
    pub answered: Vec<bool>,
    /// Which origins' tools are returned besides the page's own.
    pub from_origins: OriginList,
    pub waiters: Vec<ListWaiter>,
    /// Finishes the discovery when the windows that did not answer have had their time.
    pub _timeout: Timeout,
}

/// What the consumer needs to know to call a tool.
#[derive(Clone)]
pub(crate) struct CallTarget {
    pub peer: PeerId,
    pub tool: ToolName,
}

const STATUS_RETRY_MS: [u32; 6] = [250, 500, 1000, 2000, 4000, 8000];

/// How long a bridge provider may say nothing while a call waits on it before it is asked how the call stands.
const SILENT_PROVIDER_MS: u64 = 3000;

impl State {
    // ---------------------------------------------------------------- listing

    /// Asks the windows around this page (and `extra` windows) for their tools.
    pub(crate) fn discover(
        &mut self,
        from_origins: OriginList,
        extra: Vec<JsValue>,
        timeout_ms: u32,
        waiter: ListWaiter,
    ) {
        for pattern in &from_origins {
            let origin = pattern.as_str().to_owned();
            if !self.interest.contains(&origin) {
                self.interest.push(origin);
            }
        }
        let mut targets: Vec<(JsValue, String)> = js::candidate_windows()
            .iter()
            .map(|c| {
                let window = js_sys::Reflect::get(&c, &JsValue::from_str("window")).unwrap_or(JsValue::NULL);
                let locator = js_sys::Reflect::get(&c, &JsValue::from_str("locator"))
                    .ok()
                    .and_then(|l| l.as_string())
                    .unwrap_or_default();
                (window, locator)
            })
            .collect();
        for window in extra {
            if js::is_window(&window) && !targets.iter().any(|(w, _)| js_sys::Object::is(w, &window)) {
                targets.push((window, UNKNOWN_LOCATOR.to_owned()));
            }
        }
        self.ask_for_tools(targets, from_origins, timeout_ms, waiter);
    }

    fn ask_for_tools(
        &mut self,
        targets: Vec<(JsValue, String)>,
        from_origins: OriginList,
        timeout_ms: u32,
        waiter: ListWaiter,
    ) {
        let id = self.next_token;
        self.next_token = self.next_token.wrapping_add(1).max(1);
        let mut origins: Vec<String> = vec![self.own_origin.clone()];
        let hints: Vec<String> = js::origin_hints().iter().filter_map(|h| h.as_string()).collect();
        for pattern in &from_origins {
            if pattern.is_wildcard() {
                origins.extend(hints.iter().filter(|h| pattern.matches(h)).cloned());
            } else {
                origins.push(pattern.as_str().to_owned());
            }
        }
        origins.dedup();
        let get_tools = |request_id| Message::GetToolsRequest { request_id, bridge: true };
        for (window, _) in &targets {
            // A window we have a port to is asked on the port, at its one known origin.
            let connected: Vec<(PeerId, String)> = self
                .peers
                .iter()
                .filter(|p| p.ours.is_some() && js_sys::Object::is(&p.window, window))
                .map(|p| (p.id, p.origin.clone()))
                .collect();
            if let Some((peer, origin)) = connected.into_iter().find(|(_, o)| origins.contains(o)) {
                let Ok(request_id) = random::random_id("g_").map(RequestId::new) else { continue };
                let Ok(request_id) = request_id else { continue };
                self.discovery_requests.insert(request_id.clone(), (id, window.clone(), origin));
                self.send(peer, &get_tools(request_id));
                continue;
            }
            for origin in &origins {
                let Ok(Ok(request_id)) = random::random_id("g_").map(RequestId::new) else { continue };
                self.discovery_requests.insert(request_id.clone(), (id, window.clone(), origin.clone()));
                let text = get_tools(request_id).encode();
                if let Ok(object) = js_sys::JSON::parse(&text) {
                    let _ = js::post_to_window(window, &object, origin, &JsValue::UNDEFINED);
                }
            }
        }
        let answered = vec![false; targets.len()];
        let timeout = Timeout::new(timeout_ms, move || {
            with_core(|state| state.finish_discovery(id));
        });
        self.discoveries
            .insert(id, Discovery { targets, answered, from_origins, waiters: vec![waiter], _timeout: timeout });
        if self.discoveries.get(&id).is_some_and(|d| d.targets.is_empty()) {
            self.finish_discovery(id);
        }
    }

    pub(crate) fn on_tools_listed(&mut self, from: &From, response: GetToolsResponse) {
        let GetToolsResponse { request_id, tools, bridge } = response;
        let Some((discovery, window, origin)) = self.discovery_requests.get(&request_id).cloned() else {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a tool list nobody asked for");
        };
        let from_window = self.peers.get(from.peer).map(|p| p.window.clone()).unwrap_or(JsValue::NULL);
        if origin != from.origin || !js_sys::Object::is(&window, &from_window) {
            return self.refuse(
                RefusalKind::UnsolicitedResponse,
                &from.origin,
                "a tool list from a window that was not asked",
            );
        }
        self.discovery_requests.remove(&request_id);
        let locator = self.discoveries.get(&discovery).and_then(|d| {
            d.targets.iter().position(|(w, _)| js_sys::Object::is(w, &window)).map(|i| d.targets[i].1.clone())
        });
        let peer_id = self.peers.upsert(&window, &origin, locator.as_deref());
        if let Some(peer) = self.peers.get_mut(peer_id) {
            peer.tools = tools;
            peer.bridge |= bridge;
        }
        if bridge {
            self.connect(peer_id);
        }
        if let Some(d) = self.discoveries.get_mut(&discovery) {
            if let Some(i) = d.targets.iter().position(|(w, _)| js_sys::Object::is(w, &window)) {
                d.answered[i] = true;
            }
            if d.answered.iter().all(|a| *a) {
                self.finish_discovery(discovery);
            }
        }
    }

    fn finish_discovery(&mut self, id: u32) {
        let Some(discovery) = self.discoveries.remove(&id) else { return };
        self.discovery_requests.retain(|_, (d, _, _)| *d != id);
        let mut tools: Vec<crate::RemoteTool> = self
            .registry
            .all()
            .iter()
            .map(|t| crate::RemoteTool::from_descriptor(t.descriptor(&self.own_origin), &self.own_origin, SELF_PEER))
            .collect();
        for peer in self.peers.iter() {
            let asked = discovery.targets.iter().any(|(w, _)| js_sys::Object::is(w, &peer.window));
            let wanted = peer.origin == self.own_origin || discovery.from_origins.allows(&peer.origin);
            if peer.id != SELF_PEER && asked && wanted {
                tools.extend(
                    peer.tools.iter().map(|t| crate::RemoteTool::from_descriptor(t.clone(), &peer.origin, peer.id)),
                );
            }
        }
        for waiter in discovery.waiters {
            match waiter {
                ListWaiter::Js(resolve) => {
                    self.user_calls.push(UserCall::ResolveTools { resolve, tools: tools.clone() })
                }
                ListWaiter::Rust(sender) => sender.send(tools.clone()),
                ListWaiter::Relist => self.user_calls.push(UserCall::FireToolChange),
            }
        }
    }

    /// Sets up a private port to a bridge peer (docs/protocol.md, `WEBMCP_CONNECT`): the port of this page's calls
    /// to it. The peer's calls to this page, if it makes any, take a port of its own (`Peer::theirs`).
    fn connect(&mut self, peer_id: PeerId) {
        let Some(peer) = self.peers.get(peer_id) else { return };
        if peer_id == SELF_PEER || peer.ours.is_some() || peer.connecting.is_some() || peer.gone {
            return;
        }
        let (window, origin) = (peer.window.clone(), peer.origin.clone());
        let Ok(channel) = web_sys::MessageChannel::new() else { return };
        let Ok(Ok(request_id)) = random::random_id("p_").map(RequestId::new) else { return };
        let link = PortLink::listen(channel.port1(), peer_id, PortSide::Ours);
        let text = Message::Connect { request_id: request_id.clone() }.encode();
        let Ok(object) = js_sys::JSON::parse(&text) else { return };
        let transfer = js_sys::Array::of1(&channel.port2());
        if js::post_to_window(&window, &object, &origin, &transfer).is_ok()
            && let Some(peer) = self.peers.get_mut(peer_id)
        {
            peer.connecting = Some((request_id, link));
        }
    }

    /// The peer accepted our port: from now on our calls to it take the port.
    pub(crate) fn on_connected(&mut self, from: &From, request_id: &RequestId) {
        let Some(peer) = self.peers.get_mut(from.peer) else { return };
        if from.via != Via::Port(PortSide::Ours) || peer.connecting.as_ref().is_none_or(|(id, _)| id != request_id) {
            return;
        }
        if let Some((_, link)) = peer.connecting.take() {
            peer.ours = Some(link);
        }
    }

    pub(crate) fn on_tools_changed(&mut self, from: &From) {
        if from.peer == SELF_PEER || !self.interest.contains(&from.origin) {
            return;
        }
        let peer = from.peer;
        let delay = self.options.toolchange_debounce_ms;
        self.relists.insert(peer, Timeout::new(delay, move || with_core(|state| state.relist(peer)).unwrap_or(())));
    }

    fn relist(&mut self, peer_id: PeerId) {
        self.relists.remove(&peer_id);
        let Some(peer) = self.peers.get(peer_id).filter(|p| !p.gone) else { return };
        let locator =
            peer.locator.clone().or_else(|| locate(&peer.window)).unwrap_or_else(|| UNKNOWN_LOCATOR.to_owned());
        let target = (peer.window.clone(), locator);
        let Ok(only) = OriginList::parse(&peer.origin) else { return };
        let timeout = self.options.discovery_timeout_ms;
        self.ask_for_tools(vec![target], only, timeout, ListWaiter::Relist);
    }

    // ---------------------------------------------------------------- calling

    /// Starts (or joins, or replays) a call.
    pub(crate) fn start_call(&mut self, target: CallTarget, args: JsonText, options: CallOptions, waiter: Waiter) {
        let Some(peer) = self.peers.get(target.peer).filter(|p| !p.gone) else {
            let error = ToolError::new(ErrorKind::Interrupted, "the tool's window went away: list the tools again");
            return self.settle_waiter(waiter, Outcome::Failed(error));
        };
        let locator =
            peer.locator.clone().or_else(|| locate(&peer.window)).unwrap_or_else(|| UNKNOWN_LOCATOR.to_owned());
        let provider = ProviderWindow::new(peer.origin.clone(), locator, peer.bridge);
        let Ok(Ok(wire_id)) = random::random_id("c_").map(RequestId::new) else {
            return self.settle_waiter(waiter, Outcome::Failed(ToolError::new(ErrorKind::Refused, "no random ids")));
        };
        let call = NewCall {
            call_id: options.call_id.clone(),
            wire_id: wire_id.clone(),
            tool: target.tool.clone(),
            provider,
            args: args.into_string(),
        };
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        let start = journals.consumer.start(call, now);
        self.schedule_journal_flush();
        match start {
            Err(error) => {
                self.settle_waiter(waiter, Outcome::Failed(ToolError::new(ErrorKind::Refused, error.to_string())))
            }
            Ok(Start::Replay { outcome, .. }) => {
                let outcome = Outcome::from_call(outcome);
                self.settle_waiter(waiter, outcome);
            }
            Ok(Start::Join { wire_id }) => {
                let peer = target.peer;
                let pending = self.calls.entry(wire_id.clone()).or_insert_with(|| PendingCall {
                    peer,
                    since: now,
                    waiters: Vec::new(),
                    guards: Vec::new(),
                    timeout: None,
                });
                pending.waiters.push(waiter);
                self.watch(&wire_id, options.timeout_ms);
            }
            Ok(Start::New) => {
                let pending = PendingCall {
                    peer: target.peer,
                    since: now,
                    waiters: vec![waiter],
                    guards: Vec::new(),
                    timeout: None,
                };
                self.calls.insert(wire_id.clone(), pending);
                self.watch(&wire_id, options.timeout_ms);
                let Some(journals) = self.journals.as_ref() else { return };
                let Some(entry) = journals.consumer.get(&wire_id) else { return };
                let running = ObservedCall {
                    tab: journals.label.clone(),
                    call_id: entry.call_id().to_owned(),
                    name: entry.tool().to_string(),
                    origin: entry.provider().origin.clone(),
                    status: ObservedStatus::Running,
                    duration_ms: None,
                };
                let request = ExecuteRequest {
                    wire_id: wire_id.clone(),
                    tool: entry.tool().clone(),
                    provider: entry.provider().clone(),
                    args: entry.args().to_owned(),
                    resend: false,
                };
                self.announce(running);
                self.send_execute(target.peer, request);
            }
        }
    }

    /// Posts a call's request. A first send is recorded as sent before it leaves (written at once when the provider
    /// is a plain peer, which cannot tell a repeat from a new call); a re-send after "unknown" is marked so that the
    /// provider runs it only if it can still prove it never received the call.
    fn send_execute(&mut self, peer: PeerId, request: ExecuteRequest) {
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        if !request.resend {
            if !journals.consumer.mark_sent(&request.wire_id, now) {
                return;
            }
            if !request.provider.bridge {
                self.flush_journals();
            }
        }
        let Ok(args) = JsonText::parse(&request.args, &self.options.limits) else { return };
        let message = Message::ExecuteRequest(WireExecute {
            request_id: request.wire_id,
            name: request.tool,
            args,
            resend: request.resend,
        });
        self.send(peer, &message);
    }

    /// Aborts, time limits and liveness for a call that someone waits for.
    fn watch(&mut self, wire_id: &RequestId, timeout_ms: Option<u32>) {
        if let Some(peer) = self.calls.get(wire_id).map(|c| c.peer) {
            self.watch_frame(peer);
        }
        let Some(pending) = self.calls.get_mut(wire_id) else { return };
        if let Some(Waiter::Js { signal: Some(signal), .. }) = pending.waiters.last() {
            let wire = wire_id.clone();
            let signal_for_reason = signal.clone();
            pending.guards.push(EventListener::once(signal, "abort", move |_| {
                with_core(|state| state.stop(&wire, Some(signal_for_reason.reason())));
            }));
        }
        if let Some(ms) = timeout_ms {
            let wire = wire_id.clone();
            pending.timeout = Some(Timeout::new(ms, move || {
                with_core(|state| state.time_out(&wire));
            }));
        }
        if self.liveness.is_none() {
            self.liveness = Some(Interval::new(500, || {
                with_core(|state| state.check_liveness());
            }));
        }
    }

    /// The caller stopped the call: recorded as stopped first, then the provider is told.
    pub(crate) fn stop(&mut self, wire_id: &RequestId, reason: Option<JsValue>) {
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.stop(wire_id, now) {
            self.flush_journals();
            self.settle(settled, reason);
        }
    }

    fn time_out(&mut self, wire_id: &RequestId) {
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.timed_out(wire_id, now) {
            self.settle(settled, None);
        }
    }

    /// When the peer is a frame of this page, a `load` of that frame means its page was replaced: every call
    /// waiting on it is interrupted (a plain peer cannot say so itself; a bridge says so too, from `pagehide`).
    fn watch_frame(&mut self, peer_id: PeerId) {
        let Some(peer) = self.peers.get_mut(peer_id) else { return };
        if peer_id == SELF_PEER || peer.frame_load.is_some() {
            return;
        }
        let element = js::frame_element_of(&peer.window);
        let Some(element) = element.dyn_ref::<web_sys::EventTarget>() else { return };
        peer.frame_load = Some(EventListener::new(element, "load", move |_| {
            with_core(|state| state.frame_reloaded(peer_id));
        }));
    }

    fn frame_reloaded(&mut self, peer_id: PeerId) {
        let waiting: Vec<RequestId> =
            self.calls.iter().filter(|(_, call)| call.peer == peer_id).map(|(wire, _)| wire.clone()).collect();
        for wire in waiting {
            self.provider_gone(&wire);
        }
        let had_tools = self.peers.get(peer_id).is_some_and(|p| !p.tools.is_empty());
        self.peers.forget(peer_id);
        if had_tools {
            self.user_calls.push(UserCall::FireToolChange);
        }
    }

    /// Every half second while calls wait: a call whose provider window closed or went away is settled; a call
    /// to a bridge that has said nothing for [`SILENT_PROVIDER_MS`] is asked about by window (its port may have died
    /// with no event to say so, or its page may have crashed): the answer settles it or says it runs, and no answer
    /// after the retries settles it as interrupted.
    fn check_liveness(&mut self) {
        let now = self.now();
        let mut gone = Vec::new();
        let mut silent = Vec::new();
        for (wire, call) in &self.calls {
            if call.peer == SELF_PEER {
                continue;
            }
            match self.peers.get(call.peer) {
                Some(p) if !p.gone && !js::window_closed(&p.window) => {
                    let quiet_since = p.last_heard.max(call.since);
                    if p.bridge
                        && now.saturating_sub(quiet_since) >= SILENT_PROVIDER_MS
                        && !self.status_retries.contains_key(wire)
                    {
                        silent.push((call.peer, wire.clone()));
                    }
                }
                _ => gone.push(wire.clone()),
            }
        }
        for wire in gone {
            self.provider_gone(&wire);
        }
        for (peer, wire) in silent {
            if let Some(call) = self.calls.get_mut(&wire) {
                call.since = now;
            }
            self.ask_status(peer, wire, 0);
        }
        if self.calls.is_empty() {
            self.liveness = None;
        }
    }

    fn provider_gone(&mut self, wire_id: &RequestId) {
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        if let Some(settled) = journals.consumer.peer_gone(wire_id, now) {
            self.settle(settled, None);
        }
    }

    /// Whether a message from `from` may speak for call `wire_id`: same origin as the call's provider, and the
    /// same window (the one the call went to, or the one its locator names after a reload).
    fn sent_by_provider_of(&self, from: &From, wire_id: &RequestId) -> bool {
        let Some(entry) = self.journals.as_ref().and_then(|j| j.consumer.get(wire_id)) else { return false };
        if entry.provider().origin != from.origin {
            return false;
        }
        if let Some(call) = self.calls.get(wire_id) {
            return call.peer == from.peer;
        }
        let from_window = self.peers.get(from.peer).map(|p| p.window.clone()).unwrap_or(JsValue::NULL);
        let expected = if entry.provider().locator == "self" {
            self.window.clone().into()
        } else {
            js::window_at(&entry.provider().locator)
        };
        js_sys::Object::is(&expected, &from_window)
    }

    pub(crate) fn on_execute_response(&mut self, from: &From, response: ExecuteResponse) {
        let wire_id = response.request_id.clone();
        if !self.sent_by_provider_of(from, &wire_id) {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a call result nobody waits for");
        }
        self.status_retries.remove(&wire_id);
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        match journals.consumer.on_response(&wire_id, response_to_outcome(response), now) {
            Some(settled) => self.settle(settled, None),
            None => self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a second result for a settled call"),
        }
    }

    pub(crate) fn on_status_response(&mut self, from: &From, status: CallStatusResponse) {
        let CallStatusResponse { request_id, state, durable } = status;
        if !self.sent_by_provider_of(from, &request_id) {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a call status nobody asked for");
        }
        self.status_retries.remove(&request_id);
        let status = match state {
            CallState::Running => ProviderStatus::Running,
            CallState::Unknown => ProviderStatus::Unknown { durable },
        };
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        match journals.consumer.on_status(&request_id, status, now) {
            StatusDecision::Wait | StatusDecision::Ignored => {}
            StatusDecision::Resend(request) => self.send_execute(from.peer, request),
            StatusDecision::Settled(settled) => self.settle(settled, None),
        }
    }

    pub(crate) fn on_going_away(&mut self, from: &From) {
        let window = self.peers.get(from.peer).map(|p| p.window.clone()).unwrap_or(JsValue::NULL);
        if js::is_ancestor(&window) {
            // This page goes away with its ancestor. Settling the calls here would report them to a page that is
            // being unloaded; left unsettled in the journal, they are resumed by the next page of this frame,
            // which learns from the provider how they ended (once-only.md §2) and reports them.
            self.flush_journals();
            return;
        }
        let affected: Vec<RequestId> = self
            .journals
            .as_ref()
            .map(|j| j.consumer.pending().map(|e| e.wire_id().clone()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|wire| self.sent_by_provider_of(from, wire))
            .collect();
        for wire in affected {
            self.provider_gone(&wire);
        }
        let had_tools = self.peers.get(from.peer).is_some_and(|p| !p.tools.is_empty());
        self.peers.forget(from.peer);
        if had_tools {
            self.user_calls.push(UserCall::FireToolChange);
        }
    }

    /// A call settled: its waiters learn the outcome, the page gets a `toolresult` event, the provider an ack.
    pub(crate) fn settle(&mut self, settled: Settled, abort_reason: Option<JsValue>) {
        let Settled { call_id, wire_id, tool, provider, outcome, duration_ms, recovered, followup } = settled;
        self.status_retries.remove(&wire_id);
        let pending = self.calls.remove(&wire_id);
        let peer = pending.as_ref().map(|p| p.peer).or_else(|| self.peer_of(&provider));
        let outcome = Outcome::from_call(outcome);
        if let Some(pending) = pending {
            for waiter in pending.waiters {
                match (&waiter, &abort_reason) {
                    (Waiter::Js { reject, signal: Some(signal), .. }, Some(_)) if signal.aborted() => {
                        self.user_calls.push(UserCall::Reject { reject: reject.clone(), error: signal.reason() });
                    }
                    _ => self.settle_waiter(waiter, outcome.clone()),
                }
            }
        }
        let result = crate::ToolResult {
            call_id,
            name: tool.to_string(),
            origin: provider.origin.clone(),
            outcome,
            duration_ms,
            recovered,
        };
        if let Some(journals) = self.journals.as_ref() {
            self.announce(ObservedCall {
                tab: journals.label.clone(),
                call_id: result.call_id.clone(),
                name: result.name.clone(),
                origin: result.origin.clone(),
                status: ObservedStatus::Settled(result.status()),
                duration_ms: Some(duration_ms),
            });
        }
        self.user_calls.push(UserCall::FireToolResult(result));
        if let Some(peer) = peer {
            match followup {
                Followup::Ack => {
                    self.acks.entry(peer).or_default().push(wire_id.clone());
                    self.schedule_end_of_task();
                }
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

    pub(crate) fn settle_waiter(&mut self, waiter: Waiter, outcome: Outcome) {
        match waiter {
            Waiter::Js { resolve, reject, .. } => self.user_calls.push(UserCall::SettleJs { resolve, reject, outcome }),
            Waiter::Rust(sender) => sender.send(outcome),
        }
    }

    /// The peer a journal entry's provider is now, if its window can be found.
    fn peer_of(&mut self, provider: &ProviderWindow) -> Option<PeerId> {
        if provider.locator == "self" {
            return Some(SELF_PEER);
        }
        let window = js::window_at(&provider.locator);
        if window.is_null() || window.is_undefined() {
            return None;
        }
        let id = self.peers.upsert(&window, &provider.origin, Some(&provider.locator));
        if let Some(peer) = self.peers.get_mut(id) {
            peer.bridge |= provider.bridge;
        }
        Some(id)
    }

    // ---------------------------------------------------------------- after a reload

    /// Resumes what the previous page of this frame left unfinished (docs/once-only.md §2).
    pub(crate) fn recover(&mut self, recoveries: Vec<Recovery>) {
        for recovery in recoveries {
            match recovery {
                Recovery::Settled(settled) => self.settle(settled, None),
                Recovery::Send(request) => match self.peer_of(&request.provider) {
                    Some(peer) => {
                        let (wire, bridge) = (request.wire_id.clone(), request.provider.bridge);
                        self.send_execute(peer, request);
                        if bridge {
                            self.ask_status(peer, wire, 0);
                        }
                    }
                    None => self.provider_gone(&request.wire_id),
                },
                Recovery::AskStatus { wire_id, provider } => match self.peer_of(&provider) {
                    Some(peer) => self.ask_status(peer, wire_id, 0),
                    None => self.provider_gone(&wire_id),
                },
                Recovery::Ack { provider, wire_ids } => {
                    if let Some(peer) = self.peer_of(&provider) {
                        self.acks.entry(peer).or_default().extend(wire_ids.iter().cloned());
                        if let Some(journals) = self.journals.as_mut() {
                            journals.consumer.mark_acked(&wire_ids);
                        }
                        self.schedule_end_of_task();
                    }
                }
            }
        }
    }

    /// Asks a provider how a call ended, again and again until it answers (its page may still be loading); after
    /// the last try the provider counts as gone.
    fn ask_status(&mut self, peer: PeerId, wire_id: RequestId, attempt: usize) {
        if attempt >= STATUS_RETRY_MS.len() {
            self.status_retries.remove(&wire_id);
            return self.provider_gone(&wire_id);
        }
        // By window: the answer must come even when the port this call took has died.
        self.send_by_window(peer, &Message::CallStatusRequest { request_id: wire_id.clone() });
        let wire = wire_id.clone();
        let retry = Timeout::new(STATUS_RETRY_MS[attempt], move || {
            with_core(|state| {
                if state.status_retries.contains_key(&wire) {
                    state.ask_status(peer, wire.clone(), attempt + 1);
                }
            });
        });
        self.status_retries.insert(wire_id, (attempt as u32, retry));
    }
}

impl Outcome {
    pub(crate) fn from_call(outcome: CallOutcome) -> Self {
        match outcome {
            CallOutcome::Completed { result } => Outcome::Completed(result),
            CallOutcome::Failed(error) => Outcome::Failed(error),
            CallOutcome::Stopped => Outcome::Stopped,
            CallOutcome::Interrupted { message } => Outcome::Failed(ToolError::new(ErrorKind::Interrupted, message)),
        }
    }
}
