//! The protocol of one page, as a deterministic state machine: every decision about who may list, call, cancel,
//! connect or be told, where an answer goes, and when to retry, acknowledge or give up.
//!
//! A [`Session`] touches no browser API (it is sans-IO, as quinn-proto is): the bridge crate's driver turns browser
//! events into [`Input`]s, gives the time with each, and carries out the [`Effect`]s the session queues — a
//! `postMessage` to one window at its exact origin, a batch on a private port, a tool to run, a promise to settle,
//! an event to fire. Windows, ports and promises stay in the driver under the ids the session uses for them
//! ([`WindowId`], [`PortId`], [`WaiterId`]). Deadlines leave through [`Session::poll_timeout`] and come back
//! through [`Session::handle_timeout`]. The journals that make each call run once live inside, in memory; when they
//! must reach storage the session queues [`Effect::WriteJournals`], and the driver hands
//! [`Session::write_journals`] the page's [`JournalStore`](crate::journal::JournalStore) (sessionStorage) before it carries out the next effect,
//! so that a record is in storage before whatever depends on it leaves (a request to a plain peer, say).
//!
//! One call of a widget to a shop's tool, through both pages' sessions:
//!
//! ```text
//!  widget page                                                shop page
//!  executeTool ─► Input::Execute ─► consumer journal          ┌─► Input::PortBatch ─► provider journal ─► Effect::RunTool
//!                 (start: new/join/replay)                    │        (origin may see? once? in flight?)        │
//!                 Effect::PostBatch ──────────── port ────────┘                                                   ▼
//!                                                                                              tool's execute() in page
//!  Effect::Settle ◄─ consumer journal ◄─ Input::PortBatch ◄──── port ──── Effect::PostBatch ◄─ Input::ToolSettled
//!  Effect::ToolResult                    (sent by the provider of this call?)
//! ```
//!
//! ```
//! # #[cfg(feature = "url")] {
//! use interpane_policy::session::{Answer, Config, Effect, Entropy, EntropyError, Input, Session, ToolSpec};
//! use interpane_policy::{OriginList, ToolName, WindowOrigin};
//!
//! struct Fixed;
//! impl Entropy for Fixed {
//!     fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
//!         bytes.fill(7);
//!         Ok(())
//!     }
//! }
//!
//! let shop = WindowOrigin::from_browser("https://shop.example");
//! let config = Config::new(shop, OriginList::parse("https://widget.example")?);
//! let mut session = Session::new(config, Box::new(Fixed));
//! let spec = ToolSpec::new(ToolName::new("add_to_cart")?, "Add a product to the cart.");
//! let Answer::Registered(registration) = session.handle(Input::Register { spec: Box::new(spec) }, 0)
//! else {
//!     unreachable!("Input::Register is answered with Answer::Registered")
//! };
//! let registration = registration?;
//! // Registering fires `toolchange` in the page.
//! assert_eq!(session.poll_effect(), Some(Effect::ToolChange));
//! let unregister = Input::Unregister { name: "add_to_cart".into(), registration: Some(registration) };
//! assert_eq!(session.handle(unregister, 1), Answer::Unregistered(Some(registration)));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where things are: origin decisions in `provider.rs` (who may list, call, cancel, connect) and `calls.rs` (who may
//! answer a call); message shapes in [`crate::envelope`]; journal transitions in [`crate::journal`]; routing of
//! every message in `outbox.rs`; deadlines in `timers.rs`.

mod calls;
mod catalog;
mod forms;
mod from_native;
pub mod ids;
mod io;
mod journals;
mod listing;
mod outbox;
mod peers;
mod provider;
mod random;
mod recovery;
#[cfg(feature = "record")]
pub mod tape;
mod timers;

use crate::index_map::IndexMap;

pub use catalog::RegisterError;
// Defined beside the calls channel's codec, which reads and writes them; the session hands them out.
pub use crate::calls_channel::{ObservedCall, ObservedStatus};
pub use forms::FormProblem;
pub use from_native::UNREGISTERED_MESSAGE;
pub use ids::{FormId, Locator, PeerId, PortId, Registration, RunId, WaiterId, WindowId};
pub use io::{
    Answer, CallRefusal, CallRequest, CallTarget, Departure, Effect, Finished, FormDefinition, FromNative, Input,
    ListRequest, ListedTool, RunResult, ThrownAs, ToolSpec, WindowFacts,
};
pub use journals::JournalsOpening;
pub use random::{Entropy, EntropyError, id_text};
pub use timers::{
    ACK_BATCH, ACK_DELAY_MS, HANDSHAKE_WAIT_MS, HELD_ERROR_MS, LIVENESS_MS, SILENT_PROVIDER_MS, STATUS_RETRY_MS,
};

use crate::envelope::{Decoded, EnvelopeError, Message, decode, decode_batch};
use crate::fifo::Fifo;
use crate::guard::{OriginRateLimiter, RefusalKind, WarningDecision, WarningGate};
use crate::ids::RequestId;
use crate::limits::Limits;
use crate::origin::{Origin, OriginList, TupleOrigin, WindowOrigin};
use crate::sorted_map::SortedMap;
use catalog::Catalog;
use forms::Forms;
use io::Asked;
use journals::{Deferred, Journals};
use listing::Listing;
use peers::{Peers, Sender, Via};
use random::IdSource;
use timers::{Timer, Timers};

/// What a page's session is set up with.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// The page's origin (`window.origin`; opaque in a sandboxed frame).
    pub own_origin: WindowOrigin,
    /// The origins that may see the page's tools (`expose-tools-to`), for tools without an `exposedTo` of their own.
    pub expose_tools_to: OriginList,
    /// Message and flood limits.
    pub limits: Limits,
    /// How long a listing waits for windows that have not answered (ms).
    pub discovery_timeout_ms: u32,
    /// How long after a provider's change notice its tools are listed again (ms).
    pub toolchange_debounce_ms: u32,
    /// How long journal changes may wait before they are written, batched (ms).
    pub flush_delay_ms: u32,
    /// The page has the browser's native WebMCP: tools are registered there too.
    pub native: bool,
}

/// How long a listing waits for windows that have not answered, unless the page says otherwise (ms).
pub const DISCOVERY_TIMEOUT_MS: u32 = 500;
/// How long after a provider's change notice its tools are listed again, unless the page says otherwise (ms).
pub const TOOLCHANGE_DEBOUNCE_MS: u32 = 300;
/// How long journal changes may wait before they are written, unless the page says otherwise (ms).
pub const FLUSH_DELAY_MS: u32 = 50;

impl Config {
    /// A page at `own_origin` exposing its tools to `expose_tools_to`, with the default limits and timings.
    pub fn new(own_origin: WindowOrigin, expose_tools_to: OriginList) -> Self {
        Self {
            own_origin,
            expose_tools_to,
            limits: Limits::default(),
            discovery_timeout_ms: DISCOVERY_TIMEOUT_MS,
            toolchange_debounce_ms: TOOLCHANGE_DEBOUNCE_MS,
            flush_delay_ms: FLUSH_DELAY_MS,
            native: false,
        }
    }
}

/// A call of this page that someone in this page waits for.
#[derive(Debug)]
struct PendingCall {
    peer: PeerId,
    /// When it was sent, or its provider last said it runs (ms since the epoch).
    since: u64,
    waiters: Vec<WaiterId>,
}

/// A call of another window (or of this page) that runs one of this page's tools.
#[derive(Debug)]
struct Running {
    run: RunId,
    /// Where the outcome goes: the latest window (or port) that asked about the call.
    reply_to: Sender,
}

/// A call is known to the provider by its caller's origin and its id on the wire.
type RunKey = (WindowOrigin, RequestId);

/// All of the protocol's state for one page. See the [module docs](self).
pub struct Session {
    config: Config,
    now: u64,
    ids: IdSource,
    catalog: Catalog,
    /// The page's declarative forms, and which of them are tools.
    forms: Forms,
    peers: Peers,
    windows: SortedMap<WindowId, WindowFacts>,
    journals: Option<Journals>,
    /// Work that waits until the journals are open.
    deferred: Vec<Deferred>,
    /// The calls this page makes.
    outgoing: Outgoing,
    /// The calls of other windows (or of this page) that run this page's tools.
    incoming: Incoming,
    /// The tool lists this page asked for.
    listing: Listings,
    /// What waits for the end of the task: acknowledgements, messages to itself, call statuses.
    outbox: Outbox,
    rate: OriginRateLimiter,
    warnings: WarningGate,
    timers: Timers,
    effects: Fifo<Effect>,
    next_port: u32,
    /// What the page's document is about to do: whether going away stops its calls.
    departure: Departure,
}

/// The calls this page makes: who waits for each, and the silent providers asked how one stands.
#[derive(Default)]
struct Outgoing {
    /// This page's calls that someone in it waits for, by wire id.
    calls: IndexMap<RequestId, PendingCall>,
    /// Which call each waiter waits for.
    waiting_on: SortedMap<WaiterId, RequestId>,
    /// How many times each silent provider was asked how a call stands.
    status_retries: SortedMap<RequestId, usize>,
    /// Which peer each of those questions goes to.
    status_asker: SortedMap<RequestId, PeerId>,
}

/// The calls that run this page's tools, by their caller's origin and wire id, and by run.
struct Incoming {
    running: IndexMap<RunKey, Running>,
    runs: SortedMap<RunId, RunKey>,
    next_run: u32,
    /// Errors that runs threw while the page seemed to be leaving, in order (provider.rs `tool_settled`).
    held: Vec<(RunId, RunResult)>,
}

/// The tool lists this page asked for.
struct Listings {
    listings: SortedMap<u32, Listing>,
    /// Tool-list requests this page sent, by request id.
    asked: SortedMap<RequestId, Asked>,
    next_listing: u32,
    /// Origins whose tool changes this page cares about: its own (`None`: its tools are always listed) and every
    /// exact origin of a `fromOrigins` it asked (the entry, to list again from that origin without parsing).
    interest: Vec<(TupleOrigin, Option<Origin>)>,
}

/// What leaves at the end of the task.
#[derive(Default)]
struct Outbox {
    /// Call requests to other windows, held to the end of the task that made them (or until
    /// [`outbox::EARLY_BATCH_LEN`] gather): a call stopped in that task is taken back before any provider hears of
    /// it, whether its request would have gone on a port or by window (docs/once-only.md §4).
    requests: Vec<Message>,
    /// Acknowledgements to send, by provider.
    acks: SortedMap<PeerId, Vec<RequestId>>,
    /// Send every waiting acknowledgement at the end of this task.
    acks_due: bool,
    /// Messages from this page to itself, delivered at the end of the task.
    loopback: Vec<Message>,
    /// Statuses of this page's calls for the other pages of the origin.
    announcements: Vec<ObservedCall>,
    /// Whether another page of the origin listens for them (it said so on the calls channel).
    watched: bool,
    end_of_task_asked: bool,
}

impl Session {
    /// A session for a page; its journals open later ([`Session::open_journals`]).
    pub fn new(config: Config, entropy: Box<dyn Entropy>) -> Self {
        let interest = config.own_origin.tuple().map(|own| (own.clone(), None)).into_iter().collect();
        Self {
            peers: Peers::new(&config.own_origin),
            rate: OriginRateLimiter::for_get_tools(&config.limits),
            warnings: WarningGate::new(&config.limits),
            config,
            now: 0,
            ids: IdSource::new(entropy),
            catalog: Catalog::default(),
            forms: Forms::default(),
            windows: SortedMap::new(),
            journals: None,
            deferred: Vec::new(),
            outgoing: Outgoing::default(),
            incoming: Incoming { running: IndexMap::new(), runs: SortedMap::new(), next_run: 1, held: Vec::new() },
            listing: Listings { listings: SortedMap::new(), asked: SortedMap::new(), next_listing: 1, interest },
            outbox: Outbox::default(),
            timers: Timers::default(),
            effects: Fifo::default(),
            next_port: 1,
            departure: Departure::Stays,
        }
    }

    /// The session's settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A name for a port: one this page opens, or one that came with a message ([`Input::NewPort`]).
    pub(crate) fn new_port_id(&mut self) -> PortId {
        let id = PortId(self.next_port);
        self.next_port += 1;
        id
    }

    /// The next thing to do, if any.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.effects.pop_front()
    }

    /// When [`Session::handle_timeout`] should be called next (ms since the epoch).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.timers.next()
    }

    /// The peer through which native WebMCP reaches the tools of `window` at `origin` (the tools `getTools`
    /// listed on native's path), created when new.
    fn native_peer(&mut self, window: WindowId, origin: &WindowOrigin) -> PeerId {
        let locator = self.windows.get(&window).map(|f| f.locator.clone()).unwrap_or(Locator::Unknown);
        self.peers.native(window, origin, &locator)
    }

    /// One event, at `now` (ms since the epoch). What it leads to is queued as effects; the page's requests that
    /// need a name or a verdict at once ([`Input::Register`], [`Input::Unregister`], [`Input::NewPort`],
    /// [`Input::NativePeer`]) are answered here too.
    pub fn handle(&mut self, input: Input, now: u64) -> Answer {
        self.now = self.now.max(now);
        match input {
            Input::Register { spec } => return Answer::Registered(self.add_tool(*spec, false, None)),
            Input::Unregister { name, registration } => {
                return Answer::Unregistered(self.remove_tool(&name, registration, false));
            }
            Input::NewPort => return Answer::Port(self.new_port_id()),
            Input::NativePeer { window, origin } => return Answer::Peer(self.native_peer(window, &origin)),
            Input::WindowMessage { window, origin, text, port } => {
                let ours = self.on_window_message(window, origin, text, port);
                return Answer::Heard { ours };
            }
            Input::UnreadMessage { origin, category } => {
                let what = match category {
                    crate::envelope::ErrorCategory::TooLarge => format!(
                        "a malformed message (message is over {} bytes; not read)",
                        self.config.limits.max_message_bytes
                    ),
                    _ => "a message that is not JSON".to_owned(),
                };
                self.refuse(RefusalKind::Envelope(category), &origin, &what);
            }
            Input::PortBatch { port, text } => self.on_port_batch(port, &text),
            Input::OversizedBatch(port) => self.refuse_batch(port, "a port batch larger than the limit, unread"),
            Input::UnreadableBatch(port) => {
                self.refuse_batch(port, "a port message that is neither a string nor UTF-8 bytes, unread")
            }
            Input::ListTools(request) => self.list_tools(request),
            Input::Execute(request) => self.execute(request),
            Input::FromNative(call) => self.call_from_native(call),
            Input::Stop(waiter) => self.stop_waiter(waiter),
            Input::Abandon(waiter) => self.abandon_waiter(waiter),
            Input::ToolSettled { run, result } => self.tool_settled(run, result),
            Input::FrameLoaded(window) => self.frame_loaded(window),
            Input::WindowsClosed(closed) => self.check_liveness(&closed),
            Input::EndOfTask => self.end_of_task(),
            Input::Hidden => self.flush_journals(),
            Input::GoingAway => self.going_away(),
            Input::Navigating(departure) => self.navigating(departure),
            Input::CallsChannel(text) => self.on_calls_channel(&text),
            Input::NativeSettled { wire_id, result } => {
                self.when_journals_open(Deferred::NativeSettled(wire_id, result))
            }
            Input::WindowSeen { window, facts } => {
                self.windows.insert(window, facts);
            }
            Input::Form { form, definition } => self.on_form(form, definition),
            Input::WarnOwn { kind, text } => {
                let own = self.config.own_origin.clone();
                self.warn(kind, &own, &text);
            }
            Input::PostFailed { origin, error } => {
                let text = format!("could not post to {origin}: {error}");
                self.warn(RefusalKind::PostFailed, &WindowOrigin::Tuple(origin), &text)
            }
        }
        Answer::Queued
    }

    /// Runs the timers due at `now`.
    pub fn handle_timeout(&mut self, now: u64) {
        self.now = self.now.max(now);
        for timer in self.timers.take_due(self.now) {
            match timer {
                Timer::Listing(id) => self.finish_listing(id),
                Timer::Acks => {
                    self.outbox.acks_due = true;
                    self.ask_end_of_task();
                }
                Timer::JournalFlush => self.flush_journals(),
                Timer::Relist(peer) => self.relist(peer),
                Timer::StatusRetry(wire) => self.retry_status(wire),
                Timer::CallTimeout(wire) => self.time_out(&wire),
                Timer::Liveness => self.probe_liveness(),
                Timer::HeldErrors => self.held_errors_due(),
            }
        }
    }

    /// A message of a window: refused from an opaque origin (it cannot be answered without `'*'`), decoded, and
    /// handled; a malformed one is refused, with an error reply when it was a call that can be answered. Says whether
    /// the message was the bridge's ([`Answer::Heard`]).
    fn on_window_message(
        &mut self,
        window: WindowId,
        origin: WindowOrigin,
        text: String,
        port: Option<PortId>,
    ) -> bool {
        let WindowOrigin::Tuple(tuple) = &origin else {
            if let Some(port) = port {
                self.effects.push_back(Effect::ClosePort(port));
            }
            self.refuse(
                RefusalKind::OpaqueOrigin,
                &origin,
                "a message from an opaque origin (a sandboxed frame): it cannot be answered without '*'",
            );
            return true;
        };
        let decoded = decode(&text, &self.config.limits);
        let transferred = match (&decoded, port) {
            (Ok(Decoded::Message(Message::Connect { .. })), Some(port)) => Some(port),
            (_, Some(port)) => {
                self.effects.push_back(Effect::ClosePort(port));
                None
            }
            (_, None) => None,
        };
        match decoded {
            Ok(Decoded::NotOurs) => false,
            Ok(Decoded::Message(message)) => {
                let ours = self.awaits(&message);
                let peer = self.peer_for(window, tuple);
                self.heard_from(peer);
                self.on_message(Sender { peer, origin, via: Via::Window }, message, transferred);
                ours
            }
            Err(error) => {
                let peer = self.peer_for(window, tuple);
                self.malformed(&Sender { peer, origin, via: Via::Window }, &error);
                true
            }
        }
    }

    /// Whether `message` is for this page's bridge: every request and notice is; a response only when it answers a
    /// request of the bridge's: a listing it asked for, a call of its own not settled yet (while the journals are not
    /// open yet, every call result counts as one), a status it is asking about.
    fn awaits(&self, message: &Message) -> bool {
        match message {
            Message::GetToolsResponse(response) => self.listing.asked.contains_key(&response.request_id),
            Message::ExecuteResponse(response) => self.journals.as_ref().is_none_or(|journals| {
                journals
                    .consumer
                    .get(&response.request_id)
                    .is_some_and(|entry| !matches!(entry.phase(), crate::journal::CallPhase::Settled { .. }))
            }),
            Message::CallStatusResponse(status) => self.outgoing.status_asker.contains_key(&status.request_id),
            _ => true,
        }
    }

    /// A batch on a private port: refused when the port is not a live peer's; each envelope handled in order.
    fn on_port_batch(&mut self, port: PortId, text: &str) {
        let Some((peer, side)) = self.peers.port_owner(port) else { return };
        let Some(origin) = self.peers.get(peer).filter(|p| !p.gone).map(|p| p.origin.clone()) else { return };
        self.heard_from(peer);
        let from = Sender { peer, origin, via: Via::Port(side) };
        match decode_batch(text, &self.config.limits) {
            Ok(items) => {
                for item in items {
                    match item {
                        Ok(Decoded::Message(message)) => self.on_message(from.clone(), message, None),
                        Ok(Decoded::NotOurs) => {}
                        Err(error) => self.malformed(&from, &error),
                    }
                }
            }
            Err(error) => self.malformed(&from, &error),
        }
    }

    fn refuse_batch(&mut self, port: PortId, what: &str) {
        if let Some(origin) = self.port_origin(port) {
            self.refuse(RefusalKind::Envelope(crate::envelope::ErrorCategory::BadBatch), &origin, what);
        }
    }

    fn port_origin(&self, port: PortId) -> Option<WindowOrigin> {
        let (peer, _) = self.peers.port_owner(port)?;
        self.peers.get(peer).map(|p| p.origin.clone())
    }

    /// The peer of `window` at `origin`, created with what the driver said of the window.
    fn peer_for(&mut self, window: WindowId, origin: &TupleOrigin) -> PeerId {
        let locator = self.windows.get(&window).map(|f| f.locator.clone()).unwrap_or(Locator::Unknown);
        self.peers.upsert(window, origin, &locator)
    }

    /// Notes that a message of `peer` arrived now (once per window message or port batch), for the silence
    /// the liveness check watches.
    fn heard_from(&mut self, peer: PeerId) {
        let now = self.now;
        if let Some(peer) = self.peers.get_mut(peer) {
            peer.last_heard = now;
        }
    }

    /// One decoded message.
    fn on_message(&mut self, from: Sender, message: Message, port: Option<PortId>) {
        match message {
            Message::GetToolsRequest { request_id, bridge } => self.on_get_tools(&from, request_id, bridge),
            Message::Connect { request_id, utf8_batches } => self.on_connect(&from, request_id, utf8_batches, port),
            Message::GetToolsResponse(response) => self.on_tools_listed(&from, response),
            Message::ToolsChanged => self.on_tools_changed(&from),
            Message::Connected { request_id, utf8_batches } => self.on_connected(&from, &request_id, utf8_batches),
            other => self.when_journals_open(Deferred::Message(from, other)),
        }
    }

    /// A message that needs the journals, once they are open.
    fn on_journal_message(&mut self, from: Sender, message: Message) {
        match message {
            Message::ExecuteRequest(request) => self.on_execute(&from, request),
            Message::CancelTool { request_id } => self.on_cancel(&from, &request_id),
            Message::CallStatusRequest { request_id } => self.on_status_request(&from, request_id),
            Message::CallAck { request_ids } => self.on_ack(&from, &request_ids),
            Message::ExecuteResponse(response) => self.on_execute_response(&from, response),
            Message::CallStatusResponse(status) => self.on_status_response(&from, status),
            Message::GoingAway => self.on_going_away(&from),
            Message::GetToolsRequest { .. }
            | Message::Connect { .. }
            | Message::GetToolsResponse(_)
            | Message::ToolsChanged
            | Message::Connected { .. } => {}
        }
    }

    /// A message of ours that breaks a rule: ignored, except an execute request with a usable id, which gets an
    /// error reply so that its caller is not left waiting.
    fn malformed(&mut self, from: &Sender, error: &EnvelopeError) {
        self.refuse(RefusalKind::Envelope(error.category()), &from.origin, &format!("a malformed message ({error})"));
        if let Some(reply) = error.error_reply() {
            self.reply(from, &Message::ExecuteResponse(reply));
        }
    }

    /// A console warning about a refusal, unless one like it was printed recently.
    fn refuse(&mut self, kind: RefusalKind, origin: &WindowOrigin, what: &str) {
        self.warn(kind, origin, &format!("refused {what} from {origin}"));
    }

    /// A console warning, unless one of `kind` about `origin` was printed recently: every warning goes through
    /// here, so that nothing another window does can flood the console.
    fn warn(&mut self, kind: RefusalKind, origin: &WindowOrigin, text: &str) {
        if let WarningDecision::Print { suppressed } = self.warnings.check(kind, origin.serialization(), self.now) {
            let more = if suppressed > 0 {
                format!(" ({suppressed} more like it since the last warning)")
            } else {
                String::new()
            };
            self.effects.push_back(Effect::Warn(format!("{text}{more}")));
        }
    }

    fn ask_end_of_task(&mut self) {
        if !self.outbox.end_of_task_asked {
            self.outbox.end_of_task_asked = true;
            self.effects.push_back(Effect::EndOfTask);
        }
    }
}
