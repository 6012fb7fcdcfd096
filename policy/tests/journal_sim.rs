#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "the simulator's checks are assertions: a failed one is a failed test"
)]
//! A deterministic simulator of a caller page and a tool page of two origins, in one or more tabs, driving both
//! journals the way the bridge does (docs/protocol.md), under random interleavings of calls, deliveries,
//! duplicates, reorderings, lost messages, reloads of either page, stops, time limits, tab copies and the clock.
//!
//! After each scenario the network is drained, and the simulator checks that:
//! - no (caller origin, wire id) ran more than once, over every page and tab (the at-most-once guarantee);
//! - every call that `start` recorded produced exactly one `Settled`, in its own tab, with `recovered` telling
//!   whether a later page settled it (with a tool page that speaks the bridge protocol, without any time limit);
//! - each outcome is true to what happened: `completed` only with the result the tool returned, a tool error only
//!   as the tool threw it, `stopped` only after a stop, `timeout` only after a time limit, `expired` only for a
//!   call that ran;
//! - a stopped call is never posted again; a call the tool page recorded as cancelled never starts there;
//!   a copied tab neither resumes nor answers the original's calls; replays and joins match the recorded calls;
//!   a plain WebMCP peer never receives a call twice.
//!
//! The network model keeps the documented bound of the guarantee: a tool page remembers ids for 24 hours or
//! `ran_ids_kept` calls, so a message is never delayed past that. Scenarios with reordering keep every record
//! (`ran_ids_kept` large); the scenarios with tiny record limits deliver messages to each page in the order they
//! were posted, as browsers do; every scenario delivers what is in flight before the clock jumps.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm};

use interpane_policy::journal::{
    CANNOT_RECORD_MESSAGE, CallOutcome, CancelDecision, ConsumerJournal, EXPIRED_MESSAGE, ExecuteDecision,
    ExecuteRequest, Followup, JournalConfig, MemoryStore, NewCall, OTHER_PAGE_MESSAGE, Owner, ProviderJournal,
    ProviderStatus, ProviderWindow, Recovery, Settled, Start, StartError, StatusAnswer, StatusDecision, ToolOutcome,
};
use interpane_policy::{ErrorKind, RequestId, ToolError, ToolName};

const CALLER: &str = "https://caller.test";
const TOOLS: &str = "https://tools.test";
const T0: u64 = 1_700_000_000_000;
const TOOL_NAMES: [&str; 2] = ["add_to_cart", "checkout"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProviderKind {
    /// A bridge whose journal is in sessionStorage.
    Durable,
    /// A bridge whose journal lives in memory (sessionStorage unavailable).
    Memory,
    /// A plain WebMCP peer: runs every request it receives, speaks no extension, never says goodbye.
    Plain,
}

#[derive(Debug, Clone, Copy)]
struct Scenario {
    kind: ProviderKind,
    /// Both journals defer their writes (as the bridge runs them): a page writes what changed when it goes away
    /// (`into_store`), not at every change.
    deferred: bool,
    /// Messages may overtake each other; otherwise each page receives them in the order they were posted.
    reorder: bool,
    /// Messages to a bridge tool page may be delivered twice (a request never is to a page that cannot
    /// recognize it: a plain peer, or a tool page without durable journal).
    duplicates: bool,
    /// Copies of requests reach a copied tab's tool page that inherited their records.
    strays: bool,
    /// The provider journal keeps this many records (tiny to exercise forgetting, or large).
    ran_ids_kept: usize,
    /// The tool page's sessionStorage fills up at this many bytes (the journal then lives in memory).
    quota: Option<usize>,
}

impl Scenario {
    fn config(&self) -> JournalConfig {
        JournalConfig {
            settled_calls_kept: 3,
            unsettled_calls_max: 6,
            running_per_origin_max: 3,
            ran_ids_kept: self.ran_ids_kept,
            ..JournalConfig::default()
        }
    }
}

#[derive(Debug, Clone)]
enum Action {
    Start { call_id: Option<u8>, tool: u8, send_now: bool },
    SendRecorded(u8),
    Deliver(u8),
    Duplicate(u8),
    Finish { pick: u8, fail: bool },
    Stop(u8),
    TimeOut(u8),
    AskStatus(u8),
    ReloadConsumer { keep_in_flight: bool },
    ReloadProvider { keep_in_flight: bool },
    CopyTab,
    Stray(u8),
    Prune,
    Tick(u16),
    Jump(u8),
}

#[derive(Debug, Clone)]
struct Op {
    tab: u8,
    action: Action,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        12 => (proptest::option::weighted(0.6, 0u8..4), 0u8..2, proptest::bool::weighted(0.7))
            .prop_map(|(call_id, tool, send_now)| Action::Start { call_id, tool, send_now }),
        3 => any::<u8>().prop_map(Action::SendRecorded),
        30 => any::<u8>().prop_map(Action::Deliver),
        3 => any::<u8>().prop_map(Action::Duplicate),
        10 => (any::<u8>(), proptest::bool::weighted(0.3)).prop_map(|(pick, fail)| Action::Finish { pick, fail }),
        3 => any::<u8>().prop_map(Action::Stop),
        1 => any::<u8>().prop_map(Action::TimeOut),
        2 => any::<u8>().prop_map(Action::AskStatus),
        4 => any::<bool>().prop_map(|keep_in_flight| Action::ReloadConsumer { keep_in_flight }),
        4 => any::<bool>().prop_map(|keep_in_flight| Action::ReloadProvider { keep_in_flight }),
        1 => Just(Action::CopyTab),
        2 => any::<u8>().prop_map(Action::Stray),
        2 => Just(Action::Prune),
        5 => (1u16..2000).prop_map(Action::Tick),
        2 => (0u8..3).prop_map(Action::Jump),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec((0u8..4, action()).prop_map(|(tab, action)| Op { tab, action }), 1..70)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Consumer(usize),
    Provider(usize),
}

#[derive(Debug, Clone)]
enum Body {
    Execute { wire: RequestId, tool: ToolName, resend: bool },
    Status { wire: RequestId },
    Cancel { wire: RequestId },
    Ack { wires: Vec<RequestId> },
    Response { wire: RequestId, outcome: ToolOutcome },
    StatusResponse { wire: RequestId, status: ProviderStatus },
    GoingAway,
}

#[derive(Debug, Clone)]
struct Message {
    to: Dest,
    body: Body,
}

enum ProviderPage {
    Bridge(Box<ProviderJournal<MemoryStore>>),
    Plain,
}

struct Running {
    wire: RequestId,
    aborted: bool,
}

struct Tab {
    tab_id: String,
    consumer: Option<ConsumerJournal<MemoryStore>>,
    consumer_page: u32,
    provider: ProviderPage,
    running: Vec<Running>,
}

/// What the checker knows of one call.
struct CallModel {
    tab: usize,
    call_id: String,
    tool: ToolName,
    started_page: u32,
    settled: Option<CallOutcome>,
    stop_requested: bool,
    timeout_requested: bool,
    executes_posted: u32,
}

struct World {
    scenario: Scenario,
    config: JournalConfig,
    now: u64,
    next_wire: u64,
    tabs: Vec<Tab>,
    net: Vec<Message>,
    /// Requests posted by consumers, for strays.
    history: Vec<(usize, Body)>,
    calls: BTreeMap<RequestId, CallModel>,
    runs: BTreeMap<RequestId, u32>,
    finished: BTreeMap<RequestId, ToolOutcome>,
    /// (tab, wire) whose cancel a bridge tool page processed.
    cancels_seen: BTreeSet<(usize, RequestId)>,
    /// A trace of the scenario, kept only when a failure is replayed.
    log: Option<Vec<String>>,
}

/// `text` as checked JSON text.
fn json(text: &str) -> interpane_policy::JsonText {
    interpane_policy::JsonText::parse(text, &interpane_policy::Limits::default()).expect("JSON text")
}

fn consumer_owner(tab_id: &str) -> Owner {
    Owner::new(tab_id, "top").expect("valid owner")
}

fn provider_owner(tab_id: &str) -> Owner {
    Owner::new(tab_id, "top/0").expect("valid owner")
}

impl World {
    fn new(scenario: Scenario) -> Self {
        let mut world = Self {
            scenario,
            config: scenario.config(),
            now: T0,
            next_wire: 0,
            tabs: Vec::new(),
            net: Vec::new(),
            history: Vec::new(),
            calls: BTreeMap::new(),
            runs: BTreeMap::new(),
            finished: BTreeMap::new(),
            cancels_seen: BTreeSet::new(),
            log: None,
        };
        let store = match scenario.quota {
            Some(bytes) => MemoryStore::durable().with_quota(bytes),
            None => MemoryStore::durable(),
        };
        let provider = world.fresh_provider("tab0", store);
        let (mut consumer, recoveries) =
            ConsumerJournal::open(MemoryStore::durable(), consumer_owner("tab0"), world.config.clone(), T0);
        assert!(recoveries.is_empty());
        if scenario.deferred {
            consumer.defer_writes();
        }
        world.tabs.push(Tab {
            tab_id: "tab0".into(),
            consumer: Some(consumer),
            consumer_page: 0,
            provider,
            running: Vec::new(),
        });
        world
    }

    fn fresh_provider(&self, tab_id: &str, durable_store: MemoryStore) -> ProviderPage {
        let store = match self.scenario.kind {
            ProviderKind::Durable => durable_store,
            ProviderKind::Memory => MemoryStore::new(),
            ProviderKind::Plain => return ProviderPage::Plain,
        };
        let mut journal = ProviderJournal::open(store, provider_owner(tab_id), self.config.clone(), self.now);
        if self.scenario.deferred {
            journal.defer_writes();
        }
        ProviderPage::Bridge(Box::new(journal))
    }

    fn window(&self) -> ProviderWindow {
        ProviderWindow::new(TOOLS, "frame:top/0", self.scenario.kind != ProviderKind::Plain)
    }

    fn consumer(&mut self, tab: usize) -> &mut ConsumerJournal<MemoryStore> {
        self.tabs[tab].consumer.as_mut().expect("a consumer page is always open")
    }

    fn post(&mut self, to: Dest, body: Body) {
        if let Dest::Provider(tab) = to {
            self.history.push((tab, body.clone()));
        }
        self.net.push(Message { to, body });
    }

    /// Posts an execute request, checking that a stopped call is never sent and a plain peer gets a call once.
    fn post_execute(&mut self, tab: usize, request: ExecuteRequest) {
        let model = self.calls.get_mut(&request.wire_id).expect("posted calls are known");
        assert_eq!(model.tab, tab, "a page posts only its own calls");
        assert!(model.settled.is_none(), "a settled call is never posted: {}", request.wire_id);
        assert!(!model.stop_requested, "a stopped call is never posted again: {}", request.wire_id);
        model.executes_posted += 1;
        if self.scenario.kind == ProviderKind::Plain {
            assert_eq!(model.executes_posted, 1, "a plain peer never receives a call twice");
        }
        let body = Body::Execute { wire: request.wire_id, tool: request.tool, resend: request.resend };
        self.post(Dest::Provider(tab), body);
    }

    fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(log) = &mut self.log {
            log.push(line());
        }
    }

    fn run(&mut self, ops: &[Op]) {
        for op in ops {
            let tab = op.tab as usize % self.tabs.len();
            let at = self.now - T0;
            self.note(|| format!("{at} tab{tab} {:?}", op.action));
            self.apply(tab, &op.action);
        }
        self.quiesce();
        self.check_final();
    }

    fn apply(&mut self, tab: usize, action: &Action) {
        match *action {
            Action::Start { call_id, tool, send_now } => self.start(tab, call_id, tool, send_now),
            Action::SendRecorded(pick) => {
                let recorded: Vec<RequestId> = self
                    .consumer(tab)
                    .pending()
                    .filter(|e| matches!(e.phase(), interpane_policy::journal::CallPhase::Recorded))
                    .map(|e| e.wire_id().clone())
                    .collect();
                if let Some(wire) = pick_from(&recorded, pick) {
                    self.send(tab, &wire);
                }
            }
            Action::Deliver(pick) => {
                if let Some(index) = self.deliverable(pick) {
                    let message = self.net.remove(index);
                    self.deliver(message);
                }
            }
            Action::Duplicate(pick) => {
                if !self.net.is_empty() {
                    let message = self.net[pick as usize % self.net.len()].clone();
                    let is_request = matches!(message.body, Body::Execute { .. });
                    let recognizable = self.scenario.kind == ProviderKind::Durable && self.scenario.quota.is_none();
                    let allowed = self.scenario.duplicates && (!is_request || recognizable);
                    if allowed {
                        self.net.push(message);
                    }
                }
            }
            Action::Finish { pick, fail } => self.finish(tab, pick, fail),
            Action::Stop(pick) => {
                if let Some(wire) = self.pick_pending(tab, pick) {
                    self.calls.get_mut(&wire).expect("known").stop_requested = true;
                    let now = self.now;
                    let settled = self.consumer(tab).stop(&wire, now).expect("a pending call stops");
                    self.settled(tab, settled);
                }
            }
            Action::TimeOut(pick) => {
                if let Some(wire) = self.pick_pending(tab, pick) {
                    self.calls.get_mut(&wire).expect("known").timeout_requested = true;
                    let now = self.now;
                    let settled = self.consumer(tab).timed_out(&wire, now).expect("a pending call times out");
                    self.settled(tab, settled);
                }
            }
            Action::AskStatus(pick) => {
                if self.scenario.kind != ProviderKind::Plain
                    && let Some(wire) = self.pick_pending(tab, pick)
                {
                    self.post(Dest::Provider(tab), Body::Status { wire });
                }
            }
            Action::ReloadConsumer { keep_in_flight } => self.reload_consumer(tab, keep_in_flight),
            Action::ReloadProvider { keep_in_flight } => self.reload_provider(tab, keep_in_flight),
            Action::CopyTab => {
                if self.tabs.len() < 3 {
                    self.copy_tab(tab);
                }
            }
            Action::Stray(pick) => self.stray(pick),
            Action::Prune => {
                let now = self.now;
                for settled in self.consumer(tab).prune(now) {
                    self.settled(tab, settled);
                }
                if let ProviderPage::Bridge(journal) = &mut self.tabs[tab].provider {
                    journal.prune(now);
                }
            }
            Action::Tick(ms) => self.now += u64::from(ms),
            Action::Jump(size) => {
                // Time passes: what is in flight arrives first (a message is never delayed past the limits; a
                // message frozen with its tab for a day is beyond the guarantee, see once-only.md §8).
                self.drain();
                self.now += [10 * 60_000 + 1, 3_600_000 + 1, 24 * 3_600_000 + 1][size as usize % 3];
            }
        }
    }

    /// The index of the message to deliver: any one with reordering, else the oldest one to some page.
    fn deliverable(&self, pick: u8) -> Option<usize> {
        if self.net.is_empty() {
            return None;
        }
        if self.scenario.reorder {
            return Some(pick as usize % self.net.len());
        }
        let dests: Vec<Dest> = self.net.iter().map(|m| m.to).fold(Vec::new(), |mut seen, dest| {
            if !seen.contains(&dest) {
                seen.push(dest);
            }
            seen
        });
        let dest = dests[pick as usize % dests.len()];
        self.net.iter().position(|m| m.to == dest)
    }

    fn pick_pending(&mut self, tab: usize, pick: u8) -> Option<RequestId> {
        let pending: Vec<RequestId> = self.consumer(tab).pending().map(|e| e.wire_id().clone()).collect();
        pick_from(&pending, pick)
    }

    fn start(&mut self, tab: usize, call_id: Option<u8>, tool: u8, send_now: bool) {
        let wire = RequestId::new(format!("w{}", self.next_wire)).expect("valid id");
        self.next_wire += 1;
        let call_id = call_id.map(|n| format!("k{n}"));
        let tool = ToolName::new(TOOL_NAMES[tool as usize % 2]).expect("valid name");
        let call = NewCall {
            call_id: call_id.clone(),
            wire_id: wire.clone(),
            tool: tool.clone(),
            provider: self.window(),
            args: json(&format!("{{\"n\":{}}}", self.next_wire)),
        };
        let now = self.now;
        let effective_id = call_id.clone().unwrap_or_else(|| wire.to_string());
        let same_key: Vec<RequestId> = self
            .calls
            .iter()
            .filter(|(_, m)| m.tab == tab && m.call_id == effective_id)
            .map(|(w, _)| w.clone())
            .collect();
        let unsettled = self.calls.values().filter(|m| m.tab == tab && m.settled.is_none()).count();
        match self.consumer(tab).start(call, now) {
            Ok(Start::New) => {
                for earlier in &same_key {
                    let settled = self.calls[earlier].settled.is_some();
                    assert!(settled, "a callId in flight ({earlier}) is joined, not started again");
                }
                let started_page = self.tabs[tab].consumer_page;
                self.calls.insert(
                    wire.clone(),
                    CallModel {
                        tab,
                        call_id: effective_id,
                        tool,
                        started_page,
                        settled: None,
                        stop_requested: false,
                        timeout_requested: false,
                        executes_posted: 0,
                    },
                );
                if send_now {
                    self.send(tab, &wire);
                }
            }
            Ok(Start::Replay { wire_id, outcome }) => {
                let model = &self.calls[&wire_id];
                assert!(same_key.contains(&wire_id), "replay of another key or tab");
                assert_eq!(model.tool, tool);
                assert_eq!(model.settled.as_ref(), Some(&outcome), "a replay returns the recorded outcome");
            }
            Ok(Start::Join { wire_id }) => {
                let model = &self.calls[&wire_id];
                assert!(same_key.contains(&wire_id), "join of another key or tab");
                assert_eq!(model.tool, tool);
                assert!(model.settled.is_none(), "a join is for a call in flight");
            }
            Err(StartError::CallIdReused { first_tool, .. }) => {
                assert_ne!(first_tool, tool);
                assert!(same_key.iter().any(|w| self.calls[w].tool == first_tool), "the first use is real");
            }
            Err(StartError::TooManyUnsettled { limit }) => assert_eq!(unsettled, limit),
            Err(other) => panic!("unexpected refusal {other}"),
        }
    }

    fn send(&mut self, tab: usize, wire: &RequestId) {
        let now = self.now;
        let consumer = self.consumer(tab);
        let request = consumer.get(wire).map(|e| ExecuteRequest {
            wire_id: wire.clone(),
            tool: e.tool().clone(),
            provider: e.provider().clone(),
            args: e.args().cloned().expect("an unsettled call keeps its arguments"),
            resend: false,
        });
        if consumer.mark_sent(wire, now) {
            self.post_execute(tab, request.expect("a call that is sent is known"));
        }
    }

    fn settled(&mut self, tab: usize, settled: Settled) {
        let page = self.tabs[tab].consumer_page;
        let kind = self.scenario.kind;
        let model = self
            .calls
            .get_mut(&settled.wire_id)
            .unwrap_or_else(|| panic!("Settled for a call never started: {}", settled.wire_id));
        assert_eq!(model.tab, tab, "a tab settles only its own calls: {}", settled.wire_id);
        assert!(model.settled.is_none(), "a call settles exactly once: {}", settled.wire_id);
        assert_eq!(settled.recovered, model.started_page != page, "recovered: {}", settled.wire_id);
        assert_eq!(settled.call_id, model.call_id);
        assert_eq!(settled.tool, model.tool);
        match &settled.outcome {
            CallOutcome::Completed { result } => {
                assert_eq!(self.runs.get(&settled.wire_id), Some(&1), "completed only if it ran");
                let finished = self.finished.get(&settled.wire_id);
                assert_eq!(finished, Some(&ToolOutcome::Completed { result: result.clone() }), "the tool's result");
            }
            CallOutcome::Failed(error) => match error.kind {
                ErrorKind::ToolError => {
                    let finished = self.finished.get(&settled.wire_id);
                    assert_eq!(finished, Some(&ToolOutcome::Failed(error.clone())), "the tool's own error");
                }
                ErrorKind::Timeout => assert!(model.timeout_requested, "timeout only after a time limit"),
                ErrorKind::TooManyCalls => {}
                ErrorKind::Refused if error.message == EXPIRED_MESSAGE => {
                    assert_eq!(self.runs.get(&settled.wire_id), Some(&1), "expired only if it ran");
                }
                ErrorKind::Refused if error.message == CANNOT_RECORD_MESSAGE => {
                    assert_eq!(self.runs.get(&settled.wire_id), None, "refused: it did not run");
                }
                _ => panic!("unexpected failure for {}: {error:?}", settled.wire_id),
            },
            CallOutcome::Stopped => assert!(model.stop_requested, "stopped only after a stop"),
            CallOutcome::Interrupted { .. } => {}
        }
        let local_stop = matches!(
            &settled.outcome,
            CallOutcome::Stopped | CallOutcome::Failed(ToolError { kind: ErrorKind::Timeout, .. })
        );
        match (kind, local_stop) {
            (ProviderKind::Plain, _) => assert_eq!(settled.followup, Followup::Nothing),
            (_, true) if model.executes_posted > 0 => assert_eq!(settled.followup, Followup::Cancel),
            (_, true) => assert_eq!(settled.followup, Followup::Nothing),
            (_, false) => assert_ne!(settled.followup, Followup::Cancel),
        }
        model.settled = Some(settled.outcome.clone());
        match settled.followup {
            Followup::Ack => {
                self.post(Dest::Provider(tab), Body::Ack { wires: vec![settled.wire_id.clone()] });
                self.consumer(tab).mark_acked(&[settled.wire_id]);
            }
            Followup::Cancel => self.post(Dest::Provider(tab), Body::Cancel { wire: settled.wire_id }),
            Followup::Nothing => {}
        }
    }

    fn deliver(&mut self, message: Message) {
        self.note(|| format!("  deliver {:?} {:?}", message.to, message.body));
        match message.to {
            Dest::Consumer(tab) => self.consumer_receives(tab, message.body),
            Dest::Provider(tab) => self.provider_receives(tab, message.body),
        }
    }

    fn consumer_receives(&mut self, tab: usize, body: Body) {
        let now = self.now;
        match body {
            Body::Response { wire, outcome } => {
                if let Some(settled) = self.consumer(tab).on_response(&wire, outcome, now) {
                    self.settled(tab, settled);
                }
            }
            Body::StatusResponse { wire, status } => match self.consumer(tab).on_status(&wire, status, now) {
                StatusDecision::Resend(request) => {
                    assert_eq!(self.scenario.kind, ProviderKind::Durable, "only a durable journal says unknown");
                    self.post_execute(tab, request);
                }
                StatusDecision::Settled(settled) => self.settled(tab, settled),
                StatusDecision::Wait | StatusDecision::Ignored => {}
            },
            Body::GoingAway => {
                let pending: Vec<RequestId> = self.consumer(tab).pending().map(|e| e.wire_id().clone()).collect();
                for wire in pending {
                    if let Some(settled) = self.consumer(tab).peer_gone(&wire, now) {
                        self.settled(tab, settled);
                    }
                }
            }
            other => panic!("a consumer received a request: {other:?}"),
        }
    }

    fn provider_receives(&mut self, tab: usize, body: Body) {
        let now = self.now;
        let ProviderPage::Bridge(journal) = &mut self.tabs[tab].provider else {
            if let Body::Execute { wire, .. } = body {
                self.ran(tab, &wire);
            }
            return;
        };
        match body {
            Body::Execute { wire, tool, resend } => match if resend {
                journal.on_resend(CALLER, &wire, &tool, now)
            } else {
                journal.on_execute(CALLER, &wire, &tool, now)
            } {
                ExecuteDecision::Run => self.ran(tab, &wire),
                ExecuteDecision::AlreadyRunning => {}
                ExecuteDecision::Reply(outcome) => self.post(Dest::Consumer(tab), Body::Response { wire, outcome }),
                ExecuteDecision::Refuse(error) => {
                    let outcome = ToolOutcome::Failed(error);
                    self.post(Dest::Consumer(tab), Body::Response { wire, outcome });
                }
            },
            Body::Status { wire } => {
                let answer = journal.on_status(CALLER, &wire, now);
                let body = match answer {
                    StatusAnswer::Outcome(outcome) => Body::Response { wire, outcome },
                    StatusAnswer::Running => Body::StatusResponse { wire, status: ProviderStatus::Running },
                    StatusAnswer::Unknown { durable } => {
                        if self.scenario.kind == ProviderKind::Memory {
                            assert!(!durable, "a journal in memory never says durable");
                        }
                        Body::StatusResponse { wire, status: ProviderStatus::Unknown { durable } }
                    }
                };
                self.post(Dest::Consumer(tab), body);
            }
            Body::Cancel { wire } => {
                if journal.on_cancel(CALLER, &wire, now) == CancelDecision::AbortRunning {
                    for running in self.tabs[tab].running.iter_mut().filter(|r| r.wire == wire) {
                        running.aborted = true;
                    }
                }
                self.cancels_seen.insert((tab, wire));
            }
            Body::Ack { wires } => journal.on_ack(CALLER, &wires, now),
            other => panic!("a provider received a response: {other:?}"),
        }
    }

    /// A tool page decided to run a call.
    fn ran(&mut self, tab: usize, wire: &RequestId) {
        let runs = self.runs.entry(wire.clone()).or_default();
        *runs += 1;
        assert_eq!(*runs, 1, "{wire} ran twice");
        if self.scenario.kind == ProviderKind::Durable {
            assert!(!self.cancels_seen.contains(&(tab, wire.clone())), "{wire} started after its cancel");
        }
        self.tabs[tab].running.push(Running { wire: wire.clone(), aborted: false });
    }

    fn finish(&mut self, tab: usize, pick: u8, fail: bool) {
        if self.tabs[tab].running.is_empty() {
            return;
        }
        let index = pick as usize % self.tabs[tab].running.len();
        let Running { wire, aborted } = self.tabs[tab].running.remove(index);
        let outcome = if fail {
            ToolOutcome::Failed(ToolError::new(ErrorKind::ToolError, format!("the tool failed for {wire}")))
        } else {
            ToolOutcome::Completed { result: json(&format!("{{\"by\":\"{wire}\"}}")) }
        };
        let now = self.now;
        let sent = match &mut self.tabs[tab].provider {
            ProviderPage::Bridge(journal) => journal.on_finish(CALLER, &wire, outcome, now),
            ProviderPage::Plain => Some(outcome),
        };
        assert_eq!(sent.is_none(), aborted, "a late result is discarded exactly when the call was cancelled");
        if let Some(outcome) = sent {
            self.finished.insert(wire.clone(), outcome.clone());
            self.post(Dest::Consumer(tab), Body::Response { wire, outcome });
        }
    }

    fn reload_consumer(&mut self, tab: usize, keep_in_flight: bool) {
        if !keep_in_flight {
            self.net.retain(|m| m.to != Dest::Consumer(tab));
        }
        let store = self.tabs[tab].consumer.take().expect("open").into_store();
        self.tabs[tab].consumer_page += 1;
        let owner = consumer_owner(&self.tabs[tab].tab_id);
        let (mut journal, recoveries) = ConsumerJournal::open(store, owner, self.config.clone(), self.now);
        if self.scenario.deferred {
            journal.defer_writes();
        }
        self.tabs[tab].consumer = Some(journal);
        assert_eq!(self.consumer(tab).take_warnings(), []);
        self.recover(tab, recoveries);
    }

    fn recover(&mut self, tab: usize, recoveries: Vec<Recovery>) {
        let now = self.now;
        for recovery in recoveries {
            match recovery {
                Recovery::Send(request) => {
                    assert!(self.consumer(tab).mark_sent(&request.wire_id, now));
                    self.post_execute(tab, request);
                }
                Recovery::AskStatus { wire_id, .. } => {
                    assert_ne!(self.scenario.kind, ProviderKind::Plain, "a plain peer is never asked");
                    self.post(Dest::Provider(tab), Body::Status { wire: wire_id });
                }
                Recovery::Ack { wire_ids, .. } => {
                    self.post(Dest::Provider(tab), Body::Ack { wires: wire_ids.clone() });
                    self.consumer(tab).mark_acked(&wire_ids);
                }
                Recovery::Settled(settled) => self.settled(tab, settled),
            }
        }
    }

    fn reload_provider(&mut self, tab: usize, keep_in_flight: bool) {
        if !keep_in_flight {
            self.net.retain(|m| m.to != Dest::Provider(tab));
        }
        self.tabs[tab].running.clear();
        let page = std::mem::replace(&mut self.tabs[tab].provider, ProviderPage::Plain);
        if let ProviderPage::Bridge(journal) = page {
            self.post(Dest::Consumer(tab), Body::GoingAway);
            let store = journal.into_store();
            self.tabs[tab].provider = self.fresh_provider(&self.tabs[tab].tab_id.clone(), store);
        }
    }

    fn copy_tab(&mut self, tab: usize) {
        let tab_id = format!("tab{}", self.tabs.len());
        let consumer_store = self.tabs[tab].consumer.as_ref().expect("open").store().clone();
        let (mut consumer, recoveries) =
            ConsumerJournal::open(consumer_store, consumer_owner(&tab_id), self.config.clone(), self.now);
        assert_eq!(recoveries, [], "a copied tab resumes nothing of the original");
        if self.scenario.deferred {
            consumer.defer_writes();
        }
        assert_eq!(consumer.pending().count(), 0);
        assert_eq!(consumer.take_warnings(), []);
        let provider_store = match &self.tabs[tab].provider {
            ProviderPage::Bridge(journal) => journal.store().clone(),
            ProviderPage::Plain => MemoryStore::durable(),
        };
        let provider = self.fresh_provider(&tab_id, provider_store);
        if let (ProviderPage::Bridge(copy), ProviderPage::Bridge(original)) = (&provider, &self.tabs[tab].provider) {
            assert_eq!(copy.running().count(), 0);
            let inherited: Vec<&str> = copy.store().keys().filter(|k| !k.starts_with("webmcp:p:!")).collect();
            for key in inherited {
                assert_eq!(copy.store().get(key), original.store().get(key), "a copy never rewrites inherited records");
            }
        }
        self.tabs.push(Tab { tab_id, consumer: Some(consumer), consumer_page: 0, provider, running: Vec::new() });
    }

    /// A copy of a request posted in one tab reaches another tab's tool page: statuses, cancels and acks always;
    /// execute requests only where that page inherited a record of the call (a copied tab).
    fn stray(&mut self, pick: u8) {
        if !self.scenario.strays || self.history.is_empty() || self.tabs.len() < 2 {
            return;
        }
        let (from, body) = self.history[pick as usize % self.history.len()].clone();
        let to = (from + 1 + pick as usize % (self.tabs.len() - 1)) % self.tabs.len();
        let wire = match &body {
            Body::Execute { wire, .. } | Body::Status { wire } | Body::Cancel { wire } => wire.clone(),
            Body::Ack { .. } => return self.provider_receives(to, body),
            _ => return,
        };
        let ProviderPage::Bridge(journal) = &self.tabs[to].provider else { return };
        let key = format!("webmcp:p:{CALLER} {wire}");
        let inherited = journal.store().get(&key).is_some() && journal.record(CALLER, &wire).is_none();
        if matches!(body, Body::Execute { .. }) && !inherited {
            return;
        }
        if inherited && let Body::Status { .. } = body {
            let now = self.now;
            let ProviderPage::Bridge(journal) = &mut self.tabs[to].provider else { return };
            let answer = journal.on_status(CALLER, &wire, now);
            let expected = ToolOutcome::Failed(ToolError::new(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE));
            assert_eq!(answer, StatusAnswer::Outcome(expected), "a copy never answers the original's calls");
        }
        self.note(|| format!("  stray to tab{to} {body:?}"));
        self.provider_receives(to, body);
    }

    fn drain(&mut self) {
        while !self.net.is_empty() {
            let message = self.net.remove(0);
            self.deliver(message);
        }
    }

    /// Everything in flight arrives, tools finish, recorded calls are sent, until nothing moves.
    fn quiesce(&mut self) {
        self.note(|| "quiesce".to_owned());
        for _ in 0..100 {
            let mut moved = !self.net.is_empty();
            self.drain();
            for tab in 0..self.tabs.len() {
                let recorded: Vec<RequestId> = self
                    .consumer(tab)
                    .pending()
                    .filter(|e| matches!(e.phase(), interpane_policy::journal::CallPhase::Recorded))
                    .map(|e| e.wire_id().clone())
                    .collect();
                for wire in recorded {
                    self.send(tab, &wire);
                    moved = true;
                }
                while !self.tabs[tab].running.is_empty() {
                    self.finish(tab, 0, false);
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        if self.scenario.kind == ProviderKind::Plain {
            // A plain peer that reloaded never answers: the caller's time limit settles what is left.
            for tab in 0..self.tabs.len() {
                let pending: Vec<RequestId> = self.consumer(tab).pending().map(|e| e.wire_id().clone()).collect();
                for wire in pending {
                    self.calls.get_mut(&wire).expect("known").timeout_requested = true;
                    let now = self.now;
                    let settled = self.consumer(tab).timed_out(&wire, now).expect("pending");
                    self.settled(tab, settled);
                }
            }
            self.drain();
        }
    }

    fn check_final(&mut self) {
        assert!(self.net.is_empty());
        for (wire, model) in &self.calls {
            assert!(model.settled.is_some(), "{wire} never settled (no time limit was needed to end it)");
        }
        for tab in 0..self.tabs.len() {
            assert_eq!(self.consumer(tab).pending().count(), 0);
        }
        for runs in self.runs.values() {
            assert!(*runs <= 1);
        }
    }
}

fn pick_from(items: &[RequestId], pick: u8) -> Option<RequestId> {
    (!items.is_empty()).then(|| items[pick as usize % items.len()].clone())
}

/// Runs a scenario; on a failure, runs it again (it is deterministic) with a trace, for the report.
fn simulate(scenario: Scenario, ops: &[Op]) -> Result<(), TestCaseError> {
    let run = |trace: bool| {
        let mut world = World::new(scenario);
        if trace {
            world.log = Some(Vec::new());
        }
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.run(ops)));
        (outcome, world.log.unwrap_or_default())
    };
    if run(false).0.is_ok() {
        return Ok(());
    }
    let (outcome, log) = run(true);
    let message = match outcome {
        Ok(()) => "the scenario failed once and passed when replayed".to_owned(),
        Err(panic) => panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default(),
    };
    Err(TestCaseError::fail(format!("{message}\n{}", log.join("\n"))))
}

/// `n` cases, with the fast generator (ChaCha dominates the run time of a debug build) and no files written.
fn cases(n: u32) -> Config {
    Config { cases: n, failure_persistence: None, rng_algorithm: RngAlgorithm::XorShift, ..Config::default() }
}

proptest! {
    #![proptest_config(cases(2000))]

    #[test]
    fn durable_tool_page_with_reordering_duplicates_and_copies(ops in ops()) {
        let scenario = Scenario {
            deferred: false,
            kind: ProviderKind::Durable, reorder: true, duplicates: true, strays: true, ran_ids_kept: 10_000, quota: None,
        };
        simulate(scenario, &ops)?;
    }

    #[test]
    fn deferred_writes_with_reordering_duplicates_and_copies(ops in ops()) {
        let scenario = Scenario {
            deferred: true,
            kind: ProviderKind::Durable, reorder: true, duplicates: true, strays: true, ran_ids_kept: 10_000, quota: None,
        };
        simulate(scenario, &ops)?;
    }

    #[test]
    fn durable_tool_page_that_forgets_old_records(ops in ops()) {
        let scenario = Scenario {
            deferred: false,
            kind: ProviderKind::Durable, reorder: false, duplicates: false, strays: false, ran_ids_kept: 2, quota: None,
        };
        simulate(scenario, &ops)?;
    }

    #[test]
    fn durable_tool_page_whose_storage_fills_up(ops in ops()) {
        let scenario = Scenario {
            deferred: false,
            kind: ProviderKind::Durable, reorder: false, duplicates: false, strays: false, ran_ids_kept: 4,
            quota: Some(600),
        };
        simulate(scenario, &ops)?;
    }

    #[test]
    fn tool_page_without_durable_journal_still_runs_each_call_at_most_once(ops in ops()) {
        let scenario = Scenario {
            deferred: false,
            kind: ProviderKind::Memory, reorder: true, duplicates: true, strays: true, ran_ids_kept: 10_000, quota: None,
        };
        simulate(scenario, &ops)?;
    }

    #[test]
    fn plain_webmcp_peer_never_receives_a_call_twice(ops in ops()) {
        let scenario = Scenario {
            deferred: false,
            kind: ProviderKind::Plain, reorder: true, duplicates: true, strays: false, ran_ids_kept: 10_000, quota: None,
        };
        simulate(scenario, &ops)?;
    }
}

/// Regression (found by `durable_tool_page_whose_storage_fills_up`): a day after the tool page's storage had
/// filled up, a call recorded as running was lost across the tool page's reload and ran again when re-sent.
#[test]
fn a_call_running_when_storage_is_full_a_day_later_never_runs_twice() {
    let op = |action| Op { tab: 0, action };
    let start = || op(Action::Start { call_id: None, tool: 0, send_now: true });
    let ops = [
        start(),
        start(),
        start(),
        op(Action::Deliver(0)),
        op(Action::Deliver(0)),
        op(Action::Deliver(0)),
        op(Action::ReloadProvider { keep_in_flight: false }),
        op(Action::SendRecorded(0)),
        start(),
        op(Action::Deliver(253)),
        op(Action::Jump(2)),
        start(),
        op(Action::Deliver(151)),
        op(Action::ReloadProvider { keep_in_flight: false }),
        op(Action::ReloadConsumer { keep_in_flight: false }),
    ];
    let scenario = Scenario {
        deferred: false,
        kind: ProviderKind::Durable,
        reorder: false,
        duplicates: false,
        strays: false,
        ran_ids_kept: 4,
        quota: Some(600),
    };
    if let Err(error) = simulate(scenario, &ops) {
        panic!("{error}");
    }
}
