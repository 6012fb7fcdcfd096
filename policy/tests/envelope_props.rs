#![cfg(not(target_arch = "wasm32"))]
//! Properties of the envelope code over generated inputs: decoding never panics, the scanner agrees with
//! serde_json on what is JSON, and every message survives encode then decode unchanged.

use interpane_policy::envelope::{
    CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, ToolDescriptor, cap_result,
};
use interpane_policy::outcome::STANDARD_ERROR_NAMES;
use interpane_policy::{
    Decoded, ErrorKind, JsonText, Limits, Message, RequestId, RetryAfter, ToolError, ToolName, decode, decode_batch,
    decode_value, encode_batch,
};
use proptest::prelude::*;
use serde_json::Value;

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "\\PC{0,12}|[\"\\\\\u{0}-\u{1f}]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_\"\\\\]{0,8}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arb_object() -> impl Strategy<Value = JsonText> {
    prop::collection::btree_map("[a-z_]{0,8}", arb_value(), 0..5)
        .prop_map(|map| JsonText::from_value(&Value::Object(map.into_iter().collect())))
}

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn arb_request_id() -> impl Strategy<Value = RequestId> {
    "[A-Za-z0-9_.:-]{1,24}".prop_map(|id| RequestId::new(id).unwrap())
}

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn arb_tool_name() -> impl Strategy<Value = ToolName> {
    "[A-Za-z0-9_.-]{1,24}".prop_map(|name| ToolName::new(name).unwrap())
}

/// The kinds a provider's response can carry: not `Timeout`, which only the caller's side gives (a `timeout`
/// code on the wire reads as `tool_error`; see the envelope cases).
fn arb_kind() -> impl Strategy<Value = ErrorKind> {
    prop::sample::select(vec![
        ErrorKind::ToolError,
        ErrorKind::UnknownTool,
        ErrorKind::InvalidArgs,
        ErrorKind::TooManyCalls,
        ErrorKind::Interrupted,
        ErrorKind::Cancelled,
        ErrorKind::Refused,
    ])
}

fn arb_retry_after() -> impl Strategy<Value = Option<RetryAfter>> {
    prop_oneof![
        Just(None),
        (0u32..100_000).prop_map(|s| Some(RetryAfter::Seconds(f64::from(s)))),
        any::<f64>()
            .prop_filter("finite, >= 0", |f| f.is_finite() && *f >= 0.0)
            .prop_map(|s| Some(RetryAfter::Seconds(s))),
        "[0-9]{1,6}(\\.[0-9]{1,3})?".prop_map(|t| Some(RetryAfter::Text(t))),
    ]
}

fn arb_tool_error() -> impl Strategy<Value = ToolError> {
    (
        arb_kind(),
        "\\PC{0,60}|[\"\\\\\u{0}-\u{1f}a]{0,10}",
        prop::option::of(prop::sample::select(STANDARD_ERROR_NAMES.to_vec())),
        prop::option::of(100u16..=599),
        arb_retry_after(),
    )
        .prop_map(|(kind, message, name, status, retry_after)| ToolError {
            kind,
            message,
            name,
            status,
            retry_after,
        })
}

fn arb_tool() -> impl Strategy<Value = ToolDescriptor> {
    (
        arb_tool_name(),
        "\\PC{0,40}",
        prop::option::of(arb_object()),
        prop::option::of("\\PC{0,30}"),
        prop::option::of(arb_object()),
    )
        .prop_map(|(name, description, input_schema, origin, annotations)| ToolDescriptor {
            name,
            description,
            input_schema,
            origin,
            annotations,
        })
}

fn arb_message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (arb_request_id(), any::<bool>())
            .prop_map(|(request_id, bridge)| Message::GetToolsRequest { request_id, bridge }),
        (arb_request_id(), prop::collection::vec(arb_tool(), 0..4), any::<bool>()).prop_map(
            |(request_id, tools, bridge)| {
                let mut names = std::collections::BTreeSet::new();
                let tools = tools.into_iter().filter(|tool| names.insert(tool.name.clone())).collect();
                GetToolsResponse { request_id, tools, bridge }.into()
            }
        ),
        (arb_request_id(), arb_tool_name(), arb_object(), any::<bool>())
            .prop_map(|(request_id, name, args, resend)| { ExecuteRequest { request_id, name, args, resend }.into() }),
        (arb_request_id(), arb_value()).prop_map(|(request_id, result)| ExecuteResponse {
            request_id,
            outcome: Ok(JsonText::from_value(&result))
        }
        .into()),
        (arb_request_id(), arb_tool_error()).prop_map(|(request_id, error)| ExecuteResponse {
            request_id,
            outcome: Err(error)
        }
        .into()),
        arb_request_id().prop_map(|request_id| Message::CancelTool { request_id }),
        arb_request_id().prop_map(|request_id| Message::CallStatusRequest { request_id }),
        (arb_request_id(), any::<bool>(), any::<bool>()).prop_map(|(request_id, running, durable)| {
            let state = if running { CallState::Running } else { CallState::Unknown };
            CallStatusResponse { request_id, state, durable }.into()
        }),
        prop::collection::vec(arb_request_id(), 0..8).prop_map(|request_ids| Message::CallAck { request_ids }),
        Just(Message::ToolsChanged),
        Just(Message::GoingAway),
        (arb_request_id(), any::<bool>())
            .prop_map(|(request_id, utf8_batches)| Message::Connect { request_id, utf8_batches }),
        (arb_request_id(), any::<bool>())
            .prop_map(|(request_id, utf8_batches)| Message::Connected { request_id, utf8_batches }),
    ]
}

/// Text that is mostly JSON punctuation, so that near-misses of JSON are common.
fn json_ish() -> impl Strategy<Value = String> {
    "[\\[\\]{}:,\" \\\\/0-9eE.+tfrulasn\\-uU_x\u{e9}\n]{0,40}"
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The crate reads JSON text into a tree with a reader of its own (its numbers exact, as `JSON.parse` reads
    /// them): the same tree as serde_json's exact reader, for any value written compactly or with spaces.
    #[test]
    fn json_text_is_read_as_serde_json_reads_it(value in arb_value(), spaced in any::<bool>()) {
        let text = if spaced { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
        let text = text.unwrap_or_default();
        let expected: Value = serde_json::from_str(&text).unwrap_or_default();
        let read = interpane_policy::envelope::parse_json(&text);
        prop_assert_eq!(read.as_ref().ok(), Some(&expected), "{}", text);
    }

    /// ... and it refuses what serde_json refuses, and reads what it reads, for any short text of JSON's
    /// characters.
    #[test]
    fn any_text_is_refused_or_read_as_serde_json_does(text in "[ \\[\\]{}\":,0-9.eE+\\-tfrunlsa\\\\/bu\u{1}\u{e9}]{0,24}") {
        let expected = serde_json::from_str::<Value>(&text).ok();
        let read = interpane_policy::envelope::parse_json(&text).ok();
        prop_assert_eq!(read, expected, "{:?}", text);
    }


    #[test]
    fn decoding_any_text_never_panics(text in "\\PC{0,200}") {
        let _ = decode(&text, &Limits::default());
        let _ = decode_batch(&text, &Limits::default());
    }

    #[test]
    fn decoding_near_json_never_panics(text in json_ish()) {
        let _ = decode(&text, &Limits::default());
        let _ = decode_batch(&text, &Limits::default());
    }

    #[test]
    fn decoding_any_value_never_panics_and_matches_its_text(value in arb_value(), tag in 0usize..14) {
        let limits = Limits::default();
        let mut value = value;
        if let (Value::Object(map), Some(name)) = (&mut value, interpane_policy::MessageType::ALL.get(tag)) {
            map.insert("type".into(), Value::from(name.as_str()));
        }
        let from_value = decode_value(&value, &limits);
        let from_text = decode(&serde_json::to_string(&value).unwrap(), &limits);
        prop_assert_eq!(from_value, from_text);
    }

    #[test]
    fn the_scanner_agrees_with_serde_json(text in json_ish()) {
        let ours = JsonText::parse(&text, &Limits { max_depth: usize::MAX, ..Limits::default() });
        let theirs = serde_json::from_str::<serde::de::IgnoredAny>(&text);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?}: {:?} vs {:?}", text, ours, theirs);
    }

    #[test]
    fn values_are_written_and_measured_like_serde_json(value in arb_value(), max_depth in 0usize..7) {
        let text = JsonText::from_value(&value);
        prop_assert_eq!(text.as_str(), serde_json::to_string(&value).unwrap());
        // Numbers are read exactly (envelope/number.rs): what was written reads back the same.
        prop_assert_eq!(text.to_value().ok(), Some(value.clone()));
        let limits = Limits { max_depth, ..Limits::default() };
        prop_assert_eq!(JsonText::parse(text.as_str(), &limits).is_ok(), depth(&value) <= max_depth);
    }

    #[test]
    fn every_message_survives_a_round_trip(message in arb_message()) {
        let text = message.encode();
        prop_assert_eq!(decode(&text, &Limits::default()), Ok(Decoded::Message(message)), "{}", text);
    }

    #[test]
    fn batches_survive_a_round_trip(messages in prop::collection::vec(arb_message(), 0..6)) {
        let decoded = decode_batch(&encode_batch(&messages), &Limits::default()).unwrap();
        prop_assert_eq!(decoded, messages.into_iter().map(|m| Ok(Decoded::Message(m))).collect::<Vec<_>>());
    }

    #[test]
    fn a_damaged_message_never_panics(message in arb_message(), at in any::<prop::sample::Index>(), with in any::<char>()) {
        let mut chars: Vec<char> = message.encode().chars().collect();
        let at = at.index(chars.len());
        chars[at] = with;
        let _ = decode(&chars.into_iter().collect::<String>(), &Limits::default());
    }

    #[test]
    fn a_capped_result_stays_within_the_cap(value in arb_value(), cap in 31usize..200) {
        let result = JsonText::from_value(&value);
        let capped = cap_result(result.clone(), cap);
        prop_assert!(capped.as_str().chars().count() <= cap.max(result.as_str().chars().count().min(cap)));
        if capped != result {
            // As long as it can be: one more character would need at most 6 more.
            prop_assert!(capped.as_str().chars().count() + 6 > cap);
            let preview = capped.to_value().unwrap();
            prop_assert!(result.as_str().starts_with(preview["preview"].as_str().unwrap()));
        }
    }
}
