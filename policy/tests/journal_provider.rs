//! The provider journal, rule by rule (docs/once-only.md §3, §4, §5, §6, §7, §8), with explicit clock values.
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers unwrap ids they build; a failed unwrap is a failed test"
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::journal::{
    CANCELLED_MESSAGE, CANNOT_RECORD_MESSAGE, CancelDecision, DELIVERED_MESSAGE, EXPIRED_MESSAGE, ExecuteDecision,
    INTERRUPTED_MESSAGE, JournalConfig, JournalStore, MemoryStore, OTHER_PAGE_MESSAGE, Owner, ProviderJournal,
    RESEND_UNPROVEN_MESSAGE, RecordState, StatusAnswer, StoreError, ToolOutcome,
};
use interpane_policy::{ErrorKind, RequestId, ToolError, ToolName};

const T0: u64 = 1_700_000_000_000;
const MINUTE: u64 = 60_000;
const DAY: u64 = 24 * 60 * MINUTE;
const CALLER: &str = "https://caller.example";

type Journal = ProviderJournal<MemoryStore>;

fn owner() -> Owner {
    Owner::new("tabP", "top/0").unwrap()
}

fn wire(text: &str) -> RequestId {
    RequestId::new(text).unwrap()
}

/// `text` as checked JSON text.
fn json(text: &str) -> interpane_policy::JsonText {
    interpane_policy::JsonText::parse(text, &interpane_policy::Limits::default()).unwrap()
}

fn tool(text: &str) -> ToolName {
    ToolName::new(text).unwrap()
}

fn open_with(store: MemoryStore, config: JournalConfig, now: u64) -> Journal {
    ProviderJournal::open(store, owner(), config, now)
}

fn open(now: u64) -> Journal {
    open_with(MemoryStore::durable(), JournalConfig::default(), now)
}

/// The page reloads: the store stays, the journal is read again.
fn reload(journal: Journal, now: u64) -> Journal {
    open_with(journal.into_store(), JournalConfig::default(), now)
}

fn execute<S: JournalStore>(journal: &mut ProviderJournal<S>, wire_id: &str, now: u64) -> ExecuteDecision {
    journal.on_execute(CALLER, &wire(wire_id), &tool("add_to_cart"), now)
}

fn completed(result: &str) -> ToolOutcome {
    ToolOutcome::Completed { result: json(result) }
}

fn failed(kind: ErrorKind, message: &str) -> ToolOutcome {
    ToolOutcome::Failed(ToolError::new(kind, message))
}

fn reply(kind: ErrorKind, message: &str) -> ExecuteDecision {
    ExecuteDecision::Reply(failed(kind, message))
}

// §3 The provider's page reloads while a call runs

#[test]
fn a_call_id_runs_once_and_later_requests_get_its_outcome() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    assert_eq!(execute(&mut journal, "w1", T0 + 1), ExecuteDecision::AlreadyRunning);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 1), StatusAnswer::Running);
    assert_eq!(journal.on_finish(CALLER, &wire("w1"), completed("7"), T0 + 2), Some(completed("7")));
    assert_eq!(journal.on_finish(CALLER, &wire("w1"), completed("8"), T0 + 3), None, "finishes once");
    assert_eq!(execute(&mut journal, "w1", T0 + 4), ExecuteDecision::Reply(completed("7")));
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 4), StatusAnswer::Outcome(completed("7")));
    let mut journal = reload(journal, T0 + 5);
    assert_eq!(execute(&mut journal, "w1", T0 + 6), ExecuteDecision::Reply(completed("7")), "kept across a reload");
}

#[test]
fn the_same_id_from_another_origin_is_another_call() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let other = journal.on_execute("https://other.example", &wire("w1"), &tool("add_to_cart"), T0);
    assert_eq!(other, ExecuteDecision::Run);
}

#[test]
fn a_call_running_when_the_page_reloads_is_interrupted_and_never_runs_again() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let mut journal = reload(journal, T0 + 10);
    assert_eq!(journal.record(CALLER, &wire("w1")).map(|r| r.state()), Some(&RecordState::Interrupted));
    assert_eq!(execute(&mut journal, "w1", T0 + 11), reply(ErrorKind::Interrupted, INTERRUPTED_MESSAGE));
    assert_eq!(
        journal.on_status(CALLER, &wire("w1"), T0 + 11),
        StatusAnswer::Outcome(failed(ErrorKind::Interrupted, INTERRUPTED_MESSAGE))
    );
    assert_eq!(journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 12), None, "the old page's run is gone");
    let mut journal = reload(journal, T0 + 13);
    assert_eq!(execute(&mut journal, "w1", T0 + 14), reply(ErrorKind::Interrupted, INTERRUPTED_MESSAGE));
}

#[test]
fn an_acknowledged_outcome_is_dropped_and_the_id_still_never_runs() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 1).unwrap();
    journal.on_ack(CALLER, &[wire("w1"), wire("unknown")], T0 + 2);
    assert_eq!(journal.record(CALLER, &wire("w1")).map(|r| r.state()), Some(&RecordState::Acked));
    assert_eq!(journal.record(CALLER, &wire("unknown")), None, "an ack records nothing new");
    assert_eq!(execute(&mut journal, "w1", T0 + 3), reply(ErrorKind::Refused, DELIVERED_MESSAGE));
    let store = journal.into_store();
    assert!(!store.get("webmcp:p:https://caller.example w1").unwrap().contains("\"r\""), "no result kept");
}

#[test]
fn an_id_used_for_another_tool_is_refused() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let decision = journal.on_execute(CALLER, &wire("w1"), &tool("checkout"), T0 + 1);
    assert_eq!(
        decision,
        reply(ErrorKind::Refused, "requestId w1 was already used for tool `add_to_cart`: an id runs once")
    );
}

#[test]
fn an_origin_with_too_many_calls_running_is_refused_without_a_record() {
    let config = JournalConfig { running_per_origin_max: 2, ..JournalConfig::default() };
    let mut journal = open_with(MemoryStore::durable(), config, T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    assert_eq!(execute(&mut journal, "w2", T0), ExecuteDecision::Run);
    let refusal = ExecuteDecision::Refuse(ToolError::new(
        ErrorKind::TooManyCalls,
        "https://caller.example already has 2 calls running in this page: retry when one of them finishes",
    ));
    assert_eq!(execute(&mut journal, "w3", T0), refusal);
    assert_eq!(journal.record(CALLER, &wire("w3")), None);
    assert_eq!(journal.on_execute("https://b.example", &wire("w3"), &tool("t"), T0), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 1).unwrap();
    assert_eq!(execute(&mut journal, "w3", T0 + 2), ExecuteDecision::Run, "the refused id may be tried again");
    assert_eq!(execute(&mut journal, "w1", T0 + 2), ExecuteDecision::Reply(completed("1")), "not a new run");
}

// §4 Stop

#[test]
fn a_cancel_during_the_run_aborts_it_and_discards_its_late_result() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    assert_eq!(journal.on_cancel(CALLER, &wire("w1"), T0 + 1), CancelDecision::AbortRunning);
    assert_eq!(journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 2), None);
    assert_eq!(journal.on_cancel(CALLER, &wire("w1"), T0 + 3), CancelDecision::Nothing);
    assert_eq!(execute(&mut journal, "w1", T0 + 4), reply(ErrorKind::Cancelled, CANCELLED_MESSAGE));
    assert_eq!(
        journal.on_status(CALLER, &wire("w1"), T0 + 4),
        StatusAnswer::Outcome(failed(ErrorKind::Cancelled, CANCELLED_MESSAGE))
    );
}

#[test]
fn a_cancel_before_the_request_leaves_a_record_so_it_never_starts() {
    let mut journal = open(T0);
    assert_eq!(journal.on_cancel(CALLER, &wire("w1"), T0), CancelDecision::Recorded);
    let mut journal = reload(journal, T0 + 1);
    assert_eq!(execute(&mut journal, "w1", T0 + 2), reply(ErrorKind::Cancelled, CANCELLED_MESSAGE));
    let other_tool = journal.on_execute(CALLER, &wire("w1"), &tool("checkout"), T0 + 2);
    assert_eq!(other_tool, reply(ErrorKind::Cancelled, CANCELLED_MESSAGE));
}

#[test]
fn cancels_of_calls_never_received_are_capped_per_origin() {
    // Regression: an origin's stream of cancels for made-up ids filled the shared record limit and pushed other
    // callers' records out (found by the end-to-end attack suite).
    let mut journal = open(T0);
    let cap = JournalConfig::default().early_cancels_per_origin_max;
    for i in 0..cap {
        assert_eq!(journal.on_cancel("https://evil.example", &wire(&format!("x{i}")), T0), CancelDecision::Recorded);
    }
    assert_eq!(journal.on_cancel("https://evil.example", &wire("one_more"), T0), CancelDecision::Nothing);
    assert_eq!(journal.on_cancel(CALLER, &wire("early"), T0), CancelDecision::Recorded, "other origins keep theirs");
    assert_eq!(execute(&mut journal, "early", T0 + 1), reply(ErrorKind::Cancelled, CANCELLED_MESSAGE));
}

#[test]
fn a_cancel_after_the_run_keeps_the_result() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 1).unwrap();
    assert_eq!(journal.on_cancel(CALLER, &wire("w1"), T0 + 2), CancelDecision::Nothing);
    assert_eq!(execute(&mut journal, "w1", T0 + 3), ExecuteDecision::Reply(completed("1")));
}

// §5 Tabs

#[test]
fn another_pages_records_are_never_run_answered_or_touched() {
    let mut original = open(T0);
    assert_eq!(execute(&mut original, "w1", T0), ExecuteDecision::Run);
    assert_eq!(execute(&mut original, "w2", T0), ExecuteDecision::Run);
    original.on_finish(CALLER, &wire("w2"), completed("\"secret\""), T0 + 1).unwrap();
    let copied = original.store().clone();
    for other in [Owner::new("tabQ", "top/0").unwrap(), Owner::new("tabP", "top/1").unwrap()] {
        let mut copy = ProviderJournal::open(copied.clone(), other, JournalConfig::default(), T0 + 2);
        for id in ["w1", "w2"] {
            assert_eq!(execute(&mut copy, id, T0 + 3), reply(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE));
            assert_eq!(
                copy.on_status(CALLER, &wire(id), T0 + 3),
                StatusAnswer::Outcome(failed(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE))
            );
            assert_eq!(copy.on_cancel(CALLER, &wire(id), T0 + 3), CancelDecision::Nothing);
            assert_eq!(copy.record(CALLER, &wire(id)), None);
        }
        copy.on_ack(CALLER, &[wire("w2")], T0 + 4);
        assert_eq!(copy.running().count(), 0);
        assert_eq!(copy.into_store(), copied, "the original's records are untouched");
    }
}

#[test]
fn records_inherited_by_a_copied_tab_are_pruned_like_own_ones() {
    let mut original = open(T0);
    assert_eq!(execute(&mut original, "w1", T0), ExecuteDecision::Run);
    assert_eq!(original.on_cancel(CALLER, &wire("w2"), T0 + 1), CancelDecision::Recorded);
    let tab_q = Owner::new("tabQ", "top/0").unwrap();
    let config = JournalConfig { ran_ids_kept: 1, ..JournalConfig::default() };
    let mut copy = ProviderJournal::open(original.into_store(), tab_q.clone(), config, T0 + 2);
    let keys: Vec<&str> = copy.store().keys().collect();
    assert_eq!(
        keys,
        ["webmcp:p:!tabQ top/0", "webmcp:p:https://caller.example w2"],
        "beyond the count limit the oldest inherited record went, and the horizon was noted"
    );
    assert_eq!(copy.on_status(CALLER, &wire("w1"), T0 + 3), StatusAnswer::Unknown { durable: false });
    assert_eq!(execute(&mut copy, "w2", T0 + 3), reply(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE));
    let w2 = "webmcp:p:https://caller.example w2";
    let copy = ProviderJournal::open(copy.into_store(), tab_q.clone(), JournalConfig::default(), T0 + 1 + DAY);
    assert!(copy.store().get(w2).is_some(), "exactly a day old: kept");
    let copy = ProviderJournal::open(copy.into_store(), tab_q, JournalConfig::default(), T0 + 2 + DAY);
    assert_eq!(copy.store().get(w2), None, "past a day: dropped");
    let mut original = open(T0);
    assert_eq!(execute(&mut original, "w1", T0), ExecuteDecision::Run);
    assert_eq!(execute(&mut original, "w2", T0), ExecuteDecision::Run);
    let before = original.into_store();
    let config = JournalConfig { ran_ids_kept: 1, ..JournalConfig::default() };
    let sibling = Owner::new("tabP", "top/1").unwrap();
    let sibling = ProviderJournal::open(before.clone(), sibling, config, T0 + 2 * DAY);
    assert_eq!(sibling.into_store(), before, "another frame of this tab prunes its own records");
}

#[test]
fn a_resend_runs_only_while_the_journal_can_prove_it_never_received_the_call() {
    // Regression (found by journal_sim): a status answer "unknown" may predate a request still in flight; if the
    // provider forgets the call before the re-send arrives, running it would run it twice.
    let config = JournalConfig { ran_ids_kept: 1, ..JournalConfig::default() };
    let mut journal = open_with(MemoryStore::durable(), config, T0);
    let resend =
        |journal: &mut Journal, id: &str, now: u64| journal.on_resend(CALLER, &wire(id), &tool("add_to_cart"), now);
    assert_eq!(resend(&mut journal, "w1", T0), ExecuteDecision::Run, "nothing forgotten: proven");
    assert_eq!(resend(&mut journal, "w1", T0), ExecuteDecision::AlreadyRunning);
    journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 1).unwrap();
    assert_eq!(execute(&mut journal, "w2", T0 + 2), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("w2"), completed("2"), T0 + 3).unwrap();
    assert_eq!(journal.record(CALLER, &wire("w1")), None, "w1 was forgotten");
    let unproven = reply(ErrorKind::Interrupted, RESEND_UNPROVEN_MESSAGE);
    assert_eq!(resend(&mut journal, "w1", T0 + 4), unproven);
    assert_eq!(resend(&mut journal, "w1", T0 + 5), unproven, "answered the same way while the horizon lasts");
    assert_eq!(execute(&mut journal, "w3", T0 + 6), ExecuteDecision::Run, "a first request still runs");
}

// §6 The bridge installed twice: a duplicated request still runs once

#[test]
fn a_request_delivered_twice_runs_once() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::AlreadyRunning);
    assert_eq!(journal.running().count(), 1);
}

// §7 Storage unavailable, corrupt entries

#[test]
fn after_a_crash_unknown_proves_nothing_for_a_day() {
    // The bridge writes the journal in batches; a page that crashed may not have written its last "running"
    // record, so its successor must not let a re-send run (§7).
    let mut journal = open(T0);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0), StatusAnswer::Unknown { durable: true });
    journal.previous_page_crashed(T0 + 1);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 2), StatusAnswer::Unknown { durable: false });
    assert!(matches!(journal.on_resend(CALLER, &wire("w1"), &tool("add_to_cart"), T0 + 2), ExecuteDecision::Reply(_)));
    let mut journal = reload(journal, T0 + 3);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 3), StatusAnswer::Unknown { durable: false }, "noted");
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 2 + DAY), StatusAnswer::Unknown { durable: true });
}

#[test]
fn unknown_is_durable_only_with_durable_storage() {
    let mut durable = open(T0);
    assert_eq!(durable.on_status(CALLER, &wire("w1"), T0), StatusAnswer::Unknown { durable: true });
    let mut memory = ProviderJournal::open(MemoryStore::new(), owner(), JournalConfig::default(), T0);
    assert_eq!(memory.on_status(CALLER, &wire("w1"), T0), StatusAnswer::Unknown { durable: false });
    assert_eq!(durable.on_status("null", &wire("w1"), T0), StatusAnswer::Unknown { durable: false });
}

#[test]
fn entries_that_cannot_be_used_are_discarded_with_a_warning() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let mut store = journal.into_store();
    let good = store.get("webmcp:p:https://caller.example w1").unwrap().to_owned();
    store.put("webmcp:p:https://caller.example w9", &good).unwrap();
    store.put("webmcp:p:junk", "42").unwrap();
    store.put("webmcp:p:!tabP top/0", r#"{"v":1,"o":{"t":"tabP","s":"top/0"},"h":"soon"}"#).unwrap();
    store.put("webmcp:p:https://caller.example w8", r#"{"v":7}"#).unwrap();
    let mut journal = open_with(store, JournalConfig::default(), T0 + 1);
    let warnings: Vec<String> = journal.take_warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "interpane: discarded the journal entry \"webmcp:p:!tabP top/0\": it is malformed: field `h` is \
             not a whole number from 0 to 2^64-1 (found a string)",
            "interpane: left the journal entry \"webmcp:p:https://caller.example w8\" alone: it belongs to \
             format 7, written by another version of the bridge",
            "interpane: discarded the journal entry \"webmcp:p:https://caller.example w9\": its key does not \
             match its content",
            "interpane: discarded the journal entry \"webmcp:p:junk\": it is not a journal entry (not a JSON \
             object with a version \"v\")",
        ]
    );
    let keys: Vec<&str> = journal.store().keys().collect();
    assert_eq!(keys, ["webmcp:p:https://caller.example w1", "webmcp:p:https://caller.example w8"]);
    assert_eq!(journal.on_status(CALLER, &wire("w9"), T0 + 2), StatusAnswer::Unknown { durable: true });
}

/// A durable store whose writes fail while `failing` is set.
#[derive(Debug, Default)]
struct FailingStore {
    inner: MemoryStore,
    failing: bool,
}

impl JournalStore for FailingStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        self.inner.entries(prefix)
    }
    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        if self.failing {
            return Err(StoreError::Unavailable("SecurityError".into()));
        }
        self.inner.put(key, value)
    }
    fn remove(&mut self, key: &str) {
        self.inner.remove(key);
    }
    fn is_durable(&self) -> bool {
        true
    }
}

#[test]
fn a_provider_that_cannot_record_a_call_does_not_run_it() {
    let mut journal = ProviderJournal::open(FailingStore::default(), owner(), JournalConfig::default(), T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let mut store = journal.into_store();
    store.failing = true;
    let mut journal = ProviderJournal::open(store, owner(), JournalConfig::default(), T0 + 1);
    let refusal = ExecuteDecision::Refuse(ToolError::new(ErrorKind::Refused, CANNOT_RECORD_MESSAGE));
    assert_eq!(execute(&mut journal, "w2", T0 + 2), refusal);
    assert_eq!(journal.record(CALLER, &wire("w2")), None);
    let warnings: Vec<String> = journal.take_warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        ["interpane: the journal's storage is unavailable: SecurityError. Calls are now journaled in memory \
          only, and new calls to this page are refused until its storage accepts a write, since a later page \
          could not tell that they ran"]
    );
    assert_eq!(journal.on_status(CALLER, &wire("w2"), T0 + 3), StatusAnswer::Unknown { durable: false });
    assert_eq!(execute(&mut journal, "w1", T0 + 3), reply(ErrorKind::Interrupted, INTERRUPTED_MESSAGE));
}

#[test]
fn a_full_store_drops_kept_results_then_notes_that_records_may_be_missing() {
    let pad = format!("\"{}\"", "x".repeat(400));
    let mut journal = open_with(MemoryStore::durable(), JournalConfig::default(), T0);
    assert_eq!(execute(&mut journal, "a", T0), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("a"), completed(&pad), T0).unwrap();
    let quota = journal.store().used_bytes() + 300;
    let mut journal = open_with(journal.into_store().with_quota(quota), JournalConfig::default(), T0 + 1);
    assert_eq!(execute(&mut journal, "b", T0 + 2), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("b"), completed(&pad), T0 + 3).unwrap();
    assert_eq!(journal.take_warnings(), [], "dropping a's result made room");
    assert_eq!(execute(&mut journal, "a", T0 + 4), reply(ErrorKind::Refused, EXPIRED_MESSAGE));
    assert_eq!(execute(&mut journal, "b", T0 + 4), ExecuteDecision::Reply(completed(&pad)));
    assert_eq!(execute(&mut journal, "c", T0 + 5), ExecuteDecision::Run);
    let big = format!("\"{}\"", "y".repeat(2000));
    assert_eq!(journal.on_finish(CALLER, &wire("c"), completed(&big), T0 + 6), Some(completed(&big)));
    assert_eq!(journal.take_warnings().len(), 1, "now it lives in memory");
    assert!(!journal.is_durable());
    assert_eq!(execute(&mut journal, "d", T0 + 7), ExecuteDecision::Run, "noted: it still runs calls");
    assert_eq!(journal.on_status(CALLER, &wire("e"), T0 + 8), StatusAnswer::Unknown { durable: false });
    let mut later = reload(journal, T0 + 9);
    assert_eq!(later.on_status(CALLER, &wire("d"), T0 + 9), StatusAnswer::Unknown { durable: false }, "the note");
    // Running d unrecorded moved the note to T0 + 7: a day after that, "unknown" proves again.
    assert_eq!(later.on_status(CALLER, &wire("d"), T0 + 7 + DAY), StatusAnswer::Unknown { durable: false });
    assert_eq!(later.on_status(CALLER, &wire("d"), T0 + 8 + DAY), StatusAnswer::Unknown { durable: true });
}

#[test]
fn a_failed_flush_of_the_bridge_notes_the_horizon_and_stops_writing() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    journal.storage_failed(StoreError::Full, T0 + 5);
    assert!(!journal.is_durable());
    assert_eq!(journal.take_warnings().len(), 1);
    assert_eq!(execute(&mut journal, "w2", T0 + 6), ExecuteDecision::Run, "noted: calls still run, in memory");
    journal.storage_failed(StoreError::Full, T0 + 7);
    assert_eq!(journal.take_warnings(), [], "warned once");
    let keys: Vec<&str> = journal.store().keys().collect();
    assert_eq!(keys, ["webmcp:p:!tabP top/0", "webmcp:p:https://caller.example w1"]);
    let mut later = reload(journal, T0 + 8);
    assert_eq!(later.on_status(CALLER, &wire("w2"), T0 + 9), StatusAnswer::Unknown { durable: false });
}

// §8 Bounded

#[test]
fn a_result_not_acknowledged_in_ten_minutes_expires() {
    let mut journal = open(T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    journal.on_finish(CALLER, &wire("w1"), completed("1"), T0 + 1).unwrap();
    journal.prune(T0 + 1 + 10 * MINUTE);
    assert_eq!(execute(&mut journal, "w1", T0 + 1 + 10 * MINUTE), ExecuteDecision::Reply(completed("1")));
    journal.prune(T0 + 2 + 10 * MINUTE);
    assert_eq!(execute(&mut journal, "w1", T0 + 3 + 10 * MINUTE), reply(ErrorKind::Refused, EXPIRED_MESSAGE));
    assert_eq!(
        EXPIRED_MESSAGE,
        "this call ran, and its result was dropped before it was delivered (it was not acknowledged in time): it \
         will not run again"
    );
}

#[test]
fn records_are_forgotten_after_a_day_and_unknown_stays_durable() {
    let mut journal = open(T0);
    assert_eq!(journal.on_cancel(CALLER, &wire("w1"), T0), CancelDecision::Recorded);
    journal.prune(T0 + DAY);
    assert!(journal.record(CALLER, &wire("w1")).is_some());
    journal.prune(T0 + DAY + 1);
    assert_eq!(journal.record(CALLER, &wire("w1")), None);
    assert_eq!(journal.store().len(), 0);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + DAY + 1), StatusAnswer::Unknown { durable: true });
}

#[test]
fn beyond_the_count_limit_the_oldest_records_go_and_unknown_is_not_durable_for_a_day() {
    let config = JournalConfig { ran_ids_kept: 2, ..JournalConfig::default() };
    let mut journal = open_with(MemoryStore::durable(), config.clone(), T0);
    for (n, id) in ["w1", "w2", "w3"].iter().enumerate() {
        assert_eq!(execute(&mut journal, id, T0 + n as u64), ExecuteDecision::Run);
        journal.on_finish(CALLER, &wire(id), completed("0"), T0 + 10 + n as u64).unwrap();
    }
    assert_eq!(journal.record(CALLER, &wire("w1")), None);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 20), StatusAnswer::Unknown { durable: false });
    assert_eq!(
        journal.store().get("webmcp:p:!tabP top/0"),
        Some(r#"{"v":1,"o":{"t":"tabP","s":"top/0"},"h":1700000000010}"#)
    );
    let mut journal = open_with(journal.into_store(), config, T0 + 30);
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 10 + DAY), StatusAnswer::Unknown { durable: false });
    assert_eq!(journal.on_status(CALLER, &wire("w1"), T0 + 11 + DAY), StatusAnswer::Unknown { durable: true });
    let journal = reload(journal, T0 + 11 + DAY);
    assert_eq!(journal.store().get("webmcp:p:!tabP top/0"), None, "an old note is removed");
}

#[test]
fn results_are_capped() {
    let config = JournalConfig { result_cap_chars: 40, ..JournalConfig::default() };
    let mut journal = open_with(MemoryStore::durable(), config, T0);
    assert_eq!(execute(&mut journal, "w1", T0), ExecuteDecision::Run);
    let long = format!("\"{}\"", "x".repeat(100));
    let sent = journal.on_finish(CALLER, &wire("w1"), completed(&long), T0 + 1);
    let capped = completed(r#"{"truncated":true,"preview":"\"xxxxxxx"}"#);
    assert_eq!(sent, Some(capped.clone()));
    assert_eq!(execute(&mut journal, "w1", T0 + 2), ExecuteDecision::Reply(capped));
    assert_eq!(execute(&mut journal, "w2", T0), ExecuteDecision::Run);
    let mut error = ToolError::new(ErrorKind::ToolError, "boom");
    error.message = "é".repeat(1500);
    error.status = Some(700);
    let sent = journal.on_finish(CALLER, &wire("w2"), ToolOutcome::Failed(error), T0 + 1);
    let Some(ToolOutcome::Failed(kept)) = sent else { panic!("failed") };
    assert_eq!((kept.message.chars().count(), kept.status), (1000, None));
}
