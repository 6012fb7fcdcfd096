//! The exact text each stored form is written as. Journals written by an earlier version must read back and pages
//! upgrade mid-session, so these strings are the ones the serde derive wrote before the records were encoded by
//! hand (issue 24): a change here is a change of the stored form (and of [`ENTRY_VERSION`](super::ENTRY_VERSION)).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::ids::{RequestId, ToolName};
use crate::journal::outcome::{CallOutcome, ToolOutcome};
use crate::limits::Limits;

fn json(text: &str) -> JsonText {
    JsonText::parse(text, &Limits::default()).unwrap()
}

fn owner() -> Owner {
    Owner::new("tab-1_X", "top/0/2").unwrap()
}

fn error(kind: ErrorKind, message: &str) -> ToolError {
    ToolError::new(kind, message)
}

fn full_error(retry_after: RetryAfter) -> ToolError {
    ToolError {
        kind: ErrorKind::TooManyCalls,
        message: "busy \"now\"\n\ttry later \u{1}\u{7f} é😀 \\ /".to_owned(),
        name: Some("TypeError"),
        status: Some(429),
        retry_after: Some(retry_after),
    }
}

/// `text` with `<DEL>` replaced by U+007F, which JSON strings hold unescaped (a raw string cannot show it).
fn with_del(text: &str) -> String {
    text.replace("<DEL>", "\u{7f}")
}

fn call(wire: &str, call_id: &str, args: Option<&str>, phase: CallPhase) -> ConsumerEntry {
    ConsumerEntry {
        owner: owner(),
        wire_id: RequestId::new(wire).unwrap(),
        call_id: call_id.to_owned(),
        tool: ToolName::new("shop.add_to-cart").unwrap(),
        provider: ProviderWindow::new("https://shop.example:8443", "frame:top/0 \"é\"", wire.len().is_multiple_of(2)),
        args: args.map(json),
        created_at: 1_700_000_000_000,
        phase,
    }
}

fn settled(outcome: CallOutcome, sent_at: Option<u64>, ack: AckState) -> CallPhase {
    CallPhase::Settled { sent_at, settled_at: 1_700_000_000_009, outcome, ack }
}

#[test]
fn consumer_entries_are_written_as_before() {
    let cases = [
        (
            call("w1", "w1", Some("{}"), CallPhase::Recorded),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w1","k":"w1","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"a":"{}","s":"recorded","c":1700000000000}"#,
        ),
        (
            call(
                "w.2:x-y_z",
                "agent \"7\" \\ é😀\n\u{1f}",
                Some(r#"{"q":"a\"b\\c","n":[1,2.5e3,null,true],"u":"é\u00e9"}"#),
                CallPhase::Sent { sent_at: 1_700_000_000_001 },
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w.2:x-y_z","k":"agent \"7\" \\ é😀\n\u001f","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":false},"a":"{\"q\":\"a\\\"b\\\\c\",\"n\":[1,2.5e3,null,true],\"u\":\"é\\u00e9\"}","s":"sent","c":1700000000000,"ts":1700000000001}"#,
        ),
        (
            call(
                "w3",
                "w3",
                None,
                settled(CallOutcome::Completed { result: json("\"done\"") }, None, AckState::NotNeeded),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w3","k":"w3","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"te":1700000000009,"r":{"s":"completed","r":"\"done\""},"ack":"none"}"#,
        ),
        (
            call(
                "w4",
                "w4",
                None,
                settled(
                    CallOutcome::Failed(full_error(RetryAfter::Seconds(1.5))),
                    Some(1_700_000_000_002),
                    AckState::Due,
                ),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w4","k":"w4","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"ts":1700000000002,"te":1700000000009,"r":{"s":"failed","e":{"k":"too_many_calls","m":"busy \"now\"\n\ttry later \u0001<DEL> é😀 \\ /","n":"TypeError","st":429,"ra":1.5}},"ack":"due"}"#,
        ),
        (
            call(
                "w5",
                "w5",
                None,
                settled(CallOutcome::Failed(full_error(RetryAfter::Seconds(30.0))), None, AckState::Sent),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w5","k":"w5","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"te":1700000000009,"r":{"s":"failed","e":{"k":"too_many_calls","m":"busy \"now\"\n\ttry later \u0001<DEL> é😀 \\ /","n":"TypeError","st":429,"ra":30.0}},"ack":"sent"}"#,
        ),
        (
            call(
                "w6",
                "w6",
                None,
                settled(CallOutcome::Failed(full_error(RetryAfter::Text("30".into()))), None, AckState::Sent),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w6","k":"w6","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"te":1700000000009,"r":{"s":"failed","e":{"k":"too_many_calls","m":"busy \"now\"\n\ttry later \u0001<DEL> é😀 \\ /","n":"TypeError","st":429,"ra":"30"}},"ack":"sent"}"#,
        ),
        (
            call(
                "w7",
                "w7",
                None,
                settled(CallOutcome::Failed(error(ErrorKind::Refused, "")), Some(1_700_000_000_000), AckState::Due),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w7","k":"w7","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"ts":1700000000000,"te":1700000000009,"r":{"s":"failed","e":{"k":"refused","m":""}},"ack":"due"}"#,
        ),
        (
            call("w8", "w8", None, settled(CallOutcome::Stopped, Some(1_700_000_000_003), AckState::NotNeeded)),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w8","k":"w8","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"ts":1700000000003,"te":1700000000009,"r":{"s":"stopped"},"ack":"none"}"#,
        ),
        (
            call(
                "w9",
                "w9",
                None,
                settled(
                    CallOutcome::Interrupted { message: "the page \"went\" away\r\n".to_owned() },
                    None,
                    AckState::NotNeeded,
                ),
            ),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"w":"w9","k":"w9","n":"shop.add_to-cart","p":{"o":"https://shop.example:8443","l":"frame:top/0 \"é\"","b":true},"s":"settled","c":1700000000000,"te":1700000000009,"r":{"s":"interrupted","m":"the page \"went\" away\r\n"},"ack":"none"}"#,
        ),
    ];
    for (entry, text) in cases {
        let text = &with_del(text);
        assert_eq!(entry.encode(), *text);
        assert_eq!(ConsumerEntry::decode(text), Ok(entry), "{text}");
    }
}

fn record(tool: Option<&str>, state: RecordState, updated_at: u64) -> ProviderEntry {
    ProviderEntry {
        owner: owner(),
        caller_origin: "http://[::1]:8080".to_owned(),
        wire_id: RequestId::new("r-1").unwrap(),
        tool: tool.map(|t| ToolName::new(t).unwrap()),
        state,
        started_at: 5,
        updated_at,
    }
}

#[test]
fn provider_records_and_notes_are_written_as_before() {
    let cases = [
        (
            record(Some("search"), RecordState::Running, 5),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"search","s":"running","t0":5,"t1":5}"#,
        ),
        (
            record(Some("search"), RecordState::Done(ToolOutcome::Completed { result: json(r#"{"a":"\"é\n"}"#) }), 6),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"search","s":"done","t0":5,"t1":6,"r":{"ok":"{\"a\":\"\\\"é\\n\"}"}}"#,
        ),
        (
            record(Some("search"), RecordState::Done(ToolOutcome::Failed(full_error(RetryAfter::Seconds(0.25)))), 7),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"search","s":"done","t0":5,"t1":7,"r":{"e":{"k":"too_many_calls","m":"busy \"now\"\n\ttry later \u0001<DEL> é😀 \\ /","n":"TypeError","st":429,"ra":0.25}}}"#,
        ),
        (
            record(Some("search"), RecordState::Done(ToolOutcome::Failed(error(ErrorKind::InvalidArgs, "no"))), 8),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"search","s":"done","t0":5,"t1":8,"r":{"e":{"k":"invalid_args","m":"no"}}}"#,
        ),
        (
            record(None, RecordState::Cancelled, 9),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","s":"cancelled","t0":5,"t1":9}"#,
        ),
        (
            record(Some("a"), RecordState::Interrupted, 10),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"a","s":"interrupted","t0":5,"t1":10}"#,
        ),
        (
            record(Some("a"), RecordState::Acked, u64::MAX),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"a","s":"acked","t0":5,"t1":18446744073709551615}"#,
        ),
        (
            record(Some("a"), RecordState::Expired, 11),
            r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"c":"http://[::1]:8080","w":"r-1","n":"a","s":"expired","t0":5,"t1":11}"#,
        ),
    ];
    for (entry, text) in cases {
        let text = &with_del(text);
        assert_eq!(entry.encode(), *text);
        assert_eq!(ProviderEntry::decode(text), Ok(entry), "{text}");
    }
    for (horizon, text) in [
        (0, r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"h":0}"#),
        (1_700_000_000_000, r#"{"v":1,"o":{"t":"tab-1_X","s":"top/0/2"},"h":1700000000000}"#),
    ] {
        let meta = ProviderMeta { owner: owner(), horizon };
        assert_eq!(meta.encode(), text);
        assert_eq!(ProviderMeta::decode(text), Ok(meta), "{text}");
    }
}
