//! The bridge's one instance per page: its state, the browser events that feed it, and the effects it has.
//!
//! Every entry point borrows the state, lets the policy decide, and queues anything that calls page code (a
//! tool's `execute`, an event listener, an `AbortSignal` listener) as a [`UserCall`]; the calls run after the
//! borrow ends, so page code may call back into the bridge.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use webmcp_policy::envelope::ExecuteResponse;
use webmcp_policy::guard::{OriginRateLimiter, RefusalKind, WarningDecision, WarningGate};
use webmcp_policy::journal::{ConsumerJournal, ProviderJournal};
use webmcp_policy::{Decoded, EnvelopeError, Message, RequestId, decode, decode_batch};

use crate::consumer::{Discovery, PendingCall};
use crate::options::Options;
use crate::peers::{PeerId, Peers, PortSide, SELF_PEER};
use crate::provider::{RunKey, Running};
use crate::registry::Registry;
use crate::store::Store;
use crate::user::UserCall;
use crate::{ObservedCall, console, js};

/// How long acknowledgements may wait for other messages to the same peer (ms).
const ACK_DELAY_MS: u32 = 250;

/// Acknowledgements that are sent at once, without waiting for company.
const ACK_BATCH: usize = 64;

/// Where a message came from: a window event (with the window and the origin the browser reported), a port
/// (whose origin was verified when it was set up), or this page itself.
#[derive(Clone)]
pub(crate) struct From {
    pub peer: PeerId,
    pub origin: String,
    /// The path it came by; replies take the same path.
    pub via: Via,
}

/// The path a message came by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// A window message (`event.source` and `event.origin`).
    Window,
    /// One of the peer's private ports.
    Port(PortSide),
    /// This page, to itself.
    Loopback,
}

/// Work that waits until the journals are open.
pub(crate) type JournalWork = Box<dyn FnOnce(&mut State)>;

pub(crate) struct Journals {
    pub consumer: ConsumerJournal<Store>,
    pub provider: ProviderJournal<Store>,
    /// The tab's public label, which call announcements carry instead of the tab id (see tab.rs).
    pub label: String,
}

pub(crate) struct State {
    pub own_origin: String,
    pub window: web_sys::Window,
    pub options: Options,
    pub registry: Registry,
    pub peers: Peers,
    /// `None` until this page knows which tab and frame it is (see tab.rs).
    pub journals: Option<Journals>,
    /// Work that waits for the journals.
    pub waiting_for_journals: Vec<JournalWork>,
    /// Consumer calls with someone waiting for them in this page.
    pub calls: HashMap<RequestId, PendingCall>,
    /// Provider calls running in this page.
    pub running: HashMap<RunKey, Running>,
    pub run_tokens: HashMap<u32, RunKey>,
    pub next_token: u32,
    pub discoveries: HashMap<u32, Discovery>,
    /// Which discovery each `WEBMCP_GET_TOOLS_REQUEST` id belongs to, and the window and origin it went to.
    pub discovery_requests: HashMap<RequestId, (u32, JsValue, String)>,
    /// Origins whose tool changes this page cares about (its own and every `fromOrigins` it asked).
    pub interest: Vec<String>,
    pub rate: OriginRateLimiter,
    pub warnings: WarningGate,
    /// Acknowledgements to send, by provider.
    pub acks: HashMap<PeerId, Vec<RequestId>>,
    /// Messages from this page to itself, delivered at the end of the task.
    pub loopback: Vec<Message>,
    pub user_calls: Vec<UserCall>,
    /// Statuses of this page's calls for the other pages of the origin, posted at the end of the task.
    pub announcements: Vec<ObservedCall>,
    pub end_of_task_scheduled: bool,
    /// Send every waiting acknowledgement at the end of this task.
    pub acks_due: bool,
    pub ack_timer: Option<Timeout>,
    pub journal_flush: Option<Timeout>,
    /// `sessionStorage` and the key that says a page of this frame is alive (see `tab::AliveMarker`).
    pub alive: Option<crate::tab::AliveMarker>,
    pub liveness: Option<Interval>,
    pub relists: HashMap<PeerId, Timeout>,
    pub status_retries: HashMap<RequestId, (u32, Timeout)>,
    pub listeners: crate::listeners::Listeners,
    /// Unregister-on-abort listeners of tools registered with a signal, by registration.
    pub abort_guards: HashMap<u64, EventListener>,
}

impl State {
    pub fn now(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    /// Prints a console warning about a refusal, unless one like it was printed recently.
    pub fn refuse(&mut self, kind: RefusalKind, origin: &str, what: &str) {
        self.warn(kind, origin, &format!("refused {what} from {origin}"));
    }

    /// Prints `text` on the console, unless a warning of `kind` about `origin` was printed recently: every
    /// warning of the bridge goes through here, so that nothing another window does can flood the console.
    pub fn warn(&mut self, kind: RefusalKind, origin: &str, text: &str) {
        let now = self.now();
        if let WarningDecision::Print { suppressed } = self.warnings.check(kind, origin, now) {
            let more = if suppressed > 0 {
                format!(" ({suppressed} more like it since the last warning)")
            } else {
                String::new()
            };
            console::warn(&format!("{text}{more}"));
        }
    }

    /// Runs `work` now when the journals are open, or as soon as they are.
    pub fn with_journals(&mut self, work: impl FnOnce(&mut State) + 'static) {
        if self.journals.is_some() {
            work(self);
        } else if self.waiting_for_journals.len() < self.options.limits.max_batch_len {
            self.waiting_for_journals.push(Box::new(work));
        } else {
            let own = self.own_origin.clone();
            self.warn(
                RefusalKind::Backlog,
                &own,
                "too much work queued before the bridge was ready; dropped a message",
            );
        }
    }

    /// Sends `message` to a peer: to itself through the loopback, on the peer's port that carries this kind of
    /// message (see [`PortSide::for_message`]) when it is connected, or as a window message addressed to the
    /// peer's exact origin.
    pub fn send(&mut self, peer_id: PeerId, message: &Message) {
        self.send_by(peer_id, Some(PortSide::for_message(message)), message);
    }

    /// Sends `message` to a peer's window (or to this page through the loopback), even when a port is connected:
    /// for a question that must reach the peer whether or not the port still works.
    pub fn send_by_window(&mut self, peer_id: PeerId, message: &Message) {
        self.send_by(peer_id, None, message);
    }

    /// Sends `message` on the peer's port `side` when it is connected, else by window (or the loopback).
    fn send_by(&mut self, peer_id: PeerId, side: Option<PortSide>, message: &Message) {
        if peer_id == SELF_PEER {
            self.loopback.push(message.clone());
            self.schedule_end_of_task();
            return;
        }
        let Some(peer) = self.peers.get_mut(peer_id) else { return };
        if peer.gone {
            return;
        }
        if let Some(link) = side.and_then(|side| peer.link_mut(side)) {
            link.outbox.push(message.encode());
            self.schedule_end_of_task();
            return;
        }
        let text = message.encode();
        let object = match js_sys::JSON::parse(&text) {
            Ok(object) => object,
            Err(_) => return,
        };
        if let Err(error) = js::post_to_window(&peer.window, &object, &peer.origin, &JsValue::UNDEFINED) {
            let origin = peer.origin.clone();
            let text = format!("could not post to {origin}: {}", console::describe(&error));
            self.warn(RefusalKind::PostFailed, &origin, &text);
        }
    }

    /// Replies to the sender of a request, by the path the request came: on the same port (or by window when
    /// that port has closed since), to its window at its origin, or to this page itself.
    pub fn reply(&mut self, to: &From, message: &Message) {
        match to.via {
            Via::Loopback => self.send(SELF_PEER, message),
            Via::Port(side) => self.send_by(to.peer, Some(side), message),
            Via::Window => {
                // Reply by window even when a port exists, so that the reply takes the request's path.
                let Some(peer) = self.peers.get(to.peer) else { return };
                let text = message.encode();
                if let Ok(object) = js_sys::JSON::parse(&text) {
                    let _ = js::post_to_window(&peer.window, &object, &to.origin, &JsValue::UNDEFINED);
                }
            }
        }
    }

    pub fn schedule_end_of_task(&mut self) {
        if !self.end_of_task_scheduled {
            self.end_of_task_scheduled = true;
            CORE.with(|core| {
                if let Some(core) = core.borrow().as_ref() {
                    self.window.queue_microtask(core.end_of_task.as_ref().unchecked_ref());
                }
            });
        }
    }

    /// Tells the other pages of this origin, at the end of the task, how a call of this page stands.
    pub fn announce(&mut self, call: ObservedCall) {
        self.announcements.push(call);
        self.schedule_end_of_task();
    }

    /// Asks for the journals to reach storage soon (batched: one write for everything that changed meanwhile).
    pub fn schedule_journal_flush(&mut self) {
        if self.journal_flush.is_none() {
            let delay = self.options.flush_delay_ms;
            self.journal_flush = Some(Timeout::new(delay, || {
                with_core(|state| state.flush_journals());
            }));
        }
    }

    pub fn flush_journals(&mut self) {
        self.journal_flush = None;
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        journals.consumer.write_pending();
        let mut warnings = Vec::new();
        if let Err(error) = journals.consumer.store_mut().flush(now) {
            warnings.push(format!(
                "{error}; the call journal now lives in memory, so a reload of this page cannot resume its calls"
            ));
            journals.consumer.storage_failed(error);
        }
        // Writes its pending entries itself, and on a full store sheds results before it gives up durability.
        if let Err(error) = journals.provider.flush(now) {
            warnings.push(format!("{error}; the provider journal now lives in memory"));
        }
        let own = self.own_origin.clone();
        for text in warnings {
            self.warn(RefusalKind::StorageFailed, &own, &text);
        }
    }

    /// Sends what waited for the end of the task: port batches, acknowledgements, messages to itself.
    ///
    /// Acknowledgements ride with other messages to the same peer, or wait up to [`ACK_DELAY_MS`] (or until
    /// [`ACK_BATCH`] gather): a provider keeps a result a little longer, and a call costs one message each way.
    fn end_of_task(&mut self) -> Vec<(From, Message)> {
        self.end_of_task_scheduled = false;
        if !self.announcements.is_empty() {
            js::announce_call(&crate::observe::announcement(&std::mem::take(&mut self.announcements)));
        }
        let acks: Vec<(PeerId, Vec<RequestId>)> = self.acks.drain().collect();
        for (peer, ids) in acks {
            let has_company =
                self.peers.get(peer).and_then(|p| p.ours.as_ref()).is_some_and(|link| !link.outbox.is_empty());
            if has_company || self.acks_due || ids.len() >= ACK_BATCH {
                for chunk in ids.chunks(self.options.limits.max_ack_ids.max(1)) {
                    self.send(peer, &Message::CallAck { request_ids: chunk.to_vec() });
                }
            } else {
                self.acks.insert(peer, ids);
            }
        }
        self.acks_due = false;
        // The timer is left to run out when the acknowledgements found company: starting and clearing a timer for
        // every call costs more than one timer that finds nothing to send.
        if !self.acks.is_empty() && self.ack_timer.is_none() {
            self.ack_timer = Some(Timeout::new(ACK_DELAY_MS, || {
                with_core(|state| {
                    state.ack_timer = None;
                    state.acks_due = true;
                    state.schedule_end_of_task();
                });
            }));
        }
        let max_len = self.options.limits.max_batch_len.max(1);
        for peer in self.peers.iter_mut() {
            for link in [peer.ours.as_mut(), peer.theirs.as_mut()].into_iter().flatten() {
                while !link.outbox.is_empty() {
                    let take = link.outbox.len().min(max_len);
                    let mut batch =
                        String::with_capacity(link.outbox[..take].iter().map(|e| e.len() + 1).sum::<usize>() + 2);
                    batch.push('[');
                    for (i, envelope) in link.outbox.drain(..take).enumerate() {
                        if i > 0 {
                            batch.push(',');
                        }
                        batch.push_str(&envelope);
                    }
                    batch.push(']');
                    let _ = link.port.post_message(&JsValue::from_str(&batch));
                }
            }
        }
        let own = self.own_origin.clone();
        self.loopback
            .drain(..)
            .map(|m| (From { peer: SELF_PEER, origin: own.clone(), via: Via::Loopback }, m))
            .collect()
    }
}

/// The page's bridge.
pub(crate) struct Core {
    pub state: RefCell<State>,
    /// The `document.modelContext`-shaped object (an EventTarget) that events are fired on.
    pub context: RefCell<JsValue>,
    end_of_task: Closure<dyn FnMut()>,
    _tool_settler: Closure<dyn FnMut(u32, bool, JsValue)>,
    _call_watcher: Closure<dyn FnMut(JsValue)>,
    _listeners: RefCell<Vec<EventListener>>,
}

/// The BroadcastChannel on which the pages of this origin announce how their calls go (observe.rs).
const CALLS_CHANNEL: &str = "webmcp-bridge:calls";

thread_local! {
    pub(crate) static CORE: RefCell<Option<Rc<Core>>> = const { RefCell::new(None) };
}

/// Runs `work` on the state of the installed bridge (if any), then the effects it queued.
pub(crate) fn with_core<R>(work: impl FnOnce(&mut State) -> R) -> Option<R> {
    let core = CORE.with(|core| core.borrow().clone())?;
    Some(core.run(work))
}

impl Core {
    pub fn installed() -> Option<Rc<Core>> {
        CORE.with(|core| core.borrow().clone())
    }

    pub fn install(options: Options) -> Result<Rc<Core>, crate::BridgeError> {
        if let Some(core) = Self::installed() {
            return Ok(core);
        }
        let window = web_sys::window().ok_or(crate::BridgeError::Unsupported("window"))?;
        let own_origin = window.origin();
        let state = State {
            peers: Peers::new(window.clone().into(), &own_origin),
            own_origin: own_origin.clone(),
            rate: OriginRateLimiter::for_get_tools(&options.limits),
            warnings: WarningGate::new(&options.limits),
            window: window.clone(),
            options,
            registry: Registry::default(),
            journals: None,
            waiting_for_journals: Vec::new(),
            calls: HashMap::new(),
            running: HashMap::new(),
            run_tokens: HashMap::new(),
            next_token: 1,
            discoveries: HashMap::new(),
            discovery_requests: HashMap::new(),
            interest: vec![own_origin],
            acks: HashMap::new(),
            loopback: Vec::new(),
            user_calls: Vec::new(),
            announcements: Vec::new(),
            end_of_task_scheduled: false,
            acks_due: false,
            ack_timer: None,
            journal_flush: None,
            alive: None,
            liveness: None,
            relists: HashMap::new(),
            status_retries: HashMap::new(),
            listeners: Default::default(),
            abort_guards: HashMap::new(),
        };
        let end_of_task = Closure::<dyn FnMut()>::new(|| {
            if let Some(core) = Core::installed() {
                let delivered = core.run(|state| state.end_of_task());
                for (from, message) in delivered {
                    core.run(|state| state.handle(from, message, None));
                }
            }
        });
        let tool_settler = Closure::<dyn FnMut(u32, bool, JsValue)>::new(|token, ok, value| {
            with_core(|state| state.tool_settled(token, if ok { Ok(value) } else { Err(value) }));
        });
        js::set_tool_settler(tool_settler.as_ref().unchecked_ref());
        let call_watcher = Closure::<dyn FnMut(JsValue)>::new(|data: JsValue| {
            let calls = crate::observe::read_announcement(&data);
            if !calls.is_empty()
                && let Some(core) = Core::installed()
            {
                core.run(|state| state.user_calls.extend(calls.into_iter().map(UserCall::FireToolStatus)));
            }
        });
        js::watch_calls(CALLS_CHANNEL, call_watcher.as_ref().unchecked_ref());
        let core = Rc::new(Core {
            state: RefCell::new(state),
            context: RefCell::new(JsValue::UNDEFINED),
            end_of_task,
            _tool_settler: tool_settler,
            _call_watcher: call_watcher,
            _listeners: RefCell::new(Vec::new()),
        });
        CORE.with(|slot| *slot.borrow_mut() = Some(core.clone()));
        core.listen(&window);
        crate::tab::claim_owner(core.clone());
        Ok(core)
    }

    fn listen(&self, window: &web_sys::Window) {
        let mut listeners = self._listeners.borrow_mut();
        listeners.push(EventListener::new(window, "message", |event| {
            if let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() {
                on_window_message(event);
            }
        }));
        listeners.push(EventListener::new(window, "pagehide", |_| {
            with_core(|state| state.going_away());
        }));
        listeners.push(EventListener::new(window, "pageshow", |event| {
            // Back from the back/forward cache: the page is alive again.
            let persisted = event.dyn_ref::<web_sys::PageTransitionEvent>().is_some_and(|e| e.persisted());
            if persisted {
                with_core(|state| state.alive.as_ref().map(crate::tab::AliveMarker::alive));
            }
        }));
        if let Some(document) = window.document() {
            listeners.push(EventListener::new(&document, "visibilitychange", |_| {
                let hidden = web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden());
                if hidden {
                    with_core(|state| state.flush_journals());
                }
            }));
            listeners.push(EventListener::new(&document, "freeze", |_| {
                with_core(|state| state.flush_journals());
            }));
        }
    }

    /// Runs `work` on the state, then the page code it queued, after the borrow ends.
    pub fn run<R>(&self, work: impl FnOnce(&mut State) -> R) -> R {
        let (result, calls) = {
            let mut state = self.state.borrow_mut();
            let result = work(&mut state);
            (result, std::mem::take(&mut state.user_calls))
        };
        let context = self.context.borrow().clone();
        for call in calls {
            call.run(&context);
        }
        result
    }
}

/// A `message` event on the window: the origin is read first (Chromium decodes large cross-origin messages faster
/// that way), the source must be a window, the data must look like ours, and it must fit the size limit
/// (measured without serializing it) before it is serialized; the JSON text must fit again before it is copied
/// into wasm memory. A message over the limits costs the page a walk of at most the limit, never a copy.
fn on_window_message(event: &web_sys::MessageEvent) {
    let origin = event.origin();
    let Some(source) = event.source() else { return };
    let source: JsValue = source.into();
    if !js::is_window(&source) {
        return;
    }
    let data = event.data();
    if !looks_like_ours(&data) {
        return;
    }
    let Some(limits) = Core::installed().map(|core| core.state.borrow().options.limits.clone()) else { return };
    let text = if js::exceeds_json_size(&data, limits.max_message_bytes) {
        Err(webmcp_policy::ErrorCategory::TooLarge)
    } else {
        js_sys::JSON::stringify(&data).map_err(|_| webmcp_policy::ErrorCategory::InvalidJson)
    };
    // A UTF-16 length over the byte limit is over it in UTF-8 too: refused before the copy.
    let text = text.and_then(|text| {
        if text.length() as usize > limits.max_message_bytes {
            Err(webmcp_policy::ErrorCategory::TooLarge)
        } else {
            Ok(String::from(text))
        }
    });
    let text = match text {
        Ok(text) => text,
        Err(category) => {
            let what = match category {
                webmcp_policy::ErrorCategory::TooLarge => {
                    format!("a malformed message (message is over {} bytes; not read)", limits.max_message_bytes)
                }
                _ => "a message that is not JSON".to_owned(),
            };
            with_core(|state| state.refuse(RefusalKind::Envelope(category), &origin, &what));
            return;
        }
    };
    let ports = event.ports();
    let port = ports.get(0).dyn_into::<web_sys::MessagePort>().ok();
    with_core(|state| {
        if origin == "null" {
            state.refuse(
                RefusalKind::OpaqueOrigin,
                &origin,
                "a message from an opaque origin (a sandboxed frame): it cannot be answered without '*'",
            );
            return;
        }
        match decode(&text, &limits) {
            Ok(Decoded::NotOurs) => {}
            Ok(Decoded::Message(message)) => {
                let peer = state.peers.upsert(&source, &origin, None);
                state.heard_from(peer);
                state.handle(From { peer, origin, via: Via::Window }, message, port);
            }
            Err(error) => {
                let peer = state.peers.upsert(&source, &origin, None);
                state.malformed(&From { peer, origin, via: Via::Window }, &error);
            }
        }
    });
}

/// A cheap first look: an object whose `type` is a string starting with `WEBMCP_`. The policy decides the rest.
fn looks_like_ours(data: &JsValue) -> bool {
    data.is_object()
        && js_sys::Reflect::get(data, &JsValue::from_str("type"))
            .ok()
            .and_then(|t| t.as_string())
            .is_some_and(|t| t.starts_with("WEBMCP_"))
}

/// A batch on a peer's port `side`.
pub(crate) fn on_port_message(peer: PeerId, side: PortSide, event: &web_sys::MessageEvent) {
    let Ok(batch) = event.data().dyn_into::<js_sys::JsString>() else { return };
    with_core(|state| {
        let Some(origin) = state.peers.get(peer).filter(|p| !p.gone).map(|p| p.origin.clone()) else { return };
        // A batch over the limit is refused by its length, before it is copied into wasm memory.
        if batch.length() as usize > state.options.limits.max_batch_bytes {
            return state.refuse(
                RefusalKind::Envelope(webmcp_policy::ErrorCategory::BadBatch),
                &origin,
                "a port batch larger than the limit, unread",
            );
        }
        let text = String::from(batch);
        state.heard_from(peer);
        let from = From { peer, origin, via: Via::Port(side) };
        let limits = state.options.limits.clone();
        match decode_batch(&text, &limits) {
            Ok(items) => {
                for item in items {
                    match item {
                        Ok(Decoded::Message(message)) => state.handle(from.clone(), message, None),
                        Ok(Decoded::NotOurs) => {}
                        Err(error) => state.malformed(&from, &error),
                    }
                }
            }
            Err(error) => state.malformed(&from, &error),
        }
    });
}

impl State {
    /// Notes that a message of `peer` arrived now (once per window message or port batch), for the silence
    /// `check_liveness` watches.
    fn heard_from(&mut self, peer: PeerId) {
        let now = self.now();
        if let Some(peer) = self.peers.get_mut(peer) {
            peer.last_heard = now;
        }
    }

    /// One decoded message from `from`.
    pub fn handle(&mut self, from: From, message: Message, port: Option<web_sys::MessagePort>) {
        match message {
            Message::GetToolsRequest { request_id, bridge } => self.on_get_tools(&from, request_id, bridge),
            Message::ExecuteRequest(request) => self.with_journals(move |s| s.on_execute(&from, request)),
            Message::CancelTool { request_id } => self.with_journals(move |s| s.on_cancel(&from, &request_id)),
            Message::CallStatusRequest { request_id } => {
                self.with_journals(move |s| s.on_status_request(&from, request_id))
            }
            Message::CallAck { request_ids } => self.with_journals(move |s| s.on_ack(&from, &request_ids)),
            Message::Connect { request_id } => self.on_connect(&from, request_id, port),
            Message::GetToolsResponse(response) => self.on_tools_listed(&from, response),
            Message::ExecuteResponse(response) => self.with_journals(move |s| s.on_execute_response(&from, response)),
            Message::CallStatusResponse(status) => self.with_journals(move |s| s.on_status_response(&from, status)),
            Message::ToolsChanged => self.on_tools_changed(&from),
            Message::GoingAway => self.with_journals(move |s| s.on_going_away(&from)),
            Message::Connected { request_id } => self.on_connected(&from, &request_id),
        }
    }

    /// A message of ours that breaks a rule: ignored, except an execute request with a usable id, which gets an
    /// error reply so that its caller is not left waiting.
    fn malformed(&mut self, from: &From, error: &EnvelopeError) {
        self.refuse(RefusalKind::Envelope(error.category()), &from.origin, &format!("a malformed message ({error})"));
        if let Some(reply) = error.error_reply() {
            self.reply(from, &Message::ExecuteResponse(reply));
        }
    }

    /// The page is going away: tell every window that waits for one of our calls or listed our tools and could see
    /// one of them, and write the journals.
    fn going_away(&mut self) {
        let mut told: Vec<PeerId> = Vec::new();
        let waiting: Vec<PeerId> = self.running.values().map(|r| r.reply_to.peer).collect();
        let (own, expose) = (&self.own_origin, &self.options.expose_tools_to);
        let listed: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|p| p.listed_ours && (p.sees_ours || self.registry.any_visible(&p.origin, own, expose)))
            .map(|p| p.id)
            .collect();
        for peer in waiting.into_iter().chain(listed) {
            if peer != SELF_PEER && !told.contains(&peer) {
                told.push(peer);
                self.send(peer, &Message::GoingAway);
            }
        }
        self.acks_due = true;
        let _ = self.end_of_task();
        self.flush_journals();
        if let Some(alive) = &self.alive {
            alive.went_away_cleanly();
        }
    }

    /// Replies a failure for `request_id` to `from`.
    pub fn reply_failure(&mut self, from: &From, request_id: RequestId, error: webmcp_policy::ToolError) {
        self.reply(from, &Message::ExecuteResponse(ExecuteResponse::failure(request_id, error)));
    }
}
