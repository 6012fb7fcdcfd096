//! The consumer journal, rule by rule (docs/once-only.md §1, §2, §4, §5, §7, §8), with explicit clock values.
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
    AckState, CallOutcome, CallPhase, ConsumerJournal, ExecuteRequest, Followup, JournalConfig, JournalStore,
    MemoryStore, NewCall, OUTCOME_NOT_KEPT, Owner, PLAIN_PEER_UNANSWERED, PROVIDER_GONE, PROVIDER_GONE_BEFORE_SEND,
    PROVIDER_NOT_DURABLE, ProviderStatus, ProviderWindow, Recovery, STOPPED_MESSAGE, Settled, Start, StartError,
    StatusDecision, StoreError, TIMED_OUT, TOO_OLD_RECORDED, TOO_OLD_SENT, ToolOutcome,
};
use interpane_policy::{ErrorKind, RequestId, ToolError, ToolName};

const T0: u64 = 1_700_000_000_000;
const HOUR: u64 = 3_600_000;

type Journal = ConsumerJournal<MemoryStore>;

fn owner() -> Owner {
    Owner::new("tabA", "top").unwrap()
}

fn wire(text: &str) -> RequestId {
    RequestId::new(text).unwrap()
}

fn tool(text: &str) -> ToolName {
    ToolName::new(text).unwrap()
}

/// `text` as checked JSON text.
fn json(text: &str) -> interpane_policy::JsonText {
    interpane_policy::JsonText::parse(text, &interpane_policy::Limits::default()).unwrap()
}

fn shop() -> ProviderWindow {
    ProviderWindow::new("https://shop.example", "frame:top/0", true)
}

fn plain() -> ProviderWindow {
    ProviderWindow::new("https://plain.example", "frame:top/1", false)
}

fn new_call(call_id: Option<&str>, wire_id: &str, provider: ProviderWindow) -> NewCall {
    NewCall {
        call_id: call_id.map(str::to_owned),
        wire_id: wire(wire_id),
        tool: tool("add_to_cart"),
        provider,
        args: json(r#"{"sku":"margherita"}"#),
    }
}

fn request(wire_id: &str, provider: ProviderWindow, resend: bool) -> ExecuteRequest {
    ExecuteRequest {
        wire_id: wire(wire_id),
        tool: tool("add_to_cart"),
        provider,
        args: json(r#"{"sku":"margherita"}"#),
        resend,
    }
}

fn open_with(store: MemoryStore, config: JournalConfig, now: u64) -> (Journal, Vec<Recovery>) {
    ConsumerJournal::open(store, owner(), config, now)
}

fn open(now: u64) -> Journal {
    let (journal, recoveries) = open_with(MemoryStore::durable(), JournalConfig::default(), now);
    assert_eq!(recoveries, []);
    journal
}

/// The page reloads: the store stays, the journal is read again.
fn reload(journal: Journal, now: u64) -> (Journal, Vec<Recovery>) {
    open_with(journal.into_store(), JournalConfig::default(), now)
}

/// Records and sends a call.
fn sent<S: JournalStore>(journal: &mut ConsumerJournal<S>, call: NewCall, now: u64) {
    let wire_id = call.wire_id.clone();
    assert_eq!(journal.start(call, now), Ok(Start::New));
    assert!(journal.mark_sent(&wire_id, now));
}

fn completed(result: &str) -> ToolOutcome {
    ToolOutcome::Completed { result: json(result) }
}

fn interrupted(message: &str) -> CallOutcome {
    CallOutcome::Interrupted { message: message.to_owned() }
}

fn settled(
    wire_id: &str,
    provider: ProviderWindow,
    outcome: CallOutcome,
    duration_ms: u64,
    recovered: bool,
    followup: Followup,
) -> Settled {
    Settled {
        call_id: wire_id.to_owned(),
        wire_id: wire(wire_id),
        tool: tool("add_to_cart"),
        provider,
        outcome,
        duration_ms,
        recovered,
        followup,
    }
}

// §1 Idempotency key

#[test]
fn a_settled_call_id_replays_its_result_without_sending() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(Some("agent-1"), "w1", shop()), T0);
    journal.on_response(&wire("w1"), completed(r#"{"ok":true}"#), T0 + 10).unwrap();
    let again = journal.start(new_call(Some("agent-1"), "w2", shop()), T0 + 20);
    assert_eq!(
        again,
        Ok(Start::Replay { wire_id: wire("w1"), outcome: CallOutcome::Completed { result: json(r#"{"ok":true}"#) } })
    );
    assert_eq!(journal.get(&wire("w2")), None, "a replay records nothing");
    assert!(!journal.mark_sent(&wire("w2"), T0 + 20));
}

#[test]
fn a_settled_call_id_replays_the_same_error() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(Some("agent-1"), "w1", shop()), T0);
    let mut error = ToolError::new(ErrorKind::ToolError, "Search is rate limited");
    error.status = Some(429);
    journal.on_response(&wire("w1"), ToolOutcome::Failed(error.clone()), T0 + 10).unwrap();
    let (mut journal, _) = reload(journal, T0 + 20);
    assert_eq!(
        journal.start(new_call(Some("agent-1"), "w2", shop()), T0 + 30),
        Ok(Start::Replay { wire_id: wire("w1"), outcome: CallOutcome::Failed(error) })
    );
}

#[test]
fn a_call_id_in_flight_is_joined_before_and_after_a_reload() {
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(Some("agent-1"), "w1", shop()), T0), Ok(Start::New));
    assert_eq!(journal.start(new_call(Some("agent-1"), "w2", shop()), T0 + 1), Ok(Start::Join { wire_id: wire("w1") }));
    assert!(journal.mark_sent(&wire("w1"), T0 + 2));
    let (mut journal, _) = reload(journal, T0 + 3);
    assert_eq!(journal.start(new_call(Some("agent-1"), "w3", shop()), T0 + 4), Ok(Start::Join { wire_id: wire("w1") }));
    assert_eq!(journal.pending().count(), 1);
}

#[test]
fn a_call_id_reused_for_another_tool_or_window_is_refused_naming_the_first_use() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(Some("agent-1"), "w1", shop()), T0);
    let mut other_tool = new_call(Some("agent-1"), "w2", shop());
    other_tool.tool = tool("checkout");
    let refusal = StartError::CallIdReused {
        call_id: "agent-1".to_owned(),
        first_tool: tool("add_to_cart"),
        first_origin: "https://shop.example".to_owned(),
        first_locator: "frame:top/0".to_owned(),
    };
    assert_eq!(journal.start(other_tool, T0 + 1), Err(refusal.clone()));
    let other_window =
        new_call(Some("agent-1"), "w3", ProviderWindow::new("https://shop.example", "frame:top/2", true));
    assert_eq!(journal.start(other_window, T0 + 2), Err(refusal.clone()));
    assert_eq!(journal.start(new_call(Some("agent-1"), "w4", plain()), T0 + 3), Err(refusal.clone()));
    assert_eq!(
        refusal.to_string(),
        "callId \"agent-1\" was first used to call `add_to_cart` in https://shop.example (frame:top/0): a callId \
         names one call, so use a new callId for another tool or window"
    );
}

#[test]
fn without_a_call_id_the_wire_id_is_the_call_id() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    assert_eq!(journal.lookup_call_id("w1").map(|e| e.wire_id().as_str()), Some("w1"));
    assert_eq!(journal.start(new_call(Some("w1"), "w2", shop()), T0 + 1), Ok(Start::Join { wire_id: wire("w1") }));
}

#[test]
fn calls_that_cannot_be_recorded_are_refused() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Err(StartError::WireIdInUse(wire("w1"))));
    let cases = [
        (
            new_call(Some(""), "w2", shop()),
            "this call cannot be recorded: its field `k` is out of range: a callId has 1 to 256 characters",
        ),
        (
            new_call(Some(&"k".repeat(257)), "w2", shop()),
            "this call cannot be recorded: its field `k` is out of range: a callId has 1 to 256 characters",
        ),
        (
            new_call(None, "w2", ProviderWindow::new("null origin", "x", true)),
            "this call cannot be recorded: its field `p` is out of range: origin \"null origin\" is not a serialized origin",
        ),
        (
            new_call(None, "w2", ProviderWindow::new("https://a.example", "a\nb", true)),
            "this call cannot be recorded: its field `p` is out of range: the locator is longer than 2048 bytes or holds a control character",
        ),
    ];
    for (call, message) in cases {
        assert_eq!(journal.start(call, T0).map_err(|e| e.to_string()), Err(message.to_owned()));
    }
    // Arguments that are not JSON text cannot even be given: a `NewCall` holds a checked `JsonText`.
    assert!(interpane_policy::JsonText::parse("{", &interpane_policy::Limits::default()).is_err());
    assert!(journal.start(new_call(Some(&"k".repeat(256)), "w2", shop()), T0).is_ok());
}

// §2 The caller's page reloads

#[test]
fn a_recorded_call_is_sent_once_after_a_reload() {
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Ok(Start::New));
    let (mut journal, recoveries) = reload(journal, T0 + 5);
    assert_eq!(recoveries, [Recovery::Send(request("w1", shop(), false))]);
    assert!(journal.mark_sent(&wire("w1"), T0 + 6));
    assert!(!journal.mark_sent(&wire("w1"), T0 + 7), "sent once");
    let (_, recoveries) = reload(journal, T0 + 8);
    assert_eq!(recoveries, [Recovery::AskStatus { wire_id: wire("w1"), provider: shop() }]);
}

#[test]
fn a_call_sent_to_a_bridge_is_asked_about_and_its_recorded_result_delivered() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let (mut journal, recoveries) = reload(journal, T0 + 100);
    assert_eq!(recoveries, [Recovery::AskStatus { wire_id: wire("w1"), provider: shop() }]);
    assert_eq!(journal.on_status(&wire("w1"), ProviderStatus::Running, T0 + 101), StatusDecision::Wait);
    let report = journal.on_response(&wire("w1"), completed("1"), T0 + 150);
    let expected = settled("w1", shop(), CallOutcome::Completed { result: json("1") }, 150, true, Followup::Ack);
    assert_eq!(report, Some(expected));
    assert_eq!(journal.on_response(&wire("w1"), completed("1"), T0 + 151), None, "a duplicate settles nothing");
    let (_, recoveries) = reload(journal, T0 + 200);
    assert_eq!(recoveries, [Recovery::Ack { provider: shop(), wire_ids: vec![wire("w1")] }]);
}

#[test]
fn a_call_the_provider_never_received_is_sent_again_once_per_page() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let (mut journal, _) = reload(journal, T0 + 100);
    let unknown = ProviderStatus::Unknown { durable: true };
    assert_eq!(journal.on_status(&wire("w1"), unknown, T0 + 101), StatusDecision::Resend(request("w1", shop(), true)));
    assert_eq!(journal.on_status(&wire("w1"), unknown, T0 + 102), StatusDecision::Wait);
    let (mut journal, _) = reload(journal, T0 + 103);
    assert_eq!(journal.on_status(&wire("w1"), unknown, T0 + 104), StatusDecision::Resend(request("w1", shop(), true)));
}

#[test]
fn an_unknown_answer_that_may_predate_this_pages_post_is_waited_for_not_resent() {
    // Regression (found by journal_sim): a status request posted before the call was sent is answered
    // "unknown"; re-sending on that answer could run the call twice if the provider forgets it in between.
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Ok(Start::New));
    assert!(journal.mark_sent(&wire("w1"), T0 + 1));
    let unknown = ProviderStatus::Unknown { durable: true };
    assert_eq!(journal.on_status(&wire("w1"), unknown, T0 + 2), StatusDecision::Wait);
    let (mut journal, recoveries) = reload(journal, T0 + 3);
    assert_eq!(recoveries, [Recovery::AskStatus { wire_id: wire("w1"), provider: shop() }]);
    assert_eq!(
        journal.on_status(&wire("w1"), unknown, T0 + 4),
        StatusDecision::Resend(request("w1", shop(), true)),
        "an earlier page posted it: every earlier post was lost"
    );
}

#[test]
fn a_call_unknown_to_a_provider_without_durable_journal_is_interrupted() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let (mut journal, _) = reload(journal, T0 + 100);
    let decision = journal.on_status(&wire("w1"), ProviderStatus::Unknown { durable: false }, T0 + 101);
    let expected = settled("w1", shop(), interrupted(PROVIDER_NOT_DURABLE), 101, true, Followup::Nothing);
    assert_eq!(decision, StatusDecision::Settled(expected));
    assert_eq!(journal.on_status(&wire("w1"), ProviderStatus::Running, T0 + 102), StatusDecision::Ignored);
}

#[test]
fn a_provider_answer_of_interrupted_settles_as_interrupted() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let error = ToolError::new(ErrorKind::Interrupted, "the provider page reloaded");
    let report = journal.on_response(&wire("w1"), ToolOutcome::Failed(error), T0 + 1).unwrap();
    assert_eq!(report.outcome, interrupted("the provider page reloaded"));
    assert_eq!(report.outcome.error().map(|e| e.kind), Some(ErrorKind::Interrupted));
}

#[test]
fn a_call_sent_to_a_plain_peer_is_interrupted_by_a_reload_and_reported_once() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", plain()), T0);
    let (journal, recoveries) = reload(journal, T0 + 40);
    let expected = settled("w1", plain(), interrupted(PLAIN_PEER_UNANSWERED), 40, true, Followup::Nothing);
    assert_eq!(recoveries, [Recovery::Settled(expected)]);
    let (journal, recoveries) = reload(journal, T0 + 50);
    assert_eq!(recoveries, [], "reported once, ever");
    assert!(matches!(journal.get(&wire("w1")).unwrap().phase(), CallPhase::Settled { .. }));
}

#[test]
fn a_plain_peer_response_needs_no_acknowledgement() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", plain()), T0);
    let report = journal.on_response(&wire("w1"), completed("2"), T0 + 3).unwrap();
    assert_eq!(report.followup, Followup::Nothing);
    assert!(!report.recovered);
    assert_eq!(reload(journal, T0 + 4).1, []);
}

#[test]
fn acknowledged_outcomes_are_not_acknowledged_again() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    sent(&mut journal, new_call(None, "w2", shop()), T0);
    journal.on_response(&wire("w1"), completed("1"), T0 + 1).unwrap();
    journal.on_response(&wire("w2"), completed("2"), T0 + 2).unwrap();
    journal.mark_acked(&[wire("w1")]);
    let (journal, recoveries) = reload(journal, T0 + 3);
    assert_eq!(recoveries, [Recovery::Ack { provider: shop(), wire_ids: vec![wire("w2")] }]);
    let CallPhase::Settled { ack, .. } = journal.get(&wire("w1")).unwrap().phase() else { panic!("settled") };
    assert_eq!(*ack, AckState::Sent);
}

#[test]
fn acknowledgements_are_batched_per_window_by_512() {
    let config = JournalConfig { settled_calls_kept: 2000, ..JournalConfig::default() };
    let (mut journal, _) = open_with(MemoryStore::durable(), config.clone(), T0);
    let other = ProviderWindow::new("https://other.example", "frame:top/3", true);
    for n in 0..513 {
        sent(&mut journal, new_call(None, &format!("a{n:03}"), shop()), T0);
        journal.on_response(&wire(&format!("a{n:03}")), completed("0"), T0 + 1).unwrap();
    }
    sent(&mut journal, new_call(None, "b", other.clone()), T0);
    journal.on_response(&wire("b"), completed("0"), T0 + 1).unwrap();
    let (_, recoveries) = open_with(journal.into_store(), config, T0 + 2);
    let sizes: Vec<(String, usize)> = recoveries
        .iter()
        .map(|r| match r {
            Recovery::Ack { provider, wire_ids } => (provider.origin.clone(), wire_ids.len()),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        sizes,
        [
            ("https://other.example".to_owned(), 1),
            ("https://shop.example".to_owned(), 512),
            ("https://shop.example".to_owned(), 1)
        ]
    );
}

#[test]
fn responses_for_unknown_unsent_or_settled_calls_settle_nothing() {
    let mut journal = open(T0);
    assert_eq!(journal.on_response(&wire("nope"), completed("1"), T0), None);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Ok(Start::New));
    assert_eq!(journal.on_response(&wire("w1"), completed("1"), T0), None, "never sent");
    assert_eq!(journal.on_status(&wire("w1"), ProviderStatus::Running, T0), StatusDecision::Ignored);
    assert_eq!(journal.on_status(&wire("nope"), ProviderStatus::Running, T0), StatusDecision::Ignored);
}

#[test]
fn a_result_is_json_text_and_a_long_one_is_stored_truncated() {
    let config = JournalConfig { result_cap_chars: 40, ..JournalConfig::default() };
    let (mut journal, _) = open_with(MemoryStore::durable(), config, T0);
    sent(&mut journal, new_call(Some("k1"), "w1", plain()), T0);
    sent(&mut journal, new_call(Some("k2"), "w2", plain()), T0);
    // A result that is not JSON text cannot reach the journal (the session refuses it first); a JSON string is
    // kept as it is.
    assert!(interpane_policy::JsonText::parse("not json", &interpane_policy::Limits::default()).is_err());
    let report = journal.on_response(&wire("w1"), completed("\"not json\""), T0).unwrap();
    assert_eq!(report.outcome, CallOutcome::Completed { result: json("\"not json\"") });
    let long = format!("\"{}\"", "x".repeat(100));
    let report = journal.on_response(&wire("w2"), completed(&long), T0).unwrap();
    assert_eq!(report.outcome, CallOutcome::Completed { result: json(&long) }, "the live caller gets it whole");
    assert_eq!(
        journal.start(new_call(Some("k2"), "w3", plain()), T0),
        Ok(Start::Replay {
            wire_id: wire("w2"),
            outcome: CallOutcome::Completed { result: json(r#"{"truncated":true,"preview":"\"xxxxxxx"}"#) }
        })
    );
}

// §4 Stop

#[test]
fn a_call_stopped_before_it_was_sent_is_never_sent() {
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Ok(Start::New));
    let report = journal.stop(&wire("w1"), T0 + 1);
    assert_eq!(report, Some(settled("w1", shop(), CallOutcome::Stopped, 1, false, Followup::Nothing)));
    assert!(!journal.mark_sent(&wire("w1"), T0 + 2));
    assert_eq!(journal.stop(&wire("w1"), T0 + 3), None);
    let (mut journal, recoveries) = reload(journal, T0 + 4);
    assert_eq!(recoveries, []);
    assert!(!journal.mark_sent(&wire("w1"), T0 + 5));
}

#[test]
fn a_sent_call_that_is_stopped_tells_a_bridge_provider_to_cancel() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    sent(&mut journal, new_call(None, "w2", plain()), T0);
    assert_eq!(journal.stop(&wire("w1"), T0 + 1).map(|s| s.followup), Some(Followup::Cancel));
    assert_eq!(journal.stop(&wire("w2"), T0 + 1).map(|s| s.followup), Some(Followup::Nothing));
    assert_eq!(journal.on_response(&wire("w1"), completed("1"), T0 + 2), None, "a late result is ignored");
    let (mut journal, recoveries) = reload(journal, T0 + 3);
    assert_eq!(recoveries, [], "a stopped call is never resumed");
    assert_eq!(
        journal.start(new_call(Some("w1"), "w3", shop()), T0 + 4),
        Ok(Start::Replay { wire_id: wire("w1"), outcome: CallOutcome::Stopped })
    );
    let error = CallOutcome::Stopped.error().unwrap();
    assert_eq!(
        (error.kind, error.error_name(), error.message.as_str()),
        (ErrorKind::Cancelled, "AbortError", STOPPED_MESSAGE)
    );
}

#[test]
fn a_time_limit_fails_the_call_and_cancels_it() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let report = journal.timed_out(&wire("w1"), T0 + 30_000).unwrap();
    assert_eq!(report.outcome, CallOutcome::Failed(ToolError::new(ErrorKind::Timeout, TIMED_OUT)));
    assert_eq!(report.followup, Followup::Cancel);
    assert_eq!(journal.timed_out(&wire("w1"), T0 + 30_001), None);
}

#[test]
fn a_provider_that_goes_away_interrupts_its_calls() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    assert_eq!(journal.start(new_call(None, "w2", shop()), T0), Ok(Start::New));
    assert_eq!(journal.peer_gone(&wire("w1"), T0 + 1).map(|s| s.outcome), Some(interrupted(PROVIDER_GONE)));
    assert_eq!(journal.peer_gone(&wire("w2"), T0 + 1).map(|s| s.outcome), Some(interrupted(PROVIDER_GONE_BEFORE_SEND)));
    assert_eq!(journal.peer_gone(&wire("w1"), T0 + 2), None);
    assert_eq!(journal.pending().count(), 0);
}

// §5 Tabs

#[test]
fn a_copied_tab_neither_resumes_nor_sees_the_original_calls() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(Some("agent-1"), "w1", shop()), T0);
    assert_eq!(journal.start(new_call(Some("agent-2"), "w2", plain()), T0), Ok(Start::New));
    let copied = journal.store().clone();
    for other in [Owner::new("tabB", "top").unwrap(), Owner::new("tabA", "top/1").unwrap()] {
        let (mut copy, recoveries) = ConsumerJournal::open(copied.clone(), other, JournalConfig::default(), T0 + 1);
        assert_eq!(recoveries, []);
        assert_eq!(copy.pending().count(), 0);
        assert_eq!(copy.lookup_call_id("agent-1"), None);
        assert_eq!(copy.start(new_call(Some("agent-1"), "w3", shop()), T0 + 2), Ok(Start::New));
        assert_eq!(copy.on_response(&wire("w1"), completed("1"), T0 + 3), None);
        assert_eq!(copy.stop(&wire("w2"), T0 + 3), None);
        for key in ["webmcp:c:w1", "webmcp:c:w2"] {
            assert_eq!(copy.store().get(key), journal.store().get(key), "the original's entries are left alone");
        }
    }
}

#[test]
fn entries_inherited_from_another_tab_are_removed_once_older_than_the_limits() {
    let mut original = open(T0);
    sent(&mut original, new_call(None, "s", shop()), T0);
    original.on_response(&wire("s"), completed("1"), T0).unwrap();
    sent(&mut original, new_call(None, "u", shop()), T0);
    let copied = original.into_store();
    let tab_b = Owner::new("tabB", "top").unwrap();
    let config = JournalConfig { settled_call_max_age_ms: HOUR, ..JournalConfig::default() };
    let open_copy = |store: MemoryStore, now: u64| {
        let (copy, recoveries) = ConsumerJournal::open(store, tab_b.clone(), config.clone(), now);
        assert_eq!(recoveries, []);
        copy.into_store()
    };
    let store = open_copy(copied.clone(), T0 + HOUR);
    assert_eq!(store, copied, "young: left alone");
    let store = open_copy(store, T0 + HOUR + 1);
    assert_eq!(store.keys().collect::<Vec<_>>(), ["webmcp:c:u"], "the settled one is past its hour");
    let store = open_copy(store, T0 + 24 * HOUR + 1);
    assert!(store.is_empty(), "the unsettled one is past a day");
    let sibling = Owner::new("tabA", "top/1").unwrap();
    let (_, recoveries) = ConsumerJournal::open(copied.clone(), sibling, JournalConfig::default(), T0 + 48 * HOUR);
    assert_eq!(recoveries, []);
}

// §7 Storage unavailable, corrupt entries

#[test]
fn entries_that_cannot_be_used_are_discarded_with_a_warning() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    let mut store = journal.into_store();
    let good = store.get("webmcp:c:w1").unwrap().to_owned();
    store.put("webmcp:c:garbage", "{not json").unwrap();
    store.put("webmcp:c:array", "[1,2]").unwrap();
    store.put("webmcp:c:moved", &good).unwrap();
    store.put("webmcp:c:future", r#"{"v":2,"anything":true}"#).unwrap();
    store.put("unrelated", "kept").unwrap();
    let (mut journal, recoveries) = open_with(store, JournalConfig::default(), T0 + 1);
    assert_eq!(recoveries, [Recovery::AskStatus { wire_id: wire("w1"), provider: shop() }]);
    let mut warnings: Vec<String> = journal.take_warnings().iter().map(ToString::to_string).collect();
    warnings.sort();
    assert_eq!(
        warnings,
        [
            "interpane: discarded the journal entry \"webmcp:c:array\": it is not a journal entry (not a JSON object with a version \"v\")",
            "interpane: discarded the journal entry \"webmcp:c:garbage\": it is not a journal entry (not JSON: expected a string key at byte 1, found 'n')",
            "interpane: discarded the journal entry \"webmcp:c:moved\": its key does not match its content",
            "interpane: left the journal entry \"webmcp:c:future\" alone: it belongs to format 2, written by another version of the bridge",
        ]
    );
    let store = journal.into_store();
    let keys: Vec<&str> = store.keys().collect();
    assert_eq!(keys, ["unrelated", "webmcp:c:future", "webmcp:c:w1"]);
}

/// A store whose writes fail until it is told otherwise.
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
            return Err(StoreError::Unavailable("SecurityError: access denied".into()));
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
fn when_storage_fails_the_journal_lives_in_memory_and_leaves_no_stale_entry() {
    let (mut journal, _) = ConsumerJournal::open(FailingStore::default(), owner(), JournalConfig::default(), T0);
    sent(&mut journal, new_call(Some("k"), "w1", shop()), T0);
    assert!(journal.is_durable());
    assert_eq!(journal.start(new_call(None, "w2", shop()), T0), Ok(Start::New));
    let mut store = journal.into_store();
    store.failing = true;
    let (mut journal, recoveries) = ConsumerJournal::open(store, owner(), JournalConfig::default(), T0 + 1);
    assert_eq!(recoveries.len(), 2);
    assert!(journal.mark_sent(&wire("w2"), T0 + 2), "the write fails, the decision stands");
    let warnings: Vec<String> = journal.take_warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        ["interpane: the journal's storage is unavailable: SecurityError: access denied. Calls are now journaled \
          in memory only: after a reload of this page, calls made before it cannot be resumed or proven to have run"]
    );
    assert!(!journal.is_durable());
    assert_eq!(journal.store().inner.len(), 0, "no entry is left to be resumed from a stale state");
    let report = journal.on_response(&wire("w1"), completed("1"), T0 + 3).unwrap();
    assert!(report.recovered);
    assert_eq!(
        journal.start(new_call(Some("k"), "w3", shop()), T0 + 4),
        Ok(Start::Replay { wire_id: wire("w1"), outcome: CallOutcome::Completed { result: json("1") } })
    );
    assert_eq!(journal.take_warnings(), [], "warned once");
}

#[test]
fn a_full_store_drops_the_older_half_of_settled_calls_before_giving_up() {
    let (mut journal, _) = open_with(MemoryStore::durable(), JournalConfig::default(), T0);
    for n in 0..6 {
        sent(&mut journal, new_call(None, &format!("s{n}"), plain()), T0 + n);
        journal.on_response(&wire(&format!("s{n}")), completed("0"), T0 + n).unwrap();
    }
    assert_eq!(journal.store().len(), 6);
    let entry_bytes = journal.store().used_bytes() / 6;
    let quota = journal.store().used_bytes() + 2 * entry_bytes;
    let (mut journal, _) = open_with(journal.into_store().with_quota(quota), JournalConfig::default(), T0 + 9);
    let big = NewCall {
        args: json(&format!("{{\"pad\":\"{}\"}}", "x".repeat(3 * entry_bytes))),
        ..new_call(None, "big", plain())
    };
    assert_eq!(journal.start(big, T0 + 10), Ok(Start::New));
    assert_eq!(journal.take_warnings(), []);
    assert!(journal.is_durable());
    let keys: Vec<&str> = journal.store().keys().collect();
    assert_eq!(keys, ["webmcp:c:big", "webmcp:c:s3", "webmcp:c:s4", "webmcp:c:s5"]);
    assert_eq!(journal.lookup_call_id("s0"), None);
}

#[test]
fn a_failed_flush_of_the_bridge_stops_writing_and_leaves_no_stale_entry() {
    let mut journal = open(T0);
    sent(&mut journal, new_call(None, "w1", shop()), T0);
    journal.storage_failed(StoreError::Full);
    assert!(!journal.is_durable());
    assert_eq!(journal.take_warnings().len(), 1);
    assert!(journal.store().is_empty());
    assert!(journal.on_response(&wire("w1"), completed("1"), T0 + 1).is_some(), "the journal goes on in memory");
    journal.storage_failed(StoreError::Full);
    assert_eq!(journal.take_warnings(), [], "warned once");
}

#[test]
fn a_memory_store_is_not_durable() {
    let (journal, _) = ConsumerJournal::open(MemoryStore::new(), owner(), JournalConfig::default(), T0);
    assert!(!journal.is_durable());
}

// §8 Bounded

#[test]
fn settled_calls_are_kept_up_to_the_count_and_age_limits() {
    let config = JournalConfig { settled_calls_kept: 2, ..JournalConfig::default() };
    assert_eq!(config.settled_call_max_age_ms, 24 * HOUR, "a day by default, as long as a provider remembers ids");
    let config = JournalConfig { settled_call_max_age_ms: HOUR, ..config };
    let (mut journal, _) = open_with(MemoryStore::durable(), config, T0);
    for (n, id) in ["k1", "k2", "k3"].iter().enumerate() {
        sent(&mut journal, new_call(Some(id), &format!("w{n}"), shop()), T0);
        journal.on_response(&wire(&format!("w{n}")), completed("0"), T0 + n as u64).unwrap();
    }
    assert_eq!(journal.lookup_call_id("k1"), None, "the oldest of three went");
    assert!(journal.lookup_call_id("k2").is_some());
    assert_eq!(journal.store().get("webmcp:c:w0"), None);
    assert_eq!(journal.prune(T0 + 1 + HOUR), []);
    assert!(journal.lookup_call_id("k2").is_some(), "k2 settled exactly an hour ago: kept");
    assert_eq!(journal.prune(T0 + 2 + HOUR), []);
    assert!(journal.lookup_call_id("k2").is_none() && journal.lookup_call_id("k3").is_some());
    assert_eq!(journal.prune(T0 + 3 + HOUR), []);
    assert!(journal.lookup_call_id("k3").is_none());
    assert_eq!(journal.store().len(), 0);
    assert_eq!(journal.start(new_call(Some("k1"), "w9", shop()), T0 + 3 * HOUR), Ok(Start::New), "forgotten: new");
}

/// Settled outcomes are kept for `callId` replays up to a byte budget, so that large results cannot fill the
/// sessionStorage quota and cost the journal its durability: beyond it the oldest outcomes are replaced by
/// `OUTCOME_NOT_KEPT`, and their entries stay, so that a `callId` whose outcome went still replays (that error)
/// instead of running the tool again. The newest outcome stays, however large. The budget counts the entries a
/// reload finds as well.
#[test]
fn settled_outcomes_are_kept_up_to_a_byte_budget_and_their_call_ids_never_run_again() {
    let config = JournalConfig { settled_outcome_bytes_max: 100, ..JournalConfig::default() };
    let (mut journal, _) = open_with(MemoryStore::durable(), config.clone(), T0);
    let text = |n: usize| format!("\"{}\"", "x".repeat(n));
    let settle = |journal: &mut Journal, n: u64, result: &str| {
        sent(journal, new_call(Some(&format!("k{n}")), &format!("w{n}"), shop()), T0 + n);
        journal.on_response(&wire(&format!("w{n}")), completed(result), T0 + n).unwrap();
    };
    let not_kept = CallOutcome::Failed(ToolError::new(ErrorKind::Refused, OUTCOME_NOT_KEPT));
    let outcome = |journal: &Journal, call_id: &str| match &journal.lookup_call_id(call_id).unwrap().phase() {
        CallPhase::Settled { outcome, .. } => outcome.clone(),
        phase => panic!("{call_id} is not settled: {phase:?}"),
    };
    let kept = |n: usize| CallOutcome::Completed { result: json(&text(n)) };
    settle(&mut journal, 0, &text(40));
    settle(&mut journal, 1, &text(40));
    assert_eq!((outcome(&journal, "k0"), outcome(&journal, "k1")), (kept(40), kept(40)), "about 90 bytes");
    settle(&mut journal, 2, &text(40));
    assert_eq!(outcome(&journal, "k0"), not_kept, "the oldest outcome went");
    assert_eq!((outcome(&journal, "k1"), outcome(&journal, "k2")), (kept(40), kept(40)));
    assert!(journal.store().get("webmcp:c:w0").unwrap().contains("no longer kept"), "stored as it is now");
    let replay = journal.start(new_call(Some("k0"), "w10", shop()), T0 + 5);
    assert_eq!(replay, Ok(Start::Replay { wire_id: wire("w0"), outcome: not_kept.clone() }), "not a second run");
    settle(&mut journal, 3, &text(500));
    assert_eq!((outcome(&journal, "k1"), outcome(&journal, "k2")), (not_kept.clone(), not_kept.clone()));
    assert_eq!(outcome(&journal, "k3"), kept(500), "the newest stays, larger than the budget alone");
    let (mut journal, _) = open_with(journal.into_store(), config, T0 + 10);
    assert_eq!(outcome(&journal, "k3"), kept(500));
    assert_eq!(outcome(&journal, "k0"), not_kept, "read back as it was left");
    settle(&mut journal, 4, "1");
    assert_eq!(outcome(&journal, "k3"), not_kept, "the reloaded entry counted against the budget");
    assert_eq!(outcome(&journal, "k4"), CallOutcome::Completed { result: json("1") });
    for n in 0..4 {
        let replay = journal.start(new_call(Some(&format!("k{n}")), &format!("w2{n}"), shop()), T0 + 20);
        assert!(matches!(replay, Ok(Start::Replay { .. })), "k{n} replays: {replay:?}");
    }
}

#[test]
fn unsettled_calls_are_limited() {
    let config = JournalConfig { unsettled_calls_max: 2, ..JournalConfig::default() };
    let (mut journal, _) = open_with(MemoryStore::durable(), config, T0);
    assert_eq!(journal.start(new_call(None, "w1", shop()), T0), Ok(Start::New));
    sent(&mut journal, new_call(None, "w2", shop()), T0);
    let refusal = journal.start(new_call(None, "w3", shop()), T0);
    assert_eq!(refusal, Err(StartError::TooManyUnsettled { limit: 2 }));
    assert_eq!(
        refusal.unwrap_err().to_string(),
        "2 calls of this page are still unsettled: wait for some to settle before making more"
    );
    journal.stop(&wire("w1"), T0 + 1).unwrap();
    assert_eq!(journal.start(new_call(None, "w3", shop()), T0 + 2), Ok(Start::New));
}

#[test]
fn calls_unsettled_for_a_day_settle_as_interrupted_and_are_never_sent_again() {
    let day = 24 * HOUR;
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(None, "r", shop()), T0), Ok(Start::New));
    sent(&mut journal, new_call(None, "s", shop()), T0 + 1);
    assert_eq!(journal.prune(T0 + day), []);
    let expired = journal.prune(T0 + day + 1);
    assert_eq!(expired, [settled("r", shop(), interrupted(TOO_OLD_RECORDED), day + 1, false, Followup::Nothing)]);
    let unknown = ProviderStatus::Unknown { durable: true };
    let decision = journal.on_status(&wire("s"), unknown, T0 + day + 2);
    let expected = settled("s", shop(), interrupted(TOO_OLD_SENT), day + 1, false, Followup::Nothing);
    assert_eq!(decision, StatusDecision::Settled(expected), "never re-sent past the age limit");
}

#[test]
fn a_reopened_journal_settles_calls_older_than_a_day() {
    let day = 24 * HOUR;
    let mut journal = open(T0);
    assert_eq!(journal.start(new_call(None, "r", shop()), T0), Ok(Start::New));
    sent(&mut journal, new_call(None, "s", shop()), T0);
    let (_, recoveries) = reload(journal, T0 + day + 1);
    assert_eq!(
        recoveries,
        [
            Recovery::Settled(settled("r", shop(), interrupted(TOO_OLD_RECORDED), day + 1, true, Followup::Nothing)),
            Recovery::Settled(settled("s", shop(), interrupted(TOO_OLD_SENT), day + 1, true, Followup::Nothing)),
        ]
    );
}
