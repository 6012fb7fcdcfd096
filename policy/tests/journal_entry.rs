//! The stored form of journal entries: the exact JSON written, round trips, and every refusal of the decoders.
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
    ConsumerEntry, ConsumerJournal, EntryError, ExecuteDecision, JournalConfig, JournalStore, MemoryStore, NewCall,
    Owner, ProviderEntry, ProviderJournal, ProviderMeta, ProviderWindow, Start, ToolOutcome, cap_result,
};
use interpane_policy::{ErrorKind, RequestId, RetryAfter, ToolError, ToolName};

const T0: u64 = 1_700_000_000_000;

fn wire(text: &str) -> RequestId {
    RequestId::new(text).unwrap()
}

/// `text` as checked JSON text.
fn json(text: &str) -> interpane_policy::JsonText {
    interpane_policy::JsonText::parse(text, &interpane_policy::Limits::default()).unwrap()
}

/// The stored values of a consumer journal after: w1 recorded, w2 sent, w3 completed, w4 failed with every
/// error field, w5 stopped.
fn consumer_values() -> Vec<(String, String)> {
    let owner = Owner::new("tabA", "top").unwrap();
    let (mut journal, _) = ConsumerJournal::open(MemoryStore::durable(), owner, JournalConfig::default(), T0);
    for n in 1..=5 {
        let call = NewCall {
            call_id: (n == 3).then(|| "agent-7".to_owned()),
            wire_id: wire(&format!("w{n}")),
            tool: ToolName::new("add_to_cart").unwrap(),
            provider: ProviderWindow::new("https://shop.example", "frame:top/0", true),
            args: json(r#"{"sku":"a\"b"}"#),
        };
        assert_eq!(journal.start(call, T0), Ok(Start::New));
        if n > 1 {
            assert!(journal.mark_sent(&wire(&format!("w{n}")), T0 + 1));
        }
    }
    journal.on_response(&wire("w3"), ToolOutcome::Completed { result: json(r#"{"ok":1}"#) }, T0 + 2).unwrap();
    let mut error = ToolError::new(ErrorKind::ToolError, "Search is rate limited");
    error.name = Some("TypeError");
    error.status = Some(429);
    error.retry_after = Some(RetryAfter::Text("30".into()));
    journal.on_response(&wire("w4"), ToolOutcome::Failed(error), T0 + 3).unwrap();
    journal.stop(&wire("w5"), T0 + 4).unwrap();
    journal.store().entries("")
}

#[test]
fn consumer_entries_are_compact_json_with_a_version() {
    let values = consumer_values();
    let expected = [
        (
            "webmcp:c:w1",
            r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w1","k":"w1","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"a":"{\"sku\":\"a\\\"b\"}","s":"recorded","c":1700000000000}"#,
        ),
        (
            "webmcp:c:w2",
            r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w2","k":"w2","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"a":"{\"sku\":\"a\\\"b\"}","s":"sent","c":1700000000000,"ts":1700000000001}"#,
        ),
        (
            "webmcp:c:w3",
            r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w3","k":"agent-7","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"s":"settled","c":1700000000000,"ts":1700000000001,"te":1700000000002,"r":{"s":"completed","r":"{\"ok\":1}"},"ack":"due"}"#,
        ),
        (
            "webmcp:c:w4",
            r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w4","k":"w4","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"s":"settled","c":1700000000000,"ts":1700000000001,"te":1700000000003,"r":{"s":"failed","e":{"k":"tool_error","m":"Search is rate limited","n":"TypeError","st":429,"ra":"30"}},"ack":"due"}"#,
        ),
        (
            "webmcp:c:w5",
            r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w5","k":"w5","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"s":"settled","c":1700000000000,"ts":1700000000001,"te":1700000000004,"r":{"s":"stopped"},"ack":"none"}"#,
        ),
    ];
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(values, expected);
}

#[test]
fn consumer_entries_decode_to_what_was_encoded() {
    for (key, value) in consumer_values() {
        let entry = ConsumerEntry::decode(&value).unwrap();
        assert_eq!(entry.key(), key);
        assert_eq!(entry.encode(), value);
        assert_eq!(ConsumerEntry::decode(&entry.encode()), Ok(entry));
    }
}

#[test]
fn provider_entries_are_compact_json_with_a_version() {
    let owner = Owner::new("tabP", "top/0").unwrap();
    let config = JournalConfig { ran_ids_kept: 1, ..JournalConfig::default() };
    let mut journal = ProviderJournal::open(MemoryStore::durable(), owner, config, T0);
    let tool = ToolName::new("search").unwrap();
    assert_eq!(journal.on_execute("https://a.example", &wire("w1"), &tool, T0), ExecuteDecision::Run);
    assert_eq!(journal.on_execute("https://a.example", &wire("w2"), &tool, T0), ExecuteDecision::Run);
    journal.on_finish("https://a.example", &wire("w1"), ToolOutcome::Completed { result: json("[1]") }, T0 + 1);
    let error = ToolError::new(ErrorKind::InvalidArgs, "sku is required");
    journal.on_finish("https://a.example", &wire("w2"), ToolOutcome::Failed(error), T0 + 2);
    journal.on_cancel("https://a.example", &wire("w3"), T0 + 3);
    let values = journal.store().entries("");
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        values,
        [
            ("webmcp:p:!tabP top/0", r#"{"v":1,"o":{"t":"tabP","s":"top/0"},"h":1700000000002}"#),
            (
                "webmcp:p:https://a.example w3",
                r#"{"v":1,"o":{"t":"tabP","s":"top/0"},"c":"https://a.example","w":"w3","s":"cancelled","t0":1700000000003,"t1":1700000000003}"#
            ),
        ]
    );
    let meta = ProviderMeta::decode(values[0].1).unwrap();
    assert_eq!((meta.key().as_str(), meta.horizon(), meta.encode().as_str()), (values[0].0, T0 + 2, values[0].1));
    let entry = ProviderEntry::decode(values[1].1).unwrap();
    assert_eq!((entry.key().as_str(), entry.encode().as_str()), values[1]);
}

#[test]
fn provider_results_round_trip() {
    let texts = [
        r#"{"v":1,"o":{"t":"t","s":"top"},"c":"https://a.example","w":"w","n":"t","s":"done","t0":1,"t1":2,"r":{"ok":"{\"a\":[1,2]}"}}"#,
        r#"{"v":1,"o":{"t":"t","s":"top"},"c":"https://a.example","w":"w","n":"t","s":"done","t0":1,"t1":2,"r":{"e":{"k":"invalid_args","m":"no","n":"TypeError","st":400,"ra":1.5}}}"#,
        r#"{"v":1,"o":{"t":"t","s":"top"},"c":"https://a.example","w":"w","n":"t","s":"running","t0":1,"t1":1}"#,
        r#"{"v":1,"o":{"t":"t","s":"top"},"c":"https://a.example","w":"w","n":"t","s":"expired","t0":1,"t1":9}"#,
    ];
    for text in texts {
        let entry = ProviderEntry::decode(text).unwrap();
        assert_eq!(entry.encode(), text);
    }
}

/// A valid consumer entry with `field` replaced by `value` (raw JSON), or removed when `value` is empty.
fn consumer_with(field: &str, value: &str) -> String {
    let mut object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
        r#"{"v":1,"o":{"t":"tabA","s":"top"},"w":"w2","k":"w2","n":"add_to_cart","p":{"o":"https://shop.example","l":"frame:top/0","b":true},"a":"{}","s":"sent","c":10,"ts":11}"#,
    )
    .unwrap();
    if value.is_empty() {
        object.remove(field);
    } else {
        object.insert(field.to_owned(), serde_json::from_str(value).unwrap());
    }
    serde_json::Value::Object(object).to_string()
}

fn field(field: &'static str, problem: &str) -> EntryError {
    EntryError::BadField { field, problem: problem.to_owned() }
}

#[test]
fn consumer_entries_that_cannot_be_used_are_refused_with_the_reason() {
    let not_object = EntryError::NotAnEntry("not a JSON object with a version \"v\"".into());
    let cases: Vec<(String, EntryError)> = vec![
        ("".into(), not_object.clone()),
        ("[1]".into(), not_object.clone()),
        ("\"text\"".into(), not_object.clone()),
        ("{\"x\":1}".into(), not_object.clone()),
        (
            "{\"v\":1".into(),
            EntryError::NotAnEntry("not JSON: expected ',' or '}' at byte 6, found the end of the text".into()),
        ),
        (
            "{\"v\":1}}".into(),
            EntryError::NotAnEntry("not JSON: expected the end of the text at byte 7, found '}'".into()),
        ),
        ("{\"v\":\"1\"}".into(), EntryError::NotAnEntry("its version is \"1\"".into())),
        ("{\"v\":2,\"w\":\"x\"}".into(), EntryError::OtherVersion { found: 2 }),
        ("{\"v\":0}".into(), EntryError::OtherVersion { found: 0 }),
        ("{\"v\":1.0}".into(), EntryError::NotAnEntry("its version is 1.0".into())),
        ("{\"v\":1,\"v\":1}".into(), not_object.clone()),
        (consumer_with("extra", "1"), EntryError::Malformed("unknown field `extra`".into())),
        (consumer_with("c", ""), EntryError::Malformed("missing field `c`".into())),
        (
            consumer_with("c", "-1"),
            EntryError::Malformed("field `c` is not a whole number from 0 to 2^64-1 (found -1)".into()),
        ),
        (
            consumer_with("c", "1.5"),
            EntryError::Malformed("field `c` is not a whole number from 0 to 2^64-1 (found 1.5)".into()),
        ),
        (
            consumer_with("c", "10").replace(r#""c":10"#, r#""c":18446744073709551616"#),
            EntryError::Malformed(
                "field `c` is not a whole number from 0 to 2^64-1 (found 18446744073709551616)".into(),
            ),
        ),
        (
            consumer_with("c", "10").replace(r#""c":10"#, r#""c":10,"c":10"#),
            EntryError::Malformed("repeated field `c`".into()),
        ),
        (consumer_with("o", r#""tabA""#), EntryError::Malformed("field `o` is not an object (found a string)".into())),
        (consumer_with("o", r#"{"t":"tabA","s":"top","x":1}"#), EntryError::Malformed("unknown field `o.x`".into())),
        (
            consumer_with("p", r#"{"o":"https://shop.example","l":"","b":"yes"}"#),
            EntryError::Malformed("field `p.b` is not true or false (found a string)".into()),
        ),
        (
            consumer_with("p", r#"{"o":"https://shop.example","l":""}"#),
            EntryError::Malformed("missing field `p.b`".into()),
        ),
        (
            consumer_with("k", r#""x""#).replace(r#""k":"x""#, r#""k":"\ud800""#),
            EntryError::Malformed("field `k` holds a lone UTF-16 surrogate escape".into()),
        ),
        (consumer_with("a", "null"), EntryError::Malformed("field `a` is not a string (found null)".into())),
        (
            consumer_with("o", r#"{"t":"a b","s":"top"}"#),
            field(
                "o",
                "tab id \"a b\" is not 1 to 64 characters of letters, digits, _ and -: make it from random bytes",
            ),
        ),
        (
            consumer_with("w", r#""a b""#),
            field("w", "requestId holds ' ' at position 1: only letters, digits and _ . : - are allowed"),
        ),
        (consumer_with("k", r#""""#), field("k", "a callId has 1 to 256 characters")),
        (
            consumer_with("n", r#""a:b""#),
            field("n", "tool name holds ':' at position 1: only letters, digits and _ . - are allowed"),
        ),
        (
            consumer_with("p", r#"{"o":"null","l":"","b":true}"#),
            field("p", "origin \"null\" is not a serialized origin"),
        ),
        (consumer_with("a", r#""{""#), field("a", "the arguments are not JSON text")),
        (consumer_with("ts", "9"), field("ts", "earlier than the call was recorded")),
        (consumer_with("s", r#""recorded""#), field("s", "state \"recorded\" does not fit the fields present")),
        (consumer_with("s", r#""lost""#), field("s", "state \"lost\" does not fit the fields present")),
    ];
    for (text, expected) in cases {
        assert_eq!(ConsumerEntry::decode(&text), Err(expected), "{text}");
    }
    // An optional field may be `null`, which reads as absent (as it did with serde's `Option`), and a field's name
    // may be escaped.
    let with_null = consumer_with("te", "null").replace(r#""ts":"#, r#""\u0074s":"#);
    assert!(with_null.contains(r#""te":null"#) && with_null.contains(r#""\u0074s":11"#), "{with_null}");
    assert_eq!(ConsumerEntry::decode(&with_null), ConsumerEntry::decode(&consumer_with("te", "")));
    assert!(ConsumerEntry::decode(&with_null).is_ok());
}

#[test]
fn settled_consumer_entries_are_checked_field_by_field() {
    let settled = |outcome: &str, ack: &str| {
        format!(
            r#"{{"v":1,"o":{{"t":"tabA","s":"top"}},"w":"w","k":"w","n":"t","p":{{"o":"https://a.example","l":"","b":false}},"s":"settled","c":10,"ts":11,"te":12,"r":{outcome},"ack":{ack}}}"#
        )
    };
    let cases = [
        (
            settled(r#"{"s":"completed","r":"{"}"#, r#""none""#),
            field("r", "outcome \"completed\" does not fit its fields"),
        ),
        (settled(r#"{"s":"stopped","m":"x"}"#, r#""none""#), field("r", "outcome \"stopped\" does not fit its fields")),
        (settled(r#"{"s":"failed","e":{"k":"nope","m":"x"}}"#, r#""none""#), field("k", "unknown error code \"nope\"")),
        (
            settled(r#"{"s":"failed","e":{"k":"refused","m":"x","st":600}}"#, r#""none""#),
            field("st", "600 is not from 100 to 599"),
        ),
        (
            settled(r#"{"s":"failed","e":{"k":"refused","m":"x","n":"EvilError"}}"#, r#""none""#),
            field("n", "\"EvilError\" is not a standard error name"),
        ),
        (
            settled(r#"{"s":"failed","e":{"k":"refused","m":"x","ra":-1}}"#, r#""none""#),
            field("ra", "-1 is not a number >= 0"),
        ),
        (settled(r#"{"s":"stopped"}"#, r#""later""#), field("ack", "\"later\" is not none, due or sent")),
        (
            settled(&format!(r#"{{"s":"interrupted","m":"{}"}}"#, "x".repeat(1001)), r#""none""#),
            field("r", "outcome \"interrupted\" does not fit its fields"),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(ConsumerEntry::decode(&text), Err(expected), "{text}");
    }
    let with_args = settled(r#"{"s":"stopped"}"#, r#""none""#).replace(r#""s":"settled""#, r#""a":"{}","s":"settled""#);
    assert_eq!(ConsumerEntry::decode(&with_args), Err(field("a", "a settled call keeps no arguments")));
    let before_send = settled(r#"{"s":"stopped"}"#, r#""none""#).replace(r#""te":12"#, r#""te":10"#);
    assert_eq!(ConsumerEntry::decode(&before_send), Err(field("ts", "later than the call settled")));
}

#[test]
fn provider_entries_that_cannot_be_used_are_refused_with_the_reason() {
    let record = |fields: &str| format!(r#"{{"v":1,"o":{{"t":"t","s":"top"}},"w":"w",{fields}}}"#);
    let cases = [
        (
            record(r#""c":"https://a.example","n":"t","s":"done","t0":1,"t1":2"#),
            field("s", "state \"done\" does not fit its fields"),
        ),
        (
            record(r#""c":"https://a.example","n":"t","s":"running","t0":1,"t1":2,"r":{"ok":"1"}"#),
            field("s", "state \"running\" does not fit its fields"),
        ),
        (
            record(
                r#""c":"https://a.example","n":"t","s":"done","t0":1,"t1":2,"r":{"ok":"1","e":{"k":"refused","m":""}}"#,
            ),
            field("r", "an outcome is a JSON result or an error"),
        ),
        (
            record(r#""c":"https://a.example","n":"t","s":"done","t0":1,"t1":2,"r":{"ok":"nope"}"#),
            field("r", "an outcome is a JSON result or an error"),
        ),
        (
            record(r#""c":"https://a.example","s":"running","t0":1,"t1":2"#),
            field("n", "only a cancelled call may lack a tool name"),
        ),
        (
            record(r#""c":"https://a.example","n":"t","s":"acked","t0":3,"t1":2"#),
            field("t1", "earlier than the call was received"),
        ),
        (record(r#""c":"!x","n":"t","s":"acked","t0":1,"t1":2"#), field("c", "not a serialized origin")),
        (
            record(r#""c":"https://a.example w","n":"t","s":"acked","t0":1,"t1":2"#),
            field("c", "not a serialized origin"),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(ProviderEntry::decode(&text), Err(expected), "{text}");
    }
    assert_eq!(
        ProviderMeta::decode(r#"{"v":1,"o":{"t":"t","s":""},"h":1}"#),
        Err(field(
            "o",
            "frame slot \"\" is not 1 to 256 characters of letters, digits, / _ . and - (such as \"top/1/0\")"
        ))
    );
}

#[test]
fn long_results_become_a_truncated_preview_within_the_cap() {
    let cases = [
        ("[1,2,3]", 7, "[1,2,3]"),
        ("[1,2,3]", 6, r#"{"truncated":true,"preview":""}"#),
        (r#""abcdefghij""#, 40, r#""abcdefghij""#),
        (
            r#""abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz""#,
            40,
            r#"{"truncated":true,"preview":"\"abcdefg"}"#,
        ),
        // Texts with raw control characters, which no JsonText holds, are checked on the rule itself
        // (`envelope::build`'s tests).
        (r#""a\nb""#, 6, r#""a\nb""#),
        (r#""éééééééééééééééééééééééééééééééééééééééé""#, 36, r#"{"truncated":true,"preview":"\"ééé"}"#),
    ];
    for (result, cap, expected) in cases {
        let capped = cap_result(json(result), cap);
        let capped = capped.as_str();
        assert_eq!(capped, expected, "{result} capped to {cap}");
        assert!(capped == result || capped.chars().count() <= cap.max(31), "{capped}");
        if capped != result {
            serde_json::from_str::<serde_json::Value>(capped).unwrap();
        }
    }
}
