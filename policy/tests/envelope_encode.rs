//! Encoding: the exact text of every message, the constructors a provider uses, batches, and decoding a
//! `serde_json::Value`.

// On wasm32 the `test` alias below hides these functions from clippy's test detection, so allow there what
// tests may do anyway (clippy.toml allows it in tests): a failed unwrap is a failed test.
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::envelope::{
    CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, Problem, ThrownError,
    ToolDescriptor, encode_batches,
};
use interpane_policy::{
    Decoded, ErrorKind, JsonText, Limits, Message, RequestId, RetryAfter, ToolError, ToolName, decode, decode_batch,
    decode_value, encode_batch,
};
use serde_json::json;

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn rid(id: &str) -> RequestId {
    RequestId::new(id).unwrap()
}

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn json(text: &str) -> JsonText {
    JsonText::parse(text, &Limits::default()).unwrap()
}

const CALL: &str = "c_6YV2n0cM1yqg1nq4cH3Wyw";

#[test]
fn every_message_has_one_exact_text() {
    let limits = Limits::default();
    let rate_limited = ToolError {
        kind: ErrorKind::ToolError,
        message: "Search is rate limited".into(),
        name: Some("Error"),
        status: Some(429),
        retry_after: Some(RetryAfter::Seconds(30.0)),
    };
    let mut tool = ToolDescriptor::new(ToolName::new("add_to_cart").unwrap(), "Add a product to the cart.");
    tool.input_schema = Some(json(r#"{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}"#));
    tool.origin = Some("http://127.0.0.1:8401".into());
    tool.annotations = Some(json(r#"{"readOnlyHint":false}"#));
    let cases: Vec<(Message, &str)> = vec![
        (
            Message::GetToolsRequest { request_id: rid("k3m9x0q2vb1"), bridge: true },
            r#"{"type":"WEBMCP_GET_TOOLS_REQUEST","requestId":"k3m9x0q2vb1","bridge":1}"#,
        ),
        (
            Message::GetToolsRequest { request_id: rid("k3m9x0q2vb1"), bridge: false },
            r#"{"type":"WEBMCP_GET_TOOLS_REQUEST","requestId":"k3m9x0q2vb1"}"#,
        ),
        (
            GetToolsResponse { request_id: rid("k3m9x0q2vb1"), tools: vec![tool], bridge: true }.into(),
            r#"{"type":"WEBMCP_GET_TOOLS_RESPONSE","requestId":"k3m9x0q2vb1","tools":[{"name":"add_to_cart","description":"Add a product to the cart.","inputSchema":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]},"origin":"http://127.0.0.1:8401","annotations":{"readOnlyHint":false}}],"bridge":1}"#,
        ),
        (
            ExecuteRequest {
                request_id: rid(CALL),
                name: ToolName::new("add_to_cart").unwrap(),
                args: json(r#"{"sku":"margherita"}"#),
                resend: false,
            }
            .into(),
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","name":"add_to_cart","args":{"sku":"margherita"}}"#,
        ),
        (
            ExecuteResponse::success(
                rid(CALL),
                json(r#"{"content":[{"type":"text","text":"Added margherita"}]}"#),
                &limits,
            )
            .into(),
            r#"{"type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","success":true,"result":{"content":[{"type":"text","text":"Added margherita"}]}}"#,
        ),
        (
            ExecuteResponse::failure(rid(CALL), rate_limited).into(),
            r#"{"type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","success":false,"error":"Search is rate limited","status":429,"retryAfter":30,"errorName":"Error","code":"tool_error"}"#,
        ),
        (
            ExecuteResponse::failure(
                rid(CALL),
                ToolError::new(ErrorKind::Interrupted, "the provider's page went away \"mid-call\""),
            )
            .into(),
            r#"{"type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","success":false,"error":"the provider's page went away \"mid-call\"","code":"interrupted"}"#,
        ),
        (
            Message::CancelTool { request_id: rid(CALL) },
            r#"{"type":"WEBMCP_CANCEL_TOOL","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw"}"#,
        ),
        (
            Message::CallStatusRequest { request_id: rid(CALL) },
            r#"{"type":"WEBMCP_CALL_STATUS_REQUEST","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw"}"#,
        ),
        (
            CallStatusResponse { request_id: rid(CALL), state: CallState::Running, durable: true }.into(),
            r#"{"type":"WEBMCP_CALL_STATUS_RESPONSE","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","state":"running","durable":true}"#,
        ),
        (
            Message::CallAck { request_ids: vec![rid(CALL), rid("c_Qm0n2Jd0H1xg8r6i9b4Z0g")] },
            r#"{"type":"WEBMCP_CALL_ACK","requestIds":["c_6YV2n0cM1yqg1nq4cH3Wyw","c_Qm0n2Jd0H1xg8r6i9b4Z0g"]}"#,
        ),
        (Message::ToolsChanged, r#"{"type":"WEBMCP_TOOLS_CHANGED"}"#),
        (Message::GoingAway, r#"{"type":"WEBMCP_GOING_AWAY"}"#),
        (
            Message::Connect { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: false },
            r#"{"type":"WEBMCP_CONNECT","requestId":"p_s8Kq0yN2pLw"}"#,
        ),
        (
            Message::Connected { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: false },
            r#"{"type":"WEBMCP_CONNECTED","requestId":"p_s8Kq0yN2pLw"}"#,
        ),
        (
            Message::Connect { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: true },
            r#"{"type":"WEBMCP_CONNECT","requestId":"p_s8Kq0yN2pLw","utf8Batches":1}"#,
        ),
        (
            Message::Connected { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: true },
            r#"{"type":"WEBMCP_CONNECTED","requestId":"p_s8Kq0yN2pLw","utf8Batches":1}"#,
        ),
    ];
    for (message, text) in cases {
        assert_eq!(message.encode(), text);
        assert_eq!(decode(text, &limits), Ok(Decoded::Message(message)), "{text}");
    }
}

#[test]
fn a_result_over_the_cap_travels_as_a_preview() {
    let limits = Limits { max_result_chars: 60, ..Limits::default() };
    let result = json(r#"{"rows":["alpha","beta","gamma","delta","epsilon","zeta","eta"]}"#);
    let response = ExecuteResponse::success(rid("c1"), result, &limits);
    let preview = response.outcome.clone().unwrap();
    assert_eq!(preview.as_str(), r#"{"truncated":true,"preview":"{\"rows\":[\"alpha\",\"beta\""}"#);
    assert_eq!(preview.as_str().chars().count(), 60);
    let small = ExecuteResponse::success(rid("c1"), json("[1,2]"), &limits);
    assert_eq!(small.outcome.unwrap().as_str(), "[1,2]");
}

#[test]
fn a_thrown_error_keeps_what_the_rules_keep() {
    let limits = Limits::default();
    let thrown = ThrownError {
        message: &json!("x".repeat(1200)),
        name: &json!("TypeError"),
        status: &json!(429.5),
        retry_after: &json!(" 3"),
    };
    let response = ExecuteResponse::failure(rid("c1"), thrown.to_tool_error(&limits));
    let error = response.outcome.clone().unwrap_err();
    assert_eq!(error.message.chars().count(), 1000);
    assert_eq!((error.name, error.status, error.retry_after), (Some("TypeError"), None, None));
    let text = Message::from(response).encode();
    assert!(text.ends_with(r#"…","errorName":"TypeError","code":"tool_error"}"#), "{text}");
}

#[test]
fn batches_decode_each_message_on_its_own() {
    let limits = Limits::default();
    let messages = vec![Message::ToolsChanged, Message::CancelTool { request_id: rid("c1") }, Message::GoingAway];
    let batch = encode_batch(&messages);
    assert_eq!(
        batch,
        r#"[{"type":"WEBMCP_TOOLS_CHANGED"},{"type":"WEBMCP_CANCEL_TOOL","requestId":"c1"},{"type":"WEBMCP_GOING_AWAY"}]"#
    );
    let decoded = decode_batch(&batch, &limits).unwrap();
    assert_eq!(decoded, messages.into_iter().map(|m| Ok(Decoded::Message(m))).collect::<Vec<_>>());

    let mixed = r#"[{"type":"WEBMCP_CANCEL_TOOL","requestId":"c 1"}, "hello", {"type":"WEBMCP_GOING_AWAY"}]"#;
    let decoded = decode_batch(mixed, &limits).unwrap();
    assert_eq!(decoded.len(), 3);
    assert_eq!(
        decoded[0].as_ref().unwrap_err().to_string(),
        "requestId: requestId holds ' ' at position 1: only letters, digits and _ . : - are allowed"
    );
    assert_eq!(decoded[1], Ok(Decoded::NotOurs));
    assert_eq!(decoded[2], Ok(Decoded::Message(Message::GoingAway)));
    assert_eq!(decode_batch("[]", &limits), Ok(vec![]));
}

#[test]
fn a_batch_is_refused_as_a_whole_only_when_it_cannot_be_read() {
    let limits = Limits { max_batch_len: 2, max_batch_bytes: 100, max_message_bytes: 40, ..Limits::default() };
    let refused = |text: &str| decode_batch(text, &limits).unwrap_err().to_string();
    assert_eq!(refused(r#"{"type":"WEBMCP_GOING_AWAY"}"#), "a batch is a JSON array of messages, not an object");
    assert_eq!(refused("[1,2,3]"), "batch holds 3 messages: at most 2 are allowed");
    assert_eq!(refused(&format!("[\"{}\"]", "x".repeat(100))), "batch is 104 bytes: the limit is 100");
    assert_eq!(refused("[{},"), "not valid JSON: expected a JSON value at byte 4, found the end of the text");
    let one_too_large =
        decode_batch(r#"[{"type":"WEBMCP_GOING_AWAY","padding":"xxxxxxxxxxxxxx"},1]"#, &limits).unwrap();
    assert_eq!(one_too_large[0].as_ref().unwrap_err().problem(), &Problem::TooLarge { bytes: 55, limit: 40 });
    assert_eq!(one_too_large[1], Ok(Decoded::NotOurs));
}

#[test]
fn batches_are_split_to_fit_the_limits() {
    let limits = Limits { max_batch_len: 2, max_batch_bytes: 100, ..Limits::default() };
    let messages: Vec<Message> = (0..5).map(|i| Message::CancelTool { request_id: rid(&format!("c{i}")) }).collect();
    let batches = encode_batches(&messages, &limits);
    assert_eq!(batches.len(), 3);
    let mut decoded = Vec::new();
    for batch in &batches {
        assert!(batch.len() <= 100, "{batch}");
        decoded.extend(decode_batch(batch, &limits).unwrap());
    }
    assert_eq!(decoded, messages.into_iter().map(|m| Ok(Decoded::Message(m))).collect::<Vec<_>>());
    assert!(encode_batches(&[], &limits).is_empty());
}

#[test]
fn a_value_decodes_like_its_text() {
    let limits = Limits::default();
    let value = json!({"type": "WEBMCP_EXECUTE_TOOL_REQUEST", "requestId": "c1", "name": "t", "args": {"b": [1, 2.5], "a": "é"}});
    let Ok(Decoded::Message(Message::ExecuteRequest(request))) = decode_value(&value, &limits) else {
        panic!("{value}")
    };
    assert_eq!(request.args.as_str(), r#"{"a":"é","b":[1,2.5]}"#);
    assert_eq!(decode_value(&json!({"type": "other", "huge": "x".repeat(2 << 20)}), &limits), Ok(Decoded::NotOurs));
    assert_eq!(decode_value(&json!([1]), &limits), Ok(Decoded::NotOurs));
    let huge = json!({"type": "WEBMCP_GOING_AWAY", "huge": "x".repeat(1 << 20)});
    assert_eq!(decode_value(&huge, &limits).unwrap_err().to_string(), "message is 1048614 bytes: the limit is 1048576");
    let proto =
        json!({"type": "WEBMCP_EXECUTE_TOOL_REQUEST", "requestId": "c1", "name": "t", "args": {"__proto__": {}}});
    assert_eq!(decode_value(&proto, &limits).unwrap_err().request_id(), Some(&rid("c1")));
}
