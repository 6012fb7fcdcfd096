//! The provider journal over a batched store with a quota, as the bridge runs it (docs/once-only.md §7, §8): one
//! caller origin cannot push the journal out of storage; a full store costs held results (`expired`), never the
//! durability of the records that keep a call from running twice.
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
    EXPIRED_MESSAGE, ExecuteDecision, JournalConfig, MemoryStore, Owner, ProviderJournal, StatusAnswer, ToolOutcome,
};
use interpane_policy::log_store::LogStore;
use interpane_policy::{ErrorKind, RequestId, ToolError, ToolName};

const T0: u64 = 1_700_000_000_000;
/// About what `sessionStorage` holds for an origin.
const SESSION_QUOTA: usize = 5 * 1024 * 1024;
const GREEDY: &str = "https://greedy.example";
const CALLER: &str = "https://caller.example";
const LOG: &str = "webmcp:log:p:tabP:top/0:";

/// The journal with the page's sessionStorage beside it, as the bridge holds them.
struct Journal {
    journal: ProviderJournal<LogStore>,
    storage: MemoryStore,
}

impl std::ops::Deref for Journal {
    type Target = ProviderJournal<LogStore>;
    fn deref(&self) -> &Self::Target {
        &self.journal
    }
}

impl std::ops::DerefMut for Journal {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.journal
    }
}

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

/// Opens the journal as the bridge does: over a log in `store`, writes deferred to each flush.
fn open(mut storage: MemoryStore, config: JournalConfig, now: u64) -> Journal {
    let mut journal = ProviderJournal::open(LogStore::open(&mut storage, LOG, now), owner(), config, now);
    journal.defer_writes();
    Journal { journal, storage }
}

/// What the bridge's `flush_journals` does with the provider journal.
fn flush(journal: &mut Journal, now: u64) {
    let Journal { journal, storage } = journal;
    if let Err(error) = journal.flush(now, storage) {
        journal.storage_failed(error, now);
    }
}

/// The page reloads: the journal is read again from what reached the store.
fn reload(journal: Journal, config: JournalConfig, now: u64) -> Journal {
    open(journal.storage, config, now)
}

/// A JSON string result of `chars` characters.
fn result_of(chars: usize) -> String {
    format!("\"{}\"", "x".repeat(chars - 2))
}

/// Runs one call of `origin` to its end, flushing as the bridge does; returns the outcome sent.
fn call(journal: &mut Journal, origin: &str, id: &str, result: &str, now: u64) -> ToolOutcome {
    let decision = journal.on_execute(origin, &wire(id), &ToolName::new("search").unwrap(), now);
    assert_eq!(decision, ExecuteDecision::Run, "{origin} {id} runs once");
    flush(journal, now);
    let sent = journal.on_finish(origin, &wire(id), ToolOutcome::Completed { result: json(result) }, now + 1);
    flush(journal, now + 1);
    sent.unwrap()
}

fn expired() -> ExecuteDecision {
    ExecuteDecision::Reply(ToolOutcome::Failed(ToolError::new(ErrorKind::Refused, EXPIRED_MESSAGE)))
}

/// No id of `origin` in `ids` runs again, as a request or as a re-send.
fn none_runs_again(journal: &mut Journal, origin: &str, ids: impl Iterator<Item = String>, now: u64) {
    let tool = ToolName::new("search").unwrap();
    for id in ids {
        for decision in
            [journal.on_execute(origin, &wire(&id), &tool, now), journal.on_resend(origin, &wire(&id), &tool, now)]
        {
            assert!(matches!(decision, ExecuteDecision::Reply(_)), "{origin} {id} would run again: {decision:?}");
        }
    }
}

#[test]
fn an_origin_that_never_acknowledges_cannot_push_the_journal_out_of_storage() {
    // Regression (issue 13): an allowed caller that called a tool returning ~29,000 characters a few hundred times
    // and never acknowledged filled sessionStorage; the journal fell back to memory and, for a day, answered
    // `durable: false` to every caller.
    let config = JournalConfig::default();
    let big = result_of(29_000);
    let mut journal = open(MemoryStore::durable().with_quota(SESSION_QUOTA), config.clone(), T0);
    let mut now = T0;
    let mut caller_ids = Vec::new();
    for i in 0..400 {
        now += 10;
        assert_eq!(
            call(&mut journal, GREEDY, &format!("g{i}"), &big, now),
            ToolOutcome::Completed { result: json(&big) }
        );
        if i % 20 == 0 {
            // Another origin's call, acknowledged as the bridge does, and one it has not acknowledged yet.
            let id = format!("c{i}");
            call(&mut journal, CALLER, &id, "1", now + 2);
            journal.on_ack(CALLER, &[wire(&id)], now + 3);
            caller_ids.push(id);
        }
        assert!(journal.is_durable(), "after {i} calls the journal fell back to memory: {:?}", journal.take_warnings());
    }
    call(&mut journal, CALLER, "held", "\"mine\"", now + 4);
    now += 10;
    assert_eq!(journal.take_warnings(), []);
    assert!(journal.storage.used_bytes() <= SESSION_QUOTA);

    check_after_flood(&mut journal, &caller_ids, &big, now);
    let mut journal = reload(journal, config, now + 1);
    check_after_flood(&mut journal, &caller_ids, &big, now + 2);
}

fn check_after_flood(journal: &mut Journal, caller_ids: &[String], big: &str, now: u64) {
    let tool = ToolName::new("search").unwrap();
    assert!(journal.is_durable());
    // The other origin is unaffected: its held result is kept, and "unknown" still proves a call never ran.
    let held = journal.on_execute(CALLER, &wire("held"), &tool, now);
    assert_eq!(held, ExecuteDecision::Reply(ToolOutcome::Completed { result: json("\"mine\"") }));
    assert_eq!(journal.on_status(CALLER, &wire("never"), now), StatusAnswer::Unknown { durable: true });
    assert_eq!(journal.on_status(GREEDY, &wire("never"), now), StatusAnswer::Unknown { durable: true });
    // The greedy origin's oldest results were dropped: they answer `expired`; its latest is still held.
    assert_eq!(journal.on_execute(GREEDY, &wire("g0"), &tool, now), expired());
    let latest = journal.on_execute(GREEDY, &wire("g399"), &tool, now);
    assert_eq!(latest, ExecuteDecision::Reply(ToolOutcome::Completed { result: json(big) }));
    // And no call of either origin can run twice.
    none_runs_again(journal, GREEDY, (0..400).map(|i| format!("g{i}")), now);
    none_runs_again(journal, CALLER, caller_ids.iter().cloned(), now);
}

#[test]
fn held_results_are_bounded_per_caller_origin_and_the_oldest_go_first() {
    // (calls in order: origin, id, bytes of the result; ids whose result is dropped; ids whose result is held)
    type Case = (&'static [(&'static str, &'static str, usize)], &'static [&'static str], &'static [&'static str]);
    const A: &str = "https://a.example";
    const B: &str = "https://b.example";
    let cases: [Case; 6] = [
        (&[(A, "a1", 40), (A, "a2", 60)], &[], &["a1", "a2"]),
        (&[(A, "a1", 40), (A, "a2", 40), (A, "a3", 40)], &["a1"], &["a2", "a3"]),
        (&[(A, "a1", 30), (A, "a2", 30), (A, "a3", 90)], &["a1", "a2"], &["a3"]),
        (&[(A, "a1", 60), (B, "b1", 60), (A, "a2", 60)], &["a1"], &["b1", "a2"]),
        (&[(B, "b1", 100), (A, "a1", 150)], &["a1"], &["b1"]),
        (&[(A, "a1", 101)], &["a1"], &[]),
    ];
    let config = JournalConfig { held_result_bytes_per_origin_max: 100, ..JournalConfig::default() };
    let tool = ToolName::new("search").unwrap();
    for (n, (calls, dropped, held)) in cases.iter().enumerate() {
        let mut journal = open(MemoryStore::durable(), config.clone(), T0);
        for (i, (origin, id, bytes)) in calls.iter().enumerate() {
            // Digits: a JSON number whose stored text is as long as it (no escapes).
            let result = "1".repeat(*bytes);
            let sent = call(&mut journal, origin, id, &result, T0 + 10 * i as u64);
            assert_eq!(
                sent,
                ToolOutcome::Completed { result: json(&result) },
                "case {n}: a dropped result is still sent"
            );
        }
        let mut journal = reload(journal, config.clone(), T0 + 100);
        for (origin, id, bytes) in calls.iter() {
            let answer = journal.on_execute(origin, &wire(id), &tool, T0 + 101);
            if dropped.contains(id) {
                assert_eq!(answer, expired(), "case {n}: {id}");
            } else {
                assert!(held.contains(id), "case {n}: {id} is listed");
                let result = "1".repeat(*bytes);
                assert_eq!(
                    answer,
                    ExecuteDecision::Reply(ToolOutcome::Completed { result: json(&result) }),
                    "case {n}: {id}"
                );
            }
        }
    }
}

#[test]
fn a_full_store_costs_held_results_never_the_records_that_prevent_a_second_run() {
    // Origins each within their budget can still fill the storage together: the flush that finds it full drops
    // the held results (of every origin) and writes the records again, instead of giving up durability.
    let config = JournalConfig::default();
    let quota = 64 * 1024;
    let result = result_of(8_000);
    let origins = ["https://a.example", "https://b.example", "https://c.example"];
    let mut journal = open(MemoryStore::durable().with_quota(quota), config.clone(), T0);
    let mut now = T0;
    let mut ran = Vec::new();
    for i in 0..30 {
        for origin in origins {
            now += 10;
            let id = format!("w{i}");
            call(&mut journal, origin, &id, &result, now);
            ran.push((origin, id));
            assert!(journal.is_durable(), "call {i} of {origin}: {:?}", journal.take_warnings());
        }
    }
    assert_eq!(journal.take_warnings(), []);
    assert!(journal.storage.used_bytes() <= quota);
    let tool = ToolName::new("search").unwrap();
    let mut journal = reload(journal, config, now + 1);
    let mut dropped = 0;
    for (origin, id) in &ran {
        match journal.on_execute(origin, &wire(id), &tool, now + 2) {
            ExecuteDecision::Reply(ToolOutcome::Completed { result: kept }) => assert_eq!(kept.as_str(), result),
            answer => {
                assert_eq!(answer, expired(), "{origin} {id}");
                dropped += 1;
            }
        }
        let resend = journal.on_resend(origin, &wire(id), &tool, now + 2);
        assert!(matches!(resend, ExecuteDecision::Reply(_)), "{origin} {id} would run again");
    }
    assert!(dropped > 0, "the store filled up");
    assert_eq!(journal.on_status(origins[0], &wire("never"), now + 2), StatusAnswer::Unknown { durable: true });
}

#[test]
fn when_even_the_records_do_not_fit_the_note_stays_and_no_call_runs_twice() {
    // Regression: a flush that failed freed the old log to make room for a snapshot that did not fit either, and
    // the note of the horizon never reached the storage: after a reload the journal was empty, answered
    // `durable: true`, and a re-sent call that had run ran again.
    let config = JournalConfig::default();
    let mut journal = open(MemoryStore::durable().with_quota(3_000), config.clone(), T0);
    let mut now = T0;
    let mut ran = Vec::new();
    for i in 0..40 {
        now += 10;
        let id = format!("w{i}");
        call(&mut journal, CALLER, &id, "1", now);
        journal.on_ack(CALLER, &[wire(&id)], now + 2);
        flush(&mut journal, now + 2);
        ran.push(id);
    }
    assert!(!journal.is_durable(), "the records of 40 calls do not fit in 3,000 bytes");
    let warnings: Vec<String> = journal.take_warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        ["interpane: the journal's storage is full: prune it or free space in sessionStorage. Calls are now \
          journaled in memory only: after a reload of this page, calls made before it cannot be resumed or proven \
          to have run"]
    );
    let tool = ToolName::new("search").unwrap();
    let mut journal = reload(journal, config, now + 1);
    for id in &ran {
        assert_eq!(journal.on_status(CALLER, &wire(id), now + 2), StatusAnswer::Unknown { durable: false }, "{id}");
        let resend = journal.on_resend(CALLER, &wire(id), &tool, now + 2);
        assert!(matches!(resend, ExecuteDecision::Reply(_)), "{id} would run again: {resend:?}");
    }
}
