#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "the simulator's checks are assertions: a failed one is a failed test"
)]
//! A simulator of four windows and the browser between them, each page a whole [`Session`], under random
//! interleavings of listings, calls, tool runs, deliveries, lost and duplicated messages, forged messages, stops,
//! reloads and the clock.
//!
//! The windows: a top page of origin A (window 0) with three frames: a page of origin B (window 1), a forger of
//! origin E (window 2, not a bridge: it sends messages that reuse every request id it could have seen) and a second
//! page of origin A (window 3). A and B expose their tools to each other; E sees nothing. Every page names the
//! other windows by ids of its own.
//!
//! The browser: a `postMessage` reaches the window only if its current document has the origin it was addressed
//! to, with the sender's real origin; a port travels with its message, and the batches posted on one end reach the
//! other while neither end is closed; a reload replaces a page by a new session over the same sessionStorage, and
//! tells a parent that watches the frame.
//!
//! The second page of origin A also forges now and then, from its own window, with the ids of its neighbour's
//! calls (the web's origin model lets it: it may cancel or ask about them, but never make one run twice).
//!
//! Checked in every scenario, then again after the network drained and every timer ran:
//! - every waiter of a page still alive settles exactly once (a `Settle`, or a `Listed`), no waiter twice; every
//!   call has at most one `toolresult` per page of its frame, and the page that settled its waiter reports the
//!   same outcome in it; nothing the forger sent is ever an outcome. (A call without time limit one of whose
//!   messages the scenario lost may wait: browsers do not lose messages between live documents, and a page that
//!   posted a request waits for its answer. A call refused before it starts settles with no `toolresult`.)
//! - each call's tool runs at most once (per call id, and per caller origin and wire id), over every page and
//!   reload; never for the origin that sees no tool;
//! - each answer about a call (its result, its status) goes only to a window that asked about it, at the origin it
//!   asked from; each request about a call goes only to the window the call was sent to, at its origin;
//! - the origin that sees no tool receives no tool list with a tool in it and no notice that tools changed.

mod session_support;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm};

use interpane_policy::envelope::{
    CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, Message, ToolDescriptor,
};
use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{
    CallRequest, Config, Departure, Effect, Input, ListRequest, ListedTool, Locator, PeerId, PortId, RunId, RunResult,
    WaiterId, WindowId,
};
use interpane_policy::{ErrorKind, OriginList, RequestId, ToolError, decode};
use session_support::{
    JournalSetup, PageSession, SharedStore, T0, batch_messages, json, name, open_journals_with, rid, tool,
};

const A: &str = "https://a.example";
const B: &str = "https://b.example";
const E: &str = "https://evil.example";
/// Window 2 is the forger.
const FORGER: usize = 2;
const PAGES: [usize; 3] = [0, 1, 3];
const ORIGINS: [&str; 4] = [A, B, E, A];

/// What a scenario does, one step at a time.
#[derive(Debug, Clone)]
enum Action {
    /// A page lists the tools of the windows around it.
    List(u8),
    /// A page calls one of the tools it listed (`pick`), or one of its own (`own`), maybe with a time limit.
    Call { page: u8, pick: u8, own: bool, timeout: bool },
    /// A message in flight arrives.
    Deliver(u8),
    /// A message in flight arrives twice.
    Duplicate(u8),
    /// A message in flight is lost.
    Lose(u8),
    /// A tool run ends: it returns, or throws.
    Finish { pick: u8, throw: bool },
    /// A caller gives up.
    Stop(u8),
    /// The forger sends something with an id it saw; or the second page of origin A does, from its window.
    Forge { kind: u8, target: u8, pick: u8, same_origin: bool },
    /// A frame reloads: after `pagehide` (clean) or not (a crash).
    Reload { page: u8, clean: bool },
    /// A frame navigates to another page of its origin (the page said it leaves, then `pagehide`): the calls it
    /// waits on stop, and the next page resumes none of them.
    Leave(u8),
    /// Time passes.
    Tick(u16),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => (0u8..3).prop_map(Action::List),
        6 => (0u8..3, any::<u8>(), proptest::bool::weighted(0.2), proptest::bool::weighted(0.2))
            .prop_map(|(page, pick, own, timeout)| Action::Call { page, pick, own, timeout }),
        16 => any::<u8>().prop_map(Action::Deliver),
        1 => any::<u8>().prop_map(Action::Duplicate),
        1 => any::<u8>().prop_map(Action::Lose),
        5 => (any::<u8>(), proptest::bool::weighted(0.3)).prop_map(|(pick, throw)| Action::Finish { pick, throw }),
        1 => any::<u8>().prop_map(Action::Stop),
        3 => (0u8..10, 0u8..3, any::<u8>(), proptest::bool::weighted(0.3))
            .prop_map(|(kind, target, pick, same_origin)| Action::Forge { kind, target, pick, same_origin }),
        1 => (0u8..2, any::<bool>()).prop_map(|(page, clean)| Action::Reload { page, clean }),
        1 => (0u8..2).prop_map(Action::Leave),
        3 => prop_oneof![1u16..100, 100u16..4000].prop_map(Action::Tick),
    ]
}

fn page_index(page: u8) -> usize {
    PAGES[usize::from(page) % PAGES.len()]
}

/// How window `i` names window `j`: every page has its own ids.
fn local(i: usize, j: usize) -> WindowId {
    WindowId(u32::try_from(100 * (i + 1) + j).unwrap())
}

/// The window page `i` names `id`.
fn global(i: usize, id: WindowId) -> usize {
    let j = id.0 as usize - 100 * (i + 1);
    assert!(j < ORIGINS.len() && j != i, "page {i} used a window id it was never given: {id:?}");
    j
}

/// Where window `j` sits, as window `i` sees it.
fn locator(i: usize, j: usize) -> Locator {
    match (i, j) {
        (0, j) => Locator::Frame(u32::try_from(j - 1).unwrap()),
        (_, 0) => Locator::Parent,
        (_, j) => Locator::ParentFrame(u32::try_from(j - 1).unwrap()),
    }
}

/// One page: a session and what the driver keeps for it.
struct Window {
    session: PageSession,
    generation: u32,
    /// Its frame's sessionStorage, which outlives the page.
    store: SharedStore,
    /// The tools it listed last.
    listed: Vec<ListedTool>,
    /// Frames it watches (by its own ids).
    watched: BTreeSet<WindowId>,
    /// Its waiters and what they wait for: a call (its call id), or a listing (`None`).
    waiters: BTreeMap<WaiterId, Option<String>>,
}

/// One end of a private port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    window: usize,
    generation: u32,
    port: PortId,
}

#[derive(Debug, Clone)]
enum Delivery {
    Window { to: usize, generation: u32, from: usize, origin: String, text: String, port: Option<End> },
    Port { from: End, to: End, text: String },
}

/// A run of a tool in a page.
#[derive(Debug)]
struct Run {
    window: usize,
    generation: u32,
    run: RunId,
}

struct Sim {
    now: u64,
    windows: Vec<Option<Window>>,
    net: VecDeque<Delivery>,
    /// Port pairs, both ends, while open.
    pairs: BTreeMap<End, End>,
    /// Every pair ever made, so that what is posted on a dead port is still checked against its destination.
    ever_paired: BTreeMap<End, End>,
    /// Ends closed by their own page (or gone with it): what was posted to them is dropped. What an end posted
    /// before it closed still arrives, as in browsers.
    closed: BTreeSet<End>,
    /// Ends made by a sender whose message has not arrived yet.
    unpaired: BTreeSet<End>,
    runs: Vec<Run>,
    next_waiter: u64,
    next_call: u32,
    /// Every request id any message carried (the forger's knowledge).
    seen_ids: Vec<RequestId>,
    /// (provider window, wire id) → the (window, origin) that asked about it.
    askers: BTreeMap<(usize, String), BTreeSet<(usize, String)>>,
    /// (caller window, wire id) → the (window, origin) its request went to.
    sent_to: BTreeMap<(usize, String), (usize, String)>,
    /// How often each call's tool ran (by the call id the arguments carry).
    ran: BTreeMap<String, u32>,
    /// How often a tool ran per (caller origin, wire id) (the wire id of a page's own call is its call id).
    /// Runs by provider page, caller origin and wire id: each provider's journal keeps its own calls, so the same
    /// (origin, id) sent to two providers is two calls.
    ran_per_key: BTreeMap<(usize, String, String), u32>,
    /// The origin of the message being delivered, if any.
    delivering: Option<String>,
    /// The wire id of each call id.
    wire_of_call: BTreeMap<String, String>,
    /// Settles per (window, generation, waiter), with the outcome.
    settled: BTreeMap<(usize, u32, WaiterId), Vec<Option<CallOutcome>>>,
    /// The call id of each wire id, from the requests' arguments.
    call_of_wire: BTreeMap<String, String>,
    /// Calls a lost message was about: a page that posted a request waits for its answer (browsers do not lose
    /// messages between live documents), so only their time limits or stops settle these.
    lost_calls: BTreeSet<String>,
    /// Calls with a time limit: they settle whatever is lost.
    limited: BTreeSet<String>,
    /// Waiters whose call was refused before it started.
    refused_at_start: BTreeSet<(usize, u32, WaiterId)>,
    /// `toolresult`s per (window, generation, call id).
    results: BTreeMap<(usize, u32, String), Vec<CallOutcome>>,
    log: Vec<String>,
}

impl Sim {
    fn new() -> Self {
        let mut sim = Self {
            now: T0,
            windows: (0..ORIGINS.len()).map(|_| None).collect(),
            net: VecDeque::new(),
            pairs: BTreeMap::new(),
            closed: BTreeSet::new(),
            ever_paired: BTreeMap::new(),
            unpaired: BTreeSet::new(),
            runs: Vec::new(),
            next_waiter: 1,
            next_call: 1,
            seen_ids: Vec::new(),
            askers: BTreeMap::new(),
            sent_to: BTreeMap::new(),
            ran: BTreeMap::new(),
            ran_per_key: BTreeMap::new(),
            delivering: None,
            wire_of_call: BTreeMap::new(),
            settled: BTreeMap::new(),
            results: BTreeMap::new(),
            refused_at_start: BTreeSet::new(),
            call_of_wire: BTreeMap::new(),
            lost_calls: BTreeSet::new(),
            limited: BTreeSet::new(),
            log: Vec::new(),
        };
        for (i, origin) in ORIGINS.iter().enumerate() {
            if i == FORGER {
                continue;
            }
            let window = sim.load(i, origin, SharedStore::durable(), 0, JournalSetup::default());
            sim.windows[i] = Some(window);
        }
        for i in PAGES {
            sim.pump(i);
        }
        sim
    }

    /// A new page in window `i`.
    fn load(&mut self, i: usize, origin: &str, mut store: SharedStore, generation: u32, setup: JournalSetup) -> Window {
        let expose = if origin == A { B } else { A };
        let config = Config::new(session_support::origin(origin), OriginList::parse(expose).unwrap());
        let seed = (i as u64 + 1) * 1000 + u64::from(generation);
        let mut session = PageSession::new(config, Box::new(session_support::Seeded::new(seed)));
        session_support::register(&mut session, tool("add"), self.now);
        session_support::register(&mut session, tool("checkout"), self.now);
        let around = (0..ORIGINS.len()).filter(|j| *j != i).map(|j| (local(i, j), locator(i, j))).collect();
        let slot = if i == 0 { "top".to_owned() } else { format!("top/{}", i - 1) };
        open_journals_with(&mut session, &mut store, ("tab1", &slot), around, setup, self.now);
        // The calls channel's hello: a page with a same-origin page beside it hears that it listens.
        if (0..ORIGINS.len()).any(|j| j != i && ORIGINS[j] == origin) {
            session.handle(Input::CallsChannel(interpane_policy::calls_channel::ANSWER.to_owned()), self.now);
        }
        Window { session, generation, store, listed: Vec::new(), watched: BTreeSet::new(), waiters: BTreeMap::new() }
    }

    fn origin(&self, j: usize) -> &'static str {
        ORIGINS[j]
    }

    fn generation(&self, j: usize) -> u32 {
        self.windows[j].as_ref().map_or(0, |w| w.generation)
    }

    fn handle(&mut self, i: usize, input: Input) {
        let now = self.now;
        if let Some(window) = self.windows[i].as_mut() {
            window.session.handle(input, now);
        }
        self.pump(i);
    }

    /// Carries out everything page `i` queued, as its driver does.
    fn pump(&mut self, i: usize) {
        let mut end_of_task = false;
        loop {
            let Some(window) = self.windows[i].as_mut() else { return };
            let Some(effect) = window.session.poll_effect() else {
                if std::mem::take(&mut end_of_task) {
                    let now = self.now;
                    window.session.handle(Input::EndOfTask, now);
                    continue;
                }
                return;
            };
            match effect {
                Effect::EndOfTask => end_of_task = true,
                Effect::WriteJournals => window.session.write_journals(&mut window.store, self.now),
                Effect::ProbeWindows(_) => {
                    // No window ever closes here (a reloaded frame is the same window).
                    let now = self.now;
                    window.session.handle(Input::WindowsClosed(Vec::new()), now);
                }
                other => self.carry_out(i, other),
            }
        }
    }

    fn carry_out(&mut self, i: usize, effect: Effect) {
        let generation = self.generation(i);
        match effect {
            Effect::Post { window, origin, message, open_port } => {
                let j = global(i, window);
                self.check_outgoing(i, j, origin.as_str(), &message);
                let port = open_port.map(|port| End { window: i, generation, port });
                if let Some(end) = port {
                    self.unpaired.insert(end);
                }
                self.post(i, j, origin.as_str(), &message.encode(), port);
            }
            Effect::PostAround { message, origins } => {
                for j in 0..ORIGINS.len() {
                    if j != i && origins.iter().any(|o| o.as_str() == self.origin(j)) {
                        let origin = self.origin(j).to_owned();
                        self.check_outgoing(i, j, &origin, &message);
                        self.post(i, j, &origin, &message.encode(), None);
                    }
                }
            }
            Effect::PostBatch { port, batch, .. } => {
                let from = End { window: i, generation, port };
                if let Some(to) = self.pairs.get(&from).copied() {
                    let origin = self.origin(to.window).to_owned();
                    for message in batch_messages(&batch) {
                        self.check_outgoing(i, to.window, &origin, &message);
                    }
                    self.net.push_back(Delivery::Port { from, to, text: batch });
                } else {
                    assert!(!self.unpaired.contains(&from), "page {i} posted on a port before its peer had it");
                    self.log.push(format!("  {i}: posted on a dead port: {batch}"));
                    if let Some(to) = self.ever_paired.get(&from).copied() {
                        let origin = self.origin(to.window).to_owned();
                        for message in batch_messages(&batch) {
                            self.check_outgoing(i, to.window, &origin, &message);
                        }
                    }
                }
            }
            Effect::AcceptPort(_) => {}
            Effect::ClosePort(port) => {
                let end = End { window: i, generation, port };
                self.unpaired.remove(&end);
                self.closed.insert(end);
                if let Some(other) = self.pairs.remove(&end) {
                    self.pairs.remove(&other);
                }
            }
            Effect::RunTool { run, args, .. } => {
                let call = args.to_value().unwrap()["call"].as_str().unwrap_or_default().to_owned();
                *self.ran.entry(call.clone()).or_default() += 1;
                let caller = self.delivering.clone().unwrap_or_else(|| self.origin(i).to_owned());
                assert!(caller != E, "page {i} ran a tool for the origin that sees none: {call}");
                let wire = match call.strip_prefix("forged:") {
                    Some(wire) => wire.to_owned(),
                    None => self.wire_of_call.get(&call).cloned().unwrap_or_else(|| call.clone()),
                };
                *self.ran_per_key.entry((i, caller, wire)).or_default() += 1;
                self.log.push(format!("  {i}: runs {call}"));
                self.runs.push(Run { window: i, generation, run });
            }
            Effect::AbortRun(_) => {}
            Effect::Settle { waiter, outcome } => {
                self.log.push(format!("  {i}: settles {waiter:?} {outcome:?}"));
                self.settled.entry((i, generation, waiter)).or_default().push(Some(outcome));
            }
            Effect::Listed { waiter, tools } => {
                self.settled.entry((i, generation, waiter)).or_default().push(None);
                if let Some(window) = self.windows[i].as_mut() {
                    window.listed = tools;
                }
            }
            Effect::ToolResult(finished) => {
                self.results.entry((i, generation, finished.call_id)).or_default().push(finished.outcome);
            }
            Effect::WatchFrame(window) => {
                if let Some(w) = self.windows[i].as_mut() {
                    w.watched.insert(window);
                }
            }
            Effect::PostCalls(text) => {
                for j in PAGES {
                    if j != i && self.origin(j) == self.origin(i) {
                        self.handle(j, Input::CallsChannel(text.clone()));
                    }
                }
            }
            Effect::ToolChange
            | Effect::ToolStatus(_)
            | Effect::ToNative { .. }
            | Effect::UnregisterFromNative(_)
            | Effect::Warn(_)
            | Effect::Ready => {}
            Effect::EndOfTask | Effect::ProbeWindows(_) | Effect::WriteJournals => unreachable!("handled by pump"),
            Effect::RefuseCall { error, .. } => panic!("the simulator's calls have valid arguments: {error}"),
            Effect::CallNative { .. } | Effect::AbortNative(_) => unreachable!("no page here lists on native's path"),
            Effect::FormTool { .. } => unreachable!("no page here has declarative forms"),
        }
    }

    /// A `postMessage` from window `i` to window `j` addressed to `origin`: the browser drops it unless `j`'s
    /// document is of that origin.
    fn post(&mut self, i: usize, j: usize, origin: &str, text: &str, port: Option<End>) {
        if self.origin(j) != origin {
            return;
        }
        let generation = self.generation(j);
        let from_origin = self.origin(i).to_owned();
        self.net.push_back(Delivery::Window {
            to: j,
            generation,
            from: i,
            origin: from_origin,
            text: text.to_owned(),
            port,
        });
    }

    /// What page `i` sends to window `j` at `origin`: checked against who asked, before the browser drops anything.
    fn check_outgoing(&mut self, i: usize, j: usize, origin: &str, message: &Message) {
        self.remember_ids(message);
        let about_call = |id: &RequestId| id.as_str().to_owned();
        match message {
            Message::ExecuteResponse(ExecuteResponse { request_id, .. })
            | Message::CallStatusResponse(CallStatusResponse { request_id, .. }) => {
                let askers = self.askers.get(&(i, about_call(request_id)));
                assert!(
                    askers.is_some_and(|a| a.contains(&(j, origin.to_owned()))),
                    "page {i} sent an answer about {request_id:?} to window {j} at {origin}, which never asked (askers: {askers:?})"
                );
            }
            Message::ExecuteRequest(ExecuteRequest { request_id, args, .. }) => {
                if let Some(call) = args.to_value().unwrap()["call"].as_str()
                    && !call.starts_with("forged")
                {
                    self.call_of_wire.insert(request_id.as_str().to_owned(), call.to_owned());
                    self.wire_of_call.insert(call.to_owned(), request_id.as_str().to_owned());
                }
                let key = (i, about_call(request_id));
                let target = (j, origin.to_owned());
                let first = self.sent_to.entry(key).or_insert_with(|| target.clone());
                assert_eq!(*first, target, "page {i} sent call {request_id:?} to two windows");
            }
            Message::CancelTool { request_id } | Message::CallStatusRequest { request_id } => {
                let sent = self.sent_to.get(&(i, about_call(request_id)));
                assert_eq!(
                    sent,
                    Some(&(j, origin.to_owned())),
                    "page {i} asked window {j} at {origin} about call {request_id:?}, not sent there"
                );
            }
            Message::CallAck { request_ids } => {
                for request_id in request_ids {
                    let sent = self.sent_to.get(&(i, about_call(request_id)));
                    assert_eq!(
                        sent,
                        Some(&(j, origin.to_owned())),
                        "page {i} acknowledged {request_id:?} to the wrong window"
                    );
                }
            }
            Message::GetToolsResponse(GetToolsResponse { tools, .. }) if !tools.is_empty() => {
                assert!(origin != E, "page {i} listed tools to the origin that sees none: {tools:?}");
            }
            Message::ToolsChanged => assert!(origin != E, "page {i} told the origin that sees no tool of a change"),
            _ => {}
        }
    }

    fn remember_ids(&mut self, message: &Message) {
        let id = match message {
            Message::ExecuteRequest(r) => Some(&r.request_id),
            Message::ExecuteResponse(r) => Some(&r.request_id),
            Message::CallStatusResponse(r) => Some(&r.request_id),
            Message::CancelTool { request_id }
            | Message::CallStatusRequest { request_id }
            | Message::GetToolsRequest { request_id, .. }
            | Message::Connect { request_id, .. }
            | Message::Connected { request_id, .. } => Some(request_id),
            Message::GetToolsResponse(r) => Some(&r.request_id),
            _ => None,
        };
        if let Some(id) = id
            && !self.seen_ids.contains(id)
        {
            self.seen_ids.push(id.clone());
        }
    }

    /// Notes who asked page `j` about which call, as `j` learns it.
    fn note_askers(&mut self, j: usize, from: usize, origin: &str, messages: &[Message]) {
        for message in messages {
            if let Message::ExecuteRequest(ExecuteRequest { request_id, .. })
            | Message::CallStatusRequest { request_id }
            | Message::CancelTool { request_id } = message
            {
                self.askers.entry((j, request_id.as_str().to_owned())).or_default().insert((from, origin.to_owned()));
            }
        }
    }

    fn deliver(&mut self, delivery: Delivery) {
        if std::env::var("SIM_TRACE").is_ok() {
            let (to, from, text) = match &delivery {
                Delivery::Window { to, from, text, .. } => (*to, *from, text.clone()),
                Delivery::Port { from, to, text } => (to.window, from.window, format!("port {text}")),
            };
            self.log.push(format!("  t={} {from} → {to}: {}", self.now - T0, &text[..text.len().min(140)]));
        }
        match delivery {
            Delivery::Window { to, generation, from, origin, text, port } => {
                if to == FORGER {
                    return self.forger_receives(&text);
                }
                if self.generation(to) != generation {
                    return; // The document it was posted to is gone.
                }
                let message = decode(&text, &interpane_policy::Limits::default()).ok().and_then(|d| match d {
                    interpane_policy::Decoded::Message(m) => Some(m),
                    interpane_policy::Decoded::NotOurs => None,
                });
                self.note_askers(to, from, &origin, message.as_slice());
                let port = match port {
                    Some(end) if self.unpaired.remove(&end) && self.generation(end.window) == end.generation => {
                        let Some(window) = self.windows[to].as_mut() else { return };
                        let port = new_port(&mut window.session, self.now);
                        let other = End { window: to, generation, port };
                        self.pairs.insert(end, other);
                        self.pairs.insert(other, end);
                        self.ever_paired.insert(end, other);
                        self.ever_paired.insert(other, end);
                        Some(port)
                    }
                    // A port whose sender has since closed it, or a duplicate of its message: a dead port.
                    Some(_) => {
                        let Some(window) = self.windows[to].as_mut() else { return };
                        Some(new_port(&mut window.session, self.now))
                    }
                    None => None,
                };
                let origin = session_support::origin(&origin);
                let input = Input::WindowMessage { window: local(to, from), origin, text, port };
                self.delivering = Some(self.origin(from).to_owned());
                self.handle(to, input);
                self.delivering = None;
            }
            Delivery::Port { from, to, text } => {
                if self.generation(to.window) != to.generation || self.closed.contains(&to) {
                    self.log.push(format!("  {} → {}: lost on a dead port: {text}", from.window, to.window));
                    return;
                }
                let origin = self.origin(from.window).to_owned();
                self.note_askers(to.window, from.window, &origin, &batch_messages(&text));
                self.delivering = Some(origin);
                self.handle(to.window, Input::PortBatch { port: to.port, text });
                self.delivering = None;
            }
        }
    }

    /// The forger reads what reached it.
    fn forger_receives(&mut self, text: &str) {
        let Ok(interpane_policy::Decoded::Message(message)) = decode(text, &interpane_policy::Limits::default()) else {
            return;
        };
        match &message {
            Message::GetToolsResponse(GetToolsResponse { tools, .. }) => {
                assert!(tools.is_empty(), "the origin that sees no tool received tools: {tools:?}");
            }
            Message::ToolsChanged => panic!("the origin that sees no tool was told that tools changed"),
            _ => {}
        }
        self.remember_ids(&message);
    }

    fn forge(&mut self, kind: u8, target: u8, pick: u8, same_origin: bool) {
        // The second page of origin A forges from its own window (to the other two pages); it sends no port and
        // no goodbye, which would only concern itself.
        let from = if same_origin { 3 } else { FORGER };
        let mut to = if same_origin { [0, 1][usize::from(target) % 2] } else { page_index(target) };
        let kind = if same_origin && matches!(kind, 7 | 9) { 10 } else { kind };
        let mut id = if self.seen_ids.is_empty() {
            rid("c_none")
        } else {
            self.seen_ids[usize::from(pick) % self.seen_ids.len()].clone()
        };
        // Half the time, the id of a call that was sent, to the page it matters to: an answer to its caller, a
        // request to its provider.
        let calls: Vec<(usize, String, usize)> = self
            .sent_to
            .iter()
            .map(|((caller, wire), (provider, _))| (*caller, wire.clone(), *provider))
            .filter(|(caller, _, provider)| *caller != from && *provider != from)
            .collect();
        let mut real_call = false;
        if pick % 2 == 1 && !calls.is_empty() {
            let (caller, wire, provider) = calls[usize::from(pick / 2) % calls.len()].clone();
            id = rid(&wire);
            to = if matches!(kind, 0..=2) { caller } else { provider };
            real_call = true;
        }
        // The second page of origin A is no forger for the calls it serves itself: what it answers about them is
        // its answer, not a forgery.
        if same_origin && self.sent_to.iter().any(|((_, wire), (provider, _))| *provider == from && wire == id.as_str())
        {
            return;
        }
        let message = match kind {
            0 => Message::ExecuteResponse(ExecuteResponse { request_id: id, outcome: Ok(json("\"forged\"")) }),
            1 => Message::ExecuteResponse(ExecuteResponse::failure(id, ToolError::new(ErrorKind::ToolError, "forged"))),
            2 => Message::CallStatusResponse(CallStatusResponse {
                request_id: id,
                state: CallState::Unknown,
                durable: true,
            }),
            3 => Message::GetToolsResponse(GetToolsResponse {
                request_id: id,
                tools: vec![ToolDescriptor::new(name("add"), "forged")],
                bridge: true,
            }),
            4 => Message::CancelTool { request_id: id },
            5 => Message::CallAck { request_ids: vec![id] },
            // A page of the caller's own origin (which can read its journal in sessionStorage) repeating a real
            // call is the origin itself: once-only holds against it as against the caller's own re-sends, marked
            // as such; an unmarked repeat after the provider crashed is the crash window of once-only.md §7.
            6 => Message::ExecuteRequest(ExecuteRequest {
                request_id: id.clone(),
                name: name("add"),
                args: json(&format!("{{\"call\":\"forged:{}\"}}", id.as_str())),
                resend: pick.is_multiple_of(2) || (same_origin && real_call),
            }),
            7 => Message::GoingAway,
            8 => Message::GetToolsRequest { request_id: id, bridge: true },
            9 => Message::Connect { request_id: id, utf8_batches: true },
            _ => Message::CallStatusRequest { request_id: id },
        };
        self.log.push(format!("  forger {from} → {to}: {message:?}"));
        let port = matches!(message, Message::Connect { .. }).then(|| {
            let end = End { window: FORGER, generation: 0, port: PortId(u32::from(pick)) };
            self.unpaired.insert(end);
            end
        });
        self.post(from, to, self.origin(to), &message.encode(), port);
    }

    fn list(&mut self, i: usize) {
        let waiter = self.new_waiter(i, None);
        let allowed = if self.origin(i) == A { B } else { A };
        let windows = (0..ORIGINS.len()).filter(|j| *j != i).map(|j| (local(i, j), locator(i, j))).collect();
        let request = ListRequest {
            waiter,
            from_origins: OriginList::parse(allowed).unwrap(),
            windows,
            origin_hints: Vec::new(),
            timeout_ms: None,
        };
        self.handle(i, Input::ListTools(request));
    }

    fn new_waiter(&mut self, i: usize, call: Option<String>) -> WaiterId {
        let waiter = WaiterId(self.next_waiter);
        self.next_waiter += 1;
        if let Some(window) = self.windows[i].as_mut() {
            window.waiters.insert(waiter, call);
        }
        waiter
    }

    fn call(&mut self, i: usize, pick: u8, own: bool, timeout: bool) {
        let Some(window) = self.windows[i].as_ref() else { return };
        let others: Vec<&ListedTool> = window.listed.iter().filter(|t| t.peer != PeerId::SELF).collect();
        let (peer, tool_name) = if own || others.is_empty() {
            (PeerId::SELF, if pick.is_multiple_of(2) { "add" } else { "checkout" })
        } else {
            let tool = others[usize::from(pick) % others.len()];
            (tool.peer, tool.descriptor.name.as_str())
        };
        let tool_name = name(tool_name);
        let call_id = format!("w{i}-{}", self.next_call);
        self.next_call += 1;
        let waiter = self.new_waiter(i, Some(call_id.clone()));
        if timeout {
            self.limited.insert(call_id.clone());
        }
        self.log.push(format!("  {i}: {waiter:?} calls {call_id} on {peer:?}"));
        let request = CallRequest {
            waiter,
            target: interpane_policy::session::CallTarget::Listed(peer),
            tool: tool_name,
            args: Some(format!("{{\"call\":\"{call_id}\"}}")),
            call_id: Some(call_id.clone()),
            timeout_ms: timeout.then_some(1_500),
        };
        self.handle(i, Input::Execute(request));
        // A call refused before it starts (its peer went away, or the journal is full) is not a call of the
        // journal: it settles failed at once, with no `toolresult` (as the bridge did before the session).
        let generation = self.generation(i);
        if self.settled.contains_key(&(i, generation, waiter)) && !self.results.contains_key(&(i, generation, call_id))
        {
            self.refused_at_start.insert((i, generation, waiter));
        }
    }

    fn finish(&mut self, pick: u8, throw: bool) {
        if self.runs.is_empty() {
            return;
        }
        let run = self.runs.remove(usize::from(pick) % self.runs.len());
        if self.generation(run.window) != run.generation {
            return; // The page it ran in is gone.
        }
        let result = if throw {
            RunResult::Threw(ToolError::new(ErrorKind::ToolError, "out of stock"))
        } else {
            RunResult::Returned(format!("{{\"run\":{}}}", run.run.0))
        };
        self.handle(run.window, Input::ToolSettled { run: run.run, result });
    }

    fn stop(&mut self, pick: u8) {
        let waiting: Vec<(usize, WaiterId)> = PAGES
            .iter()
            .filter_map(|i| self.windows[*i].as_ref().map(|w| (*i, w)))
            .flat_map(|(i, w)| w.waiters.iter().filter(|(_, c)| c.is_some()).map(move |(id, _)| (i, *id)))
            .collect();
        if waiting.is_empty() {
            return;
        }
        let (i, waiter) = waiting[usize::from(pick) % waiting.len()];
        self.handle(i, Input::Stop(waiter));
    }

    fn reload(&mut self, page: u8, clean: bool) {
        let i = [1, 3][usize::from(page) % 2];
        if clean {
            self.handle(i, Input::GoingAway);
        }
        let Some(old) = self.windows[i].take() else { return };
        let generation = old.generation + 1;
        // Its ports die with it.
        let ends: Vec<End> = self.pairs.keys().filter(|e| e.window == i).copied().collect();
        for end in ends {
            if let Some(other) = self.pairs.remove(&end) {
                self.pairs.remove(&other);
            }
        }
        self.unpaired.retain(|e| e.window != i);
        // The old page's own store writes happened as they happened: what it had not flushed is lost.
        let store = old.store.clone();
        check_replay(&old.session);
        drop(old);
        let setup = JournalSetup { crashed: !clean };
        let window = self.load(i, self.origin(i), store, generation, setup);
        self.windows[i] = Some(window);
        self.pump(i);
        // The top page watches its frames' loads.
        let frame = local(0, i);
        if self.windows[0].as_ref().is_some_and(|w| w.watched.contains(&frame)) {
            self.handle(0, Input::FrameLoaded(frame));
        }
    }

    /// Runs every page's timers due by `until`, in time order.
    fn tick(&mut self, until: u64) {
        loop {
            let next = PAGES
                .iter()
                .filter_map(|i| self.windows[*i].as_ref().and_then(|w| w.session.poll_timeout()).map(|t| (t, *i)))
                .filter(|(t, _)| *t <= until)
                .min();
            let Some((at, i)) = next else { break };
            self.now = self.now.max(at);
            let now = self.now;
            if let Some(w) = self.windows[i].as_mut() {
                w.session.handle_timeout(now);
            }
            self.pump(i);
        }
        self.now = self.now.max(until);
    }

    fn step(&mut self, action: &Action) {
        self.log.push(format!("{action:?}"));
        let pick = |n: u8, len: usize| usize::from(n) % len;
        match *action {
            Action::List(page) => self.list(page_index(page)),
            Action::Call { page, pick, own, timeout } => self.call(page_index(page), pick, own, timeout),
            Action::Deliver(n) if !self.net.is_empty() => {
                let delivery = self.net.remove(pick(n, self.net.len())).unwrap();
                self.deliver(delivery);
            }
            Action::Duplicate(n) if !self.net.is_empty() => {
                // A port is transferred once: a message that carries one is never duplicated.
                let delivery = self.net[pick(n, self.net.len())].clone();
                if !matches!(delivery, Delivery::Window { port: Some(_), .. }) {
                    self.deliver(delivery);
                }
            }
            Action::Lose(n) if !self.net.is_empty() => {
                let lost = self.net.remove(pick(n, self.net.len())).unwrap();
                self.lose(&lost);
            }
            Action::Deliver(_) | Action::Duplicate(_) | Action::Lose(_) => {}
            Action::Finish { pick, throw } => self.finish(pick, throw),
            Action::Stop(n) => self.stop(n),
            Action::Forge { kind, target, pick, same_origin } => self.forge(kind, target, pick, same_origin),
            Action::Reload { page, clean } => self.reload(page, clean),
            Action::Leave(page) => {
                self.handle([1, 3][usize::from(page) % 2], Input::Navigating(Departure::Leaves));
                self.reload(page, true);
            }
            Action::Tick(ms) => {
                let until = self.now + u64::from(ms);
                self.tick(until);
            }
        }
    }

    /// Lets everything end: messages arrive in order, tools finish, time runs on (two minutes at most).
    fn drain(&mut self) {
        let deadline = self.now + 120_000;
        loop {
            while let Some(delivery) = self.net.pop_front() {
                self.deliver(delivery);
            }
            if !self.runs.is_empty() {
                self.finish(0, false);
                continue;
            }
            let next =
                PAGES.iter().filter_map(|i| self.windows[*i].as_ref().and_then(|w| w.session.poll_timeout())).min();
            match next {
                Some(at) if at <= deadline => self.tick(at),
                _ => break,
            }
        }
    }

    /// Notes which calls a lost message was about.
    fn lose(&mut self, delivery: &Delivery) {
        let messages = match delivery {
            Delivery::Window { text, .. } => match decode(text, &interpane_policy::Limits::default()) {
                Ok(interpane_policy::Decoded::Message(m)) => vec![m],
                _ => Vec::new(),
            },
            Delivery::Port { text, .. } => batch_messages(text),
        };
        for message in messages {
            let ids: Vec<RequestId> = match message {
                Message::ExecuteRequest(r) => vec![r.request_id],
                Message::ExecuteResponse(r) => vec![r.request_id],
                Message::CallStatusResponse(r) => vec![r.request_id],
                Message::CancelTool { request_id } | Message::CallStatusRequest { request_id } => vec![request_id],
                Message::CallAck { request_ids } => request_ids,
                // A lost goodbye leaves the calls to that page to their provider's next page, which may not know
                // them (a request it never received reads as "unknown", which a page that posted it waits out).
                Message::GoingAway => self.call_of_wire.keys().map(|w| rid(w)).collect(),
                _ => Vec::new(),
            };
            for id in ids {
                if let Some(call) = self.call_of_wire.get(id.as_str()) {
                    self.lost_calls.insert(call.clone());
                }
            }
        }
    }

    /// The properties that hold at any time.
    fn check_once(&self) {
        for ((i, _, waiter), outcomes) in &self.settled {
            for outcome in outcomes.iter().flatten() {
                let forged = match outcome {
                    CallOutcome::Completed { result } => result.as_str().contains("forged"),
                    CallOutcome::Failed(error) => error.message == "forged",
                    _ => false,
                };
                assert!(!forged, "page {i}'s {waiter:?} settled with what the forger sent: {outcome:?}");
            }
        }
        for ((i, generation, waiter), outcomes) in &self.settled {
            assert_eq!(
                outcomes.len(),
                1,
                "page {i} (load {generation}) settled {waiter:?} {} times: {outcomes:?}",
                outcomes.len()
            );
        }
        for ((i, generation, call), outcomes) in &self.results {
            assert_eq!(
                outcomes.len(),
                1,
                "page {i} (load {generation}) reported call {call} {} times: {outcomes:?}",
                outcomes.len()
            );
        }
        for (call, count) in &self.ran {
            assert!(call.starts_with("forged:") || *count <= 1, "call {call} ran {count} times");
        }
        for ((provider, origin, wire), count) in &self.ran_per_key {
            assert!(*count <= 1, "the call {wire} of {origin} ran {count} times in page {provider}");
        }
    }

    /// The properties once everything has ended.
    fn check_all_settled(&self) {
        for i in PAGES {
            let Some(window) = self.windows[i].as_ref() else { continue };
            for (waiter, call) in &window.waiters {
                let settled = self.settled.get(&(i, window.generation, *waiter));
                if settled.is_none()
                    && call.as_ref().is_some_and(|c| self.lost_calls.contains(c) && !self.limited.contains(c))
                {
                    continue;
                }
                assert!(settled.is_some(), "page {i}'s {waiter:?} ({call:?}) never settled");
                if self.refused_at_start.contains(&(i, window.generation, *waiter)) {
                    let outcome = settled.and_then(|o| o[0].clone());
                    assert!(matches!(outcome, Some(CallOutcome::Failed(_))), "{outcome:?}");
                    continue;
                }
                if let (Some(call), Some(outcomes)) = (call, settled) {
                    let reported = self.results.get(&(i, window.generation, call.clone()));
                    assert_eq!(
                        reported.map(Vec::as_slice),
                        Some(std::slice::from_ref(outcomes[0].as_ref().unwrap())),
                        "page {i}'s call {call}: the toolresult and the settle disagree"
                    );
                }
            }
        }
    }
}

fn simulate(actions: &[Action]) -> Result<(), TestCaseError> {
    let mut sim = Sim::new();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // The three pages list each other at once: handshakes cross.
        for page in 0..3 {
            sim.list(page_index(page));
        }
        for action in actions {
            sim.step(action);
            sim.check_once();
        }
        sim.drain();
        sim.check_once();
        sim.check_all_settled();
        for window in sim.windows.iter().flatten() {
            check_replay(&window.session);
        }
    }));
    match run {
        Ok(()) => Ok(()),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            let tail: Vec<&String> = sim.log.iter().rev().take(80).collect::<Vec<_>>().into_iter().rev().collect();
            Err(TestCaseError::fail(format!(
                "{message}\n{}",
                tail.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
            )))
        }
    }
}

/// With the feature `record`: a page's recorded inputs, replayed into a new session, give the same answers, effects,
/// deadlines and storage writes in the same order (the session decides from its inputs alone).
#[cfg(feature = "record")]
fn check_replay(session: &PageSession) {
    let tape = session.tape_json();
    match interpane_policy::session::tape::replay(&tape) {
        Ok(report) => assert!(report.effects > 0 && report.inputs > 0, "a page's tape is empty: {report:?}"),
        Err(error) => panic!("a page's replay differs from its recording: {error}"),
    }
}

#[cfg(not(feature = "record"))]
fn check_replay(_: &PageSession) {}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(std::env::var("SIM_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300)))]

    #[test]
    fn four_windows_list_call_forge_reload_and_lose_messages(actions in proptest::collection::vec(action(), 1..80)) {
        simulate(&actions)?;
    }
}

/// Everything in flight delivered, in order, `n` times over.
fn settle_network(n: usize) -> Vec<Action> {
    let mut actions = vec![Action::Deliver(0); n];
    actions.push(Action::Tick(600));
    actions.extend(vec![Action::Deliver(0); n]);
    actions
}

#[test]
fn a_call_to_a_frame_that_reloads_before_the_call_arrives_settles() {
    for pick in 0..4 {
        for clean in [true, false] {
            let mut actions = settle_network(60);
            actions.push(Action::Call { page: 1, pick, own: false, timeout: false });
            actions.push(Action::Reload { page: 1, clean });
            if let Err(error) = simulate(&actions) {
                panic!("{error}");
            }
        }
    }
}

#[test]
fn a_call_with_a_time_limit_settles_when_every_message_is_lost() {
    for pick in 0..4 {
        let mut actions = settle_network(60);
        actions.push(Action::Call { page: 1, pick, own: false, timeout: true });
        actions.push(Action::Reload { page: 1, clean: true });
        actions.extend(vec![Action::Lose(0); 40]);
        if let Err(error) = simulate(&actions) {
            panic!("{error}");
        }
    }
}

/// The outcome page `i`'s last waiter settled with.
fn last_outcome(sim: &Sim, i: usize) -> Option<CallOutcome> {
    let window = sim.windows[i].as_ref()?;
    let (waiter, _) = window.waiters.iter().rfind(|(_, call)| call.is_some())?;
    sim.settled.get(&(i, window.generation, *waiter)).and_then(|o| o[0].clone())
}

/// Regression: a sibling frame has no load event to watch, so when it reloaded without `pagehide` (a crash), the
/// other pages kept their private ports to its old document; their listings and calls went on the dead port (the
/// listing kept the old tools, and every call settled `interrupted`) until the caller's page reloaded. Now a port
/// that stays silent through a whole listing is dropped, and the next listing asks by window and connects anew.
#[test]
fn a_page_can_call_a_sibling_frame_again_after_it_crashed_and_reloaded() {
    let mut sim = Sim::new();
    for page in 0..3 {
        sim.list(page_index(page));
    }
    for action in settle_network(60) {
        sim.step(&action);
    }
    // Window 3 calls window 1 (B): it completes.
    let pick_of_b = |sim: &Sim| {
        let listed = &sim.windows[3].as_ref().unwrap().listed;
        let others: Vec<&ListedTool> = listed.iter().filter(|t| t.peer != PeerId::SELF).collect();
        u8::try_from(others.iter().position(|t| t.origin.serialization() == B).expect("window 3 listed B's tools"))
            .unwrap()
    };
    let pick = pick_of_b(&sim);
    sim.step(&Action::Call { page: 2, pick, own: false, timeout: false });
    sim.drain();
    assert!(matches!(last_outcome(&sim, 3), Some(CallOutcome::Completed { .. })), "{:?}", last_outcome(&sim, 3));
    // Window 1 crashes and reloads (no pagehide, so no goodbye); window 3 lists again and calls it again.
    sim.step(&Action::Reload { page: 0, clean: false });
    sim.drain();
    sim.list(3);
    sim.drain();
    let pick = pick_of_b(&sim);
    sim.step(&Action::Call { page: 2, pick, own: false, timeout: false });
    sim.drain();
    sim.check_once();
    let outcome = last_outcome(&sim, 3);
    assert!(matches!(outcome, Some(CallOutcome::Completed { .. })), "{outcome:?}\n{}", sim.log.join("\n"));
}

/// Regression (found by this simulator): a request that a page posted to a window whose page was replaced before it
/// arrived was lost; the new page, a durable bridge, answered "unknown" to every status question, and the caller,
/// which had posted the request itself, kept waiting for it (a call with no time limit never settled). Now, after
/// two "unknown" answers it sends the call again, marked as a re-send (run only if the provider's journal proves it
/// never received it).
#[test]
fn a_request_lost_to_a_replaced_page_is_sent_again() {
    let actions = vec![
        Action::Deliver(55),
        Action::Deliver(224),
        Action::Deliver(144),
        Action::Deliver(175),
        Action::Deliver(10),
        Action::Deliver(159),
        Action::List(0),
        Action::Tick(500),
        Action::Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Action::Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Action::Duplicate(123),
        Action::Deliver(213),
        Action::Deliver(109),
        Action::Deliver(55),
        Action::Deliver(12),
        Action::Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Action::Lose(80),
        Action::Call { page: 0, pick: 0, own: false, timeout: false },
        Action::Reload { page: 1, clean: true },
        Action::Finish { pick: 0, throw: false },
        Action::Deliver(58),
        Action::List(0),
        Action::List(0),
        Action::Call { page: 1, pick: 0, own: false, timeout: false },
        Action::Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Action::List(0),
        Action::List(0),
        Action::Finish { pick: 0, throw: false },
        Action::Tick(800),
        Action::List(0),
        Action::Call { page: 0, pick: 0, own: false, timeout: false },
        Action::List(0),
        Action::List(0),
        Action::List(0),
        Action::List(0),
    ];
    simulate(&actions).unwrap();
}

/// Names a port that came with a message, as the driver does.
fn new_port(session: &mut PageSession, now: u64) -> PortId {
    match session.handle(Input::NewPort, now) {
        interpane_policy::session::Answer::Port(port) => port,
        other => panic!("Input::NewPort answered {other:?}"),
    }
}

/// Regression (the simulation found it in a CI run, 2026-12-06): window 1 sent a call on a private port whose other
/// end window 3 no longer held, after handshakes that crossed while a message was lost. Asked by window, window 3
/// said it never received the call, and window 1 sent it again on the same dead port, again and again: the call
/// never settled. A re-send now goes by window, the way the answer came.
#[test]
fn a_call_a_dead_port_swallowed_is_sent_again_by_window_and_settles() {
    use Action::*;
    let actions = vec![
        Lose(210),
        Deliver(58),
        Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Deliver(214),
        Forge { kind: 0, target: 0, pick: 0, same_origin: false },
        Deliver(60),
        Deliver(50),
        Deliver(148),
        Deliver(22),
        Deliver(75),
        Deliver(98),
        Call { page: 0, pick: 0, own: false, timeout: false },
        Tick(2000),
        List(1),
        Deliver(5),
        Deliver(168),
        Deliver(47),
        Call { page: 1, pick: 0, own: false, timeout: false },
        Deliver(25),
        Deliver(153),
        Deliver(41),
        Call { page: 1, pick: 0, own: false, timeout: false },
    ];
    if let Err(error) = simulate(&actions) {
        panic!("{error}");
    }
}
