#![no_main]
//! Journal entries from arbitrary bytes. Each decoder returns a value or an error, never panics; what decodes is a
//! fixed point of encode/decode. Then both journals open over a store of arbitrary values (each line of the input
//! is `key=value`, and each value is also tried with this page's owner written in), run a few calls, and reopen:
//! no panic, and nothing the journals wrote is ever refused by the next page.

use libfuzzer_sys::fuzz_target;
use interpane_policy::journal::{
    ConsumerEntry, ConsumerJournal, JournalConfig, JournalStore, JournalWarning, MemoryStore, NewCall, Owner,
    ProviderEntry, ProviderJournal, ProviderMeta, ProviderStatus, ProviderWindow, ToolOutcome,
};
use interpane_policy::{JsonText, Limits, RequestId, ToolName};

const NOW: u64 = 1_700_000_000_000;

/// `text` as a result: itself when it is JSON text, else a JSON string holding it.
fn result_of(text: &str) -> JsonText {
    JsonText::parse(text, &Limits::default())
        .unwrap_or_else(|_| JsonText::from_value(&serde_json::Value::String(text.to_owned())))
}

fn owner() -> Owner {
    Owner::new("tabF", "top").expect("valid owner")
}

/// `value` with its `"o"` replaced by this page's owner, when it is a JSON object.
fn owned(value: &str) -> Option<String> {
    let mut object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(value).ok()?;
    object.insert("o".into(), serde_json::json!({ "t": "tabF", "s": "top" }));
    Some(serde_json::Value::Object(object).to_string())
}

fn check_decoders(text: &str) {
    if let Ok(entry) = ConsumerEntry::decode(text) {
        let encoded = entry.encode();
        assert_eq!(ConsumerEntry::decode(&encoded).as_ref(), Ok(&entry), "{text}");
    }
    if let Ok(entry) = ProviderEntry::decode(text) {
        let encoded = entry.encode();
        assert_eq!(ProviderEntry::decode(&encoded).as_ref(), Ok(&entry), "{text}");
    }
    if let Ok(meta) = ProviderMeta::decode(text) {
        assert_eq!(ProviderMeta::decode(&meta.encode()).as_ref(), Ok(&meta), "{text}");
    }
}

fn no_discards(warnings: &[JournalWarning]) {
    for warning in warnings {
        assert!(!matches!(warning, JournalWarning::Discarded { .. }), "a journal refused its own entry: {warning}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    check_decoders(text);
    if let Some(text) = owned(text) {
        check_decoders(&text);
    }

    let mut store = MemoryStore::durable();
    for (n, line) in text.lines().take(64).enumerate() {
        let (key, value) = line.split_once('=').unwrap_or((line, line));
        let _ = store.put(key, value);
        let _ = store.put(&format!("webmcp:c:{key}"), value);
        let _ = store.put(&format!("webmcp:p:{key}"), value);
        if let Some(value) = owned(value) {
            let _ = store.put(&format!("webmcp:c:f{n}"), &value);
            let _ = store.put(&format!("webmcp:p:https://f.example f{n}"), &value);
        }
    }

    let (mut consumer, _) = ConsumerJournal::open(store, owner(), JournalConfig::default(), NOW);
    let wire = RequestId::new("fz").expect("valid id");
    let call = NewCall {
        call_id: Some(text.chars().take(300).collect()),
        wire_id: wire.clone(),
        tool: ToolName::new("t").expect("valid name"),
        provider: ProviderWindow::new("https://p.example", "frame", true),
        args: JsonText::empty_object(),
    };
    if consumer.start(call, NOW).is_ok() && consumer.mark_sent(&wire, NOW) {
        let _ = consumer.on_status(&wire, ProviderStatus::Unknown { durable: true }, NOW + 1);
        let _ = consumer.on_response(&wire, ToolOutcome::Completed { result: result_of(&text) }, NOW + 2);
    }
    let pending: Vec<RequestId> = consumer.pending().map(|e| e.wire_id().clone()).collect();
    for wire in &pending {
        let _ = consumer.on_status(wire, ProviderStatus::Running, NOW + 3);
        let _ = consumer.peer_gone(wire, NOW + 3);
    }
    let _ = consumer.prune(NOW + 86_400_001);
    let store = consumer.into_store();
    let (mut again, _) = ConsumerJournal::open(store, owner(), JournalConfig::default(), NOW + 4);
    no_discards(&again.take_warnings());

    let mut provider = ProviderJournal::open(again.into_store(), owner(), JournalConfig::default(), NOW);
    let tool = ToolName::new("t").expect("valid name");
    let _ = provider.on_execute("https://f.example", &wire, &tool, NOW);
    let _ = provider.on_finish("https://f.example", &wire, ToolOutcome::Completed { result: result_of(&text) }, NOW);
    let _ = provider.on_resend("https://f.example", &RequestId::new("f0").expect("valid id"), &tool, NOW);
    let _ = provider.on_status("https://f.example", &RequestId::new("f1").expect("valid id"), NOW);
    let _ = provider.on_cancel("https://f.example", &RequestId::new("f2").expect("valid id"), NOW);
    provider.prune(NOW + 86_400_001);
    let mut again = ProviderJournal::open(provider.into_store(), owner(), JournalConfig::default(), NOW + 5);
    no_discards(&again.take_warnings());
    assert!(again.store().entries("").len() <= 64 * 5 + 8);
});
