//! Cost of the once-only journals with a `MemoryStore` (the bridge adds its sessionStorage writes on top):
//! - one call's whole life in the caller's journal (start, sent, response, ack) and in the tool page's journal
//!   (execute, finish, ack), in a steady state where pruning runs on every write;
//! - the same two lives as the session runs them: writes deferred, the journals over their storage logs
//!   (`LogStore`), one flush per call (the bridge flushes once per task), in a steady state that keeps as many
//!   records as the defaults allow;
//! - opening a caller's journal that holds 1000 calls in flight, and a tool page's journal that holds 1000 kept
//!   results.
//!
//! Run with `cargo bench -p interpane-policy --bench journal`.

#[cfg(not(target_arch = "wasm32"))]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark whose inputs do not behave as described must stop at once"
)]
mod native {
    use std::hint::black_box;

    use criterion::{BatchSize, Criterion, criterion_group};
    use interpane_policy::journal::{
        ConsumerJournal, ExecuteDecision, JournalConfig, MemoryStore, NewCall, Owner, ProviderJournal, ProviderWindow,
        Recovery, Start, ToolOutcome,
    };
    use interpane_policy::log_store::LogStore;
    use interpane_policy::{JsonText, Limits, RequestId, ToolName};

    const T0: u64 = 1_700_000_000_000;
    const CALLER: &str = "https://caller.example";

    /// 10,000 distinct wire ids, used in turn: far more than either journal keeps, so none is still recorded
    /// when it comes back.
    fn wire_ids() -> Vec<RequestId> {
        (0..10_000).map(|n| RequestId::new(format!("c_{n:022}")).unwrap()).collect()
    }

    /// The arguments of every call, checked once (as the session receives them): each call copies them.
    fn args() -> JsonText {
        JsonText::parse(r#"{"sku":"margherita","quantity":2,"note":"no olives"}"#, &Limits::default()).unwrap()
    }

    fn call(wire_id: &RequestId, args: &JsonText) -> NewCall {
        NewCall {
            call_id: None,
            wire_id: wire_id.clone(),
            tool: ToolName::new("add_to_cart").unwrap(),
            provider: ProviderWindow::new("https://shop.example", "frame:top/0", true),
            args: args.clone(),
        }
    }

    /// Every call's result, checked once (as the session receives it): each call copies it.
    fn result() -> ToolOutcome {
        let text = r#"{"content":[{"type":"text","text":"Added 2 margherita to the cart"}]}"#;
        ToolOutcome::Completed { result: JsonText::parse(text, &Limits::default()).unwrap() }
    }

    fn consumer_cycle(c: &mut Criterion) {
        let ids = wire_ids();
        let owner = Owner::new("t5Yq0bX2", "top").unwrap();
        let (mut journal, _) = ConsumerJournal::open(MemoryStore::durable(), owner, JournalConfig::default(), T0);
        let (args, result) = (args(), result());
        let mut n = 0usize;
        c.bench_function("journal/consumer/start_sent_response_ack", |b| {
            b.iter(|| {
                let wire = &ids[n % ids.len()];
                let now = T0 + n as u64;
                n += 1;
                assert_eq!(journal.start(call(wire, &args), now), Ok(Start::New));
                assert!(journal.mark_sent(wire, now));
                let settled = journal.on_response(wire, result.clone(), now + 1).expect("settles");
                journal.mark_acked(std::slice::from_ref(wire));
                black_box(settled)
            })
        });
    }

    fn provider_cycle(c: &mut Criterion) {
        let ids = wire_ids();
        let owner = Owner::new("p7Kd2mQ9", "top/0").unwrap();
        let mut journal = ProviderJournal::open(MemoryStore::durable(), owner, JournalConfig::default(), T0);
        let tool = ToolName::new("add_to_cart").unwrap();
        let result = result();
        let mut n = 0usize;
        c.bench_function("journal/provider/execute_finish_ack", |b| {
            b.iter(|| {
                let wire = &ids[n % ids.len()];
                let now = T0 + n as u64;
                n += 1;
                assert_eq!(journal.on_execute(CALLER, wire, &tool, now), ExecuteDecision::Run);
                let answer = journal.on_finish(CALLER, wire, result.clone(), now + 1).expect("runs here");
                journal.on_ack(CALLER, std::slice::from_ref(wire), now + 2);
                black_box(answer)
            })
        });
    }

    /// Both journals as the session holds them: over a `LogStore` each, writes deferred, flushed into the page's
    /// store after every call. Before measuring, enough calls to fill what the journals keep (settled calls, ran
    /// ids) and to pass the logs' first snapshots.
    fn logged_cycles(c: &mut Criterion) {
        let ids = wire_ids();
        let (args, result) = (args(), result());
        let mut storage = MemoryStore::durable();
        let consumer_log = LogStore::open(&mut storage, "webmcp:log:c:t5Yq0bX2:top:", T0);
        let provider_log = LogStore::open(&mut storage, "webmcp:log:p:p7Kd2mQ9:top/0:", T0);
        let consumer_owner = Owner::new("t5Yq0bX2", "top").unwrap();
        let (mut consumer, _) = ConsumerJournal::open(consumer_log, consumer_owner, JournalConfig::default(), T0);
        let provider_owner = Owner::new("p7Kd2mQ9", "top/0").unwrap();
        let mut provider = ProviderJournal::open(provider_log, provider_owner, JournalConfig::default(), T0);
        consumer.defer_writes();
        provider.defer_writes();
        let tool = ToolName::new("add_to_cart").unwrap();
        let mut n = 0usize;
        let mut consumer_call = |storage: &mut MemoryStore| {
            let wire = &ids[n % ids.len()];
            let now = T0 + n as u64;
            n += 1;
            assert_eq!(consumer.start(call(wire, &args), now), Ok(Start::New));
            assert!(consumer.mark_sent(wire, now));
            consumer.flush(now, storage).unwrap();
            let settled = consumer.on_response(wire, result.clone(), now + 1).expect("settles");
            consumer.mark_acked(std::slice::from_ref(wire));
            consumer.flush(now + 1, storage).unwrap();
            settled
        };
        for _ in 0..3000 {
            consumer_call(&mut storage);
        }
        c.bench_function("journal/consumer/logged_call_two_flushes", |b| {
            b.iter(|| black_box(consumer_call(&mut storage)))
        });
        let mut m = 0usize;
        let mut provider_call = |storage: &mut MemoryStore| {
            let wire = &ids[m % ids.len()];
            let now = T0 + m as u64;
            m += 1;
            assert_eq!(provider.on_execute(CALLER, wire, &tool, now), ExecuteDecision::Run);
            let answer = provider.on_finish(CALLER, wire, result.clone(), now + 1).expect("runs here");
            provider.flush(now + 1, storage).unwrap();
            provider.on_ack(CALLER, std::slice::from_ref(wire), now + 2);
            provider.flush(now + 2, storage).unwrap();
            answer
        };
        for _ in 0..3000 {
            provider_call(&mut storage);
        }
        c.bench_function("journal/provider/logged_call_two_flushes", |b| {
            b.iter(|| black_box(provider_call(&mut storage)))
        });
    }

    fn open_1000(c: &mut Criterion) {
        let ids = wire_ids();
        let consumer_owner = Owner::new("t5Yq0bX2", "top").unwrap();
        let (mut consumer, _) =
            ConsumerJournal::open(MemoryStore::durable(), consumer_owner.clone(), JournalConfig::default(), T0);
        for wire in &ids[..1000] {
            assert_eq!(consumer.start(call(wire, &args()), T0), Ok(Start::New));
            assert!(consumer.mark_sent(wire, T0));
        }
        let consumer_store = consumer.into_store();
        let (_, recoveries) =
            ConsumerJournal::open(consumer_store.clone(), consumer_owner.clone(), JournalConfig::default(), T0 + 1);
        assert_eq!(recoveries.len(), 1000);
        assert!(matches!(recoveries[0], Recovery::AskStatus { .. }));
        c.bench_function("journal/consumer/open_1000_in_flight", |b| {
            b.iter_batched(
                || consumer_store.clone(),
                |store| ConsumerJournal::open(store, consumer_owner.clone(), JournalConfig::default(), T0 + 1),
                BatchSize::LargeInput,
            )
        });

        let provider_owner = Owner::new("p7Kd2mQ9", "top/0").unwrap();
        let mut provider =
            ProviderJournal::open(MemoryStore::durable(), provider_owner.clone(), JournalConfig::default(), T0);
        let tool = ToolName::new("add_to_cart").unwrap();
        for wire in &ids[..1000] {
            assert_eq!(provider.on_execute(CALLER, wire, &tool, T0), ExecuteDecision::Run);
            provider.on_finish(CALLER, wire, result(), T0).expect("runs here");
        }
        let provider_store = provider.into_store();
        assert_eq!(provider_store.len(), 1000);
        c.bench_function("journal/provider/open_1000_results", |b| {
            b.iter_batched(
                || provider_store.clone(),
                |store| ProviderJournal::open(store, provider_owner.clone(), JournalConfig::default(), T0 + 1),
                BatchSize::LargeInput,
            )
        });
    }

    criterion_group!(benches, consumer_cycle, provider_cycle, logged_cycles, open_1000);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
