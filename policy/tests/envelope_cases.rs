//! Decoding, case by case: each input with the exact message, "not ours", or the exact error it must give.

// On wasm32 the `test` alias below hides these functions from clippy's test detection, so allow there what
// tests may do anyway (clippy.toml allows it in tests): a failed unwrap is a failed test.
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::envelope::{
    CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, ToolDescriptor,
};
use interpane_policy::{
    Decoded, ErrorCategory, ErrorKind, JsonText, Limits, Message, RequestId, RetryAfter, ToolError, ToolName, decode,
};

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn rid(id: &str) -> RequestId {
    RequestId::new(id).unwrap()
}

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn name(name: &str) -> ToolName {
    ToolName::new(name).unwrap()
}

#[allow(clippy::unwrap_used)] // a fixture that does not parse fails the test
fn json(text: &str) -> JsonText {
    JsonText::parse(text, &Limits::default()).unwrap()
}

fn failure(kind: ErrorKind, message: &str) -> ToolError {
    ToolError { kind, message: message.to_owned(), name: None, status: None, retry_after: None }
}

fn response(id: &str, outcome: Result<JsonText, ToolError>) -> Message {
    Message::ExecuteResponse(ExecuteResponse { request_id: rid(id), outcome })
}

enum Want {
    NotOurs,
    Message(Message),
    Error { text: &'static str, request_id: Option<&'static str>, category: ErrorCategory },
}

fn error(text: &'static str, request_id: Option<&'static str>) -> Want {
    Want::Error { text, request_id, category: ErrorCategory::Malformed }
}

const GET: &str = r#""type":"WEBMCP_GET_TOOLS_REQUEST""#;
const TOOLS: &str = r#""type":"WEBMCP_GET_TOOLS_RESPONSE","requestId":"r1""#;
const EXEC: &str = r#""type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c1","name":"add_to_cart""#;
const DONE: &str = r#""type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"c1""#;

fn cases() -> Vec<(&'static str, String, Want)> {
    use Want::{Message as M, NotOurs};
    let deep_args = format!("{{{EXEC},\"args\":{}1{}}}", "[".repeat(64), "]".repeat(64));
    let ok_args = format!("{{\"a\":{}1{}}}", "[".repeat(62), "]".repeat(62));
    let ok_depth_args = format!("{{{EXEC},\"args\":{ok_args}}}");
    let many_tools = (0..513).map(|i| format!("{{\"name\":\"t{i}\"}}")).collect::<Vec<_>>().join(",");
    let many_ids = (0..513).map(|i| format!("\"c{i}\"")).collect::<Vec<_>>().join(",");
    vec![
        // Not ours: ignored without a reply.
        ("a JSON string", r#""WEBMCP_GET_TOOLS_REQUEST""#.into(), NotOurs),
        ("an array", "[1,2]".into(), NotOurs),
        ("null", "null".into(), NotOurs),
        ("an object without type", r#"{"requestId":"r1"}"#.into(), NotOurs),
        ("a type that is not a string", r#"{"type":5,"requestId":"r1"}"#.into(), NotOurs),
        ("a type in the wrong case", r#"{"type":"webmcp_get_tools_request","requestId":"r1"}"#.into(), NotOurs),
        (
            "another library's deep message",
            format!(r#"{{"type":"devtools","x":{}{}}}"#, "[".repeat(200), "]".repeat(200)),
            NotOurs,
        ),
        // The four basic messages.
        (
            "get tools",
            format!(r#"{{{GET},"requestId":"k3m9x0q2vb1"}}"#),
            M(Message::GetToolsRequest { request_id: rid("k3m9x0q2vb1"), bridge: false }),
        ),
        (
            "get tools from a bridge",
            format!(r#"{{{GET},"requestId":"k3","bridge":1}}"#),
            M(Message::GetToolsRequest { request_id: rid("k3"), bridge: true }),
        ),
        (
            "bridge: 0 is a plain peer",
            format!(r#"{{{GET},"requestId":"k3","bridge":0}}"#),
            M(Message::GetToolsRequest { request_id: rid("k3"), bridge: false }),
        ),
        (
            "the protocol's tool list",
            format!(
                r#"{{{TOOLS},"tools":[{{"name":"add_to_cart","description":"Add a product to the cart.","inputSchema":{{"type":"object","properties":{{"sku":{{"type":"string"}}}},"required":["sku"]}},"origin":"http://127.0.0.1:8401","annotations":{{"readOnlyHint":false}}}}],"bridge":1}}"#
            ),
            M(Message::GetToolsResponse(GetToolsResponse {
                request_id: rid("r1"),
                tools: vec![ToolDescriptor {
                    name: name("add_to_cart"),
                    description: "Add a product to the cart.".into(),
                    input_schema: Some(json(
                        r#"{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}"#,
                    )),
                    origin: Some("http://127.0.0.1:8401".into()),
                    annotations: Some(json(r#"{"readOnlyHint":false}"#)),
                }],
                bridge: true,
            })),
        ),
        (
            "an input schema sent as a string",
            format!(
                r#"{{{TOOLS},"tools":[{{"name":"t","description":"d","inputSchema":"{{\"type\": \"object\"}}"}}]}}"#
            ),
            M(Message::GetToolsResponse(GetToolsResponse {
                request_id: rid("r1"),
                tools: vec![ToolDescriptor {
                    input_schema: Some(json(r#"{"type": "object"}"#)),
                    ..ToolDescriptor::new(name("t"), "d")
                }],
                bridge: false,
            })),
        ),
        (
            "a bare tool, with null annotations and a numeric origin",
            format!(r#"{{{TOOLS},"tools":[{{"name":"t","annotations":null,"origin":7}}]}}"#),
            M(Message::GetToolsResponse(GetToolsResponse {
                request_id: rid("r1"),
                tools: vec![ToolDescriptor::new(name("t"), "")],
                bridge: false,
            })),
        ),
        (
            "an empty tool list",
            format!(r#"{{{TOOLS},"tools":[]}}"#),
            M(Message::GetToolsResponse(GetToolsResponse { request_id: rid("r1"), tools: vec![], bridge: false })),
        ),
        (
            "execute with args",
            format!(r#"{{{EXEC},"args":{{"sku":"margherita"}}}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(r#"{"sku":"margherita"}"#),
                resend: false,
            })),
        ),
        (
            "a bridge's re-send",
            format!(r#"{{{EXEC},"args":{{"sku":"margherita"}},"resend":1}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(r#"{"sku":"margherita"}"#),
                resend: true,
            })),
        ),
        (
            "args sent as a string",
            format!(r#"{{{EXEC},"args":"{{\"sku\":\"margherita\",\"n\":0.9333333333333335}}"}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(r#"{"sku":"margherita","n":0.9333333333333335}"#),
                resend: false,
            })),
        ),
        (
            "inputObject when args is absent",
            format!(r#"{{{EXEC},"inputObject":{{"sku":"x"}}}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(r#"{"sku":"x"}"#),
                resend: false,
            })),
        ),
        (
            "args null reads as absent",
            format!(r#"{{{EXEC},"args":null,"inputObject":{{"q":1}}}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(r#"{"q":1}"#),
                resend: false,
            })),
        ),
        (
            "no args at all",
            format!(r#"{{{EXEC}}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json("{}"),
                resend: false,
            })),
        ),
        (
            "nesting of exactly 64 levels",
            ok_depth_args.clone(),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json(&ok_args),
                resend: false,
            })),
        ),
        (
            "a success",
            format!(
                r#"{{{DONE},"success":true,"result":{{"content":[{{"type":"text","text":"Added margherita"}}]}}}}"#
            ),
            response("c1", Ok(json(r#"{"content":[{"type":"text","text":"Added margherita"}]}"#))).into(),
        ),
        ("a success without result", format!(r#"{{{DONE},"success":true}}"#), response("c1", Ok(json("null"))).into()),
        (
            "the protocol's failure",
            format!(
                r#"{{{DONE},"success":false,"error":"Search is rate limited","status":429,"retryAfter":30,"errorName":"Error","code":"tool_error"}}"#
            ),
            response(
                "c1",
                Err(ToolError {
                    name: Some("Error"),
                    status: Some(429),
                    retry_after: Some(RetryAfter::Seconds(30.0)),
                    ..failure(ErrorKind::ToolError, "Search is rate limited")
                }),
            )
            .into(),
        ),
        (
            "invalid status, retryAfter, errorName and code are dropped",
            format!(
                r#"{{{DONE},"success":false,"error":"no","status":"429","retryAfter":-1,"errorName":"EvilError","code":7}}"#
            ),
            response("c1", Err(failure(ErrorKind::ToolError, "no"))).into(),
        ),
        (
            "a retryAfter string is kept as that string",
            format!(
                r#"{{{DONE},"success":false,"error":"stop","retryAfter":"1.5","status":503,"code":"cancelled","errorName":"AbortError"}}"#
            ),
            response(
                "c1",
                Err(ToolError {
                    name: Some("AbortError"),
                    status: Some(503),
                    retry_after: Some(RetryAfter::Text("1.5".into())),
                    ..failure(ErrorKind::Cancelled, "stop")
                }),
            )
            .into(),
        ),
        (
            "a provider's timeout code reads as tool_error: only the caller's side gives its own time limit",
            format!(r#"{{{DONE},"success":false,"error":"slow","code":"timeout"}}"#),
            response("c1", Err(failure(ErrorKind::ToolError, "slow"))).into(),
        ),
        (
            "a long error is cut, not refused",
            format!(r#"{{{DONE},"success":false,"error":"{}"}}"#, "x".repeat(5000)),
            response("c1", Err(failure(ErrorKind::ToolError, &format!("{}…", "x".repeat(999))))).into(),
        ),
        // The extensions.
        (
            "cancel",
            r#"{"type":"WEBMCP_CANCEL_TOOL","requestId":"c1"}"#.into(),
            M(Message::CancelTool { request_id: rid("c1") }),
        ),
        (
            "status request",
            r#"{"type":"WEBMCP_CALL_STATUS_REQUEST","requestId":"c1"}"#.into(),
            M(Message::CallStatusRequest { request_id: rid("c1") }),
        ),
        (
            "status response",
            r#"{"type":"WEBMCP_CALL_STATUS_RESPONSE","requestId":"c1","state":"running","durable":true}"#.into(),
            M(Message::CallStatusResponse(CallStatusResponse {
                request_id: rid("c1"),
                state: CallState::Running,
                durable: true,
            })),
        ),
        (
            "ack",
            r#"{"type":"WEBMCP_CALL_ACK","requestIds":["c_6YV2n0cM1yqg1nq4cH3Wyw","c_Qm0n2Jd0H1xg8r6i9b4Z0g"]}"#.into(),
            M(Message::CallAck { request_ids: vec![rid("c_6YV2n0cM1yqg1nq4cH3Wyw"), rid("c_Qm0n2Jd0H1xg8r6i9b4Z0g")] }),
        ),
        ("tools changed", r#"{"type":"WEBMCP_TOOLS_CHANGED"}"#.into(), M(Message::ToolsChanged)),
        ("going away", r#" { "type" : "WEBMCP_GOING_AWAY" } "#.into(), M(Message::GoingAway)),
        (
            "connect",
            r#"{"type":"WEBMCP_CONNECT","requestId":"p_s8Kq0yN2pLw"}"#.into(),
            M(Message::Connect { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: false }),
        ),
        (
            "connected",
            r#"{"type":"WEBMCP_CONNECTED","requestId":"p_s8Kq0yN2pLw"}"#.into(),
            M(Message::Connected { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: false }),
        ),
        (
            "connect, reading UTF-8 batches",
            r#"{"type":"WEBMCP_CONNECT","requestId":"p_s8Kq0yN2pLw","utf8Batches":true}"#.into(),
            M(Message::Connect { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: true }),
        ),
        (
            "connected, a utf8Batches that is not a flag",
            r#"{"type":"WEBMCP_CONNECTED","requestId":"p_s8Kq0yN2pLw","utf8Batches":"yes"}"#.into(),
            M(Message::Connected { request_id: rid("p_s8Kq0yN2pLw"), utf8_batches: false }),
        ),
        (
            "an escaped type and unknown fields",
            r#"{"extra":{"a":[1]},"type":"WEBMCP\u005fCANCEL_TOOL","requestId":"c1","args":5}"#.into(),
            M(Message::CancelTool { request_id: rid("c1") }),
        ),
        // Refusals.
        ("requestId missing", format!("{{{GET}}}"), error("requestId: missing", None)),
        (
            "requestId a number",
            format!(r#"{{{GET},"requestId":42}}"#),
            error("requestId: expected a string, found a number", None),
        ),
        (
            "requestId with a space",
            format!(r#"{{{GET},"requestId":"a b"}}"#),
            error("requestId: requestId holds ' ' at position 1: only letters, digits and _ . : - are allowed", None),
        ),
        (
            "requestId too long",
            format!(r#"{{{GET},"requestId":"{}"}}"#, "x".repeat(129)),
            error("requestId: requestId is 129 characters long: at most 128 are allowed", None),
        ),
        (
            "a tool name with a colon",
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c1","name":"a:b"}"#.into(),
            error("name: tool name holds ':' at position 1: only letters, digits and _ . - are allowed", Some("c1")),
        ),
        (
            "execute without a name",
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c1"}"#.into(),
            error("name: missing", Some("c1")),
        ),
        (
            "args an array (an object to WebMCP)",
            format!(r#"{{{EXEC},"args":[1]}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json("[1]"),
                resend: false,
            })),
        ),
        (
            "args a string holding an array",
            format!(r#"{{{EXEC},"args":"[1]"}}"#),
            M(Message::ExecuteRequest(ExecuteRequest {
                request_id: rid("c1"),
                name: name("add_to_cart"),
                args: json("[1]"),
                resend: false,
            })),
        ),
        (
            "args a number",
            format!(r#"{{{EXEC},"args":7}}"#),
            error("args: expected an object, an array, or a string holding one as JSON, found a number", Some("c1")),
        ),
        (
            "args a string holding a string",
            format!(r#"{{{EXEC},"args":"\"a\""}}"#),
            error("args: the string holds a string: expected a JSON object or array", Some("c1")),
        ),
        (
            "args a string that is not JSON",
            format!(r#"{{{EXEC},"args":"{{sku: 1}}"}}"#),
            error("args: the string does not hold valid JSON: expected a string key at byte 1, found 's'", Some("c1")),
        ),
        (
            "args with a __proto__ key",
            format!(r#"{{{EXEC},"args":{{"__proto__":{{"isAdmin":true}}}}}}"#),
            Want::Error {
                text: "args.__proto__: a \"__proto__\" key is refused: code that copies the arguments into an object could give it another prototype",
                request_id: Some("c1"),
                category: ErrorCategory::ProtoKey,
            },
        ),
        (
            "an escaped __proto__ deep in string args",
            format!(r#"{{{EXEC},"inputObject":"{{\"a\":[{{\"\\u005f_proto__\":1}}]}}"}}"#),
            Want::Error {
                text: "inputObject.a[0].__proto__: a \"__proto__\" key is refused: code that copies the arguments into an object could give it another prototype",
                request_id: Some("c1"),
                category: ErrorCategory::ProtoKey,
            },
        ),
        ("a response without success", format!(r#"{{{DONE},"result":1}}"#), error("success: missing", Some("c1"))),
        (
            "success a string",
            format!(r#"{{{DONE},"success":"yes"}}"#),
            error("success: expected true or false, found a string", Some("c1")),
        ),
        ("a failure without error", format!(r#"{{{DONE},"success":false}}"#), error("error: missing", Some("c1"))),
        (
            "an error that is not a string",
            format!(r#"{{{DONE},"success":false,"error":{{"message":"x"}}}}"#),
            error("error: expected a string, found an object", Some("c1")),
        ),
        ("tools missing", format!("{{{TOOLS}}}"), error("tools: missing", Some("r1"))),
        (
            "tools an object",
            format!(r#"{{{TOOLS},"tools":{{}}}}"#),
            error("tools: expected an array, found an object", Some("r1")),
        ),
        (
            "513 tools",
            format!(r#"{{{TOOLS},"tools":[{many_tools}]}}"#),
            error("tools: holds 513 entries: at most 512 are allowed", Some("r1")),
        ),
        (
            "a tool that is not an object",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a"}},"b"]}}"#),
            error("tools[1]: expected an object, found a string", Some("r1")),
        ),
        (
            "a tool with a bad name",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a"}},{{"name":"b c"}}]}}"#),
            error(
                "tools[1].name: tool name holds ' ' at position 1: only letters, digits and _ . - are allowed",
                Some("r1"),
            ),
        ),
        (
            "a tool without a name",
            format!(r#"{{{TOOLS},"tools":[{{"description":"d"}}]}}"#),
            error("tools[0].name: missing", Some("r1")),
        ),
        (
            "a description of 4097 characters",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a","description":"{}"}}]}}"#, "é".repeat(4097)),
            error("tools[0].description: is 4097 characters long: at most 4096 are allowed", Some("r1")),
        ),
        (
            "two tools with one name",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a"}},{{"name":"b"}},{{"name":"a"}}]}}"#),
            error("tools[2].name: \"a\" is listed more than once", Some("r1")),
        ),
        (
            "annotations an array",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a","annotations":[]}}]}}"#),
            error("tools[0].annotations: expected an object, found an array", Some("r1")),
        ),
        (
            "a tool field twice",
            format!(r#"{{{TOOLS},"tools":[{{"name":"a","name":"b"}}]}}"#),
            error("tools[0].name: appears more than once", Some("r1")),
        ),
        (
            "a state that is not ours",
            r#"{"type":"WEBMCP_CALL_STATUS_RESPONSE","requestId":"c1","state":"done","durable":true}"#.into(),
            error("state: expected \"running\" or \"unknown\", found \"done\"", Some("c1")),
        ),
        (
            "durable missing",
            r#"{"type":"WEBMCP_CALL_STATUS_RESPONSE","requestId":"c1","state":"unknown"}"#.into(),
            error("durable: missing", Some("c1")),
        ),
        (
            "513 acked ids",
            format!(r#"{{"type":"WEBMCP_CALL_ACK","requestIds":[{many_ids}]}}"#),
            error("requestIds: holds 513 entries: at most 512 are allowed", None),
        ),
        (
            "a bad acked id",
            r#"{"type":"WEBMCP_CALL_ACK","requestIds":["c1",""]}"#.into(),
            error("requestIds[1]: requestId is empty: it needs 1 to 128 characters", None),
        ),
        (
            "a field twice",
            format!(r#"{{{GET},"requestId":"a","requestId":"b"}}"#),
            error("requestId: appears more than once", Some("a")),
        ),
        (
            "the type twice",
            format!(r#"{{"type":"x",{GET},"requestId":"a"}}"#),
            error("type: appears more than once", Some("a")),
        ),
        (
            "nesting of 65 levels",
            deep_args,
            Want::Error {
                text: "nesting deeper than 64 levels",
                request_id: Some("c1"),
                category: ErrorCategory::TooDeep,
            },
        ),
        (
            "a message cut short",
            format!("{{{GET},"),
            Want::Error {
                text: "not valid JSON: expected a string key at byte 35, found the end of the text",
                request_id: None,
                category: ErrorCategory::InvalidJson,
            },
        ),
        (
            "text after the message",
            format!(r#"{{{GET},"requestId":"a"}} {{}}"#),
            Want::Error {
                text: "not valid JSON: expected the end of the text at byte 52, found '{'",
                request_id: None,
                category: ErrorCategory::InvalidJson,
            },
        ),
        (
            "a message over 1 MiB",
            format!(r#"{{{EXEC},"args":{{"x":"{}"}}}}"#, "x".repeat(1 << 20)),
            Want::Error {
                text: "message is 1048668 bytes: the limit is 1048576",
                request_id: None,
                category: ErrorCategory::TooLarge,
            },
        ),
    ]
}

impl From<Message> for Want {
    fn from(message: Message) -> Self {
        Want::Message(message)
    }
}

#[test]
fn every_case_decodes_to_exactly_what_it_should() {
    let limits = Limits::default();
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for (label, input, want) in cases {
        let got = decode(&input, &limits);
        match (want, got) {
            (Want::NotOurs, Ok(Decoded::NotOurs)) => {}
            (Want::Message(want), Ok(Decoded::Message(got))) => {
                assert_eq!(got, want, "{label}");
                let encoded = got.encode();
                assert_eq!(decode(&encoded, &limits), Ok(Decoded::Message(want)), "{label}: round trip of {encoded}");
            }
            (Want::Error { text, request_id, category }, Err(got)) => {
                assert_eq!(got.to_string(), text, "{label}");
                assert_eq!(got.request_id().map(RequestId::as_str), request_id, "{label}");
                assert_eq!(got.category(), category, "{label}");
            }
            (_, got) => panic!("{label}: unexpected {got:?}"),
        }
    }
}

#[test]
fn a_refused_execute_request_with_an_id_still_gets_an_answer() {
    let limits = Limits::default();
    let bad_args = decode(&format!(r#"{{{EXEC},"args":true}}"#), &limits).unwrap_err();
    let reply = bad_args.error_reply().unwrap();
    assert_eq!(reply.request_id, rid("c1"));
    let error = reply.outcome.unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidArgs);
    assert_eq!(
        error.message,
        "WEBMCP_EXECUTE_TOOL_REQUEST refused: args: expected an object, an array, or a string holding one as JSON, found a boolean"
    );
    let bad_name = decode(r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c2","name":""}"#, &limits).unwrap_err();
    assert_eq!(bad_name.error_reply().unwrap().outcome.unwrap_err().kind, ErrorKind::Refused);
    let no_id = decode(r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","name":"t"}"#, &limits).unwrap_err();
    assert_eq!(no_id.error_reply(), None);
    let not_a_request = decode(&format!(r#"{{{DONE},"success":1}}"#), &limits).unwrap_err();
    assert_eq!(not_a_request.error_reply(), None);
}

#[test]
fn every_limit_can_be_changed() {
    let limits = Limits {
        max_message_bytes: 200,
        max_depth: 3,
        max_tools_per_response: 1,
        max_description_chars: 3,
        max_error_message_chars: 4,
        max_ack_ids: 1,
        ..Limits::default()
    };
    let refused = |text: &str| decode(text, &limits).unwrap_err().to_string();
    assert_eq!(
        refused(&format!(r#"{{{EXEC},"args":{{"a":"{}"}}}}"#, "x".repeat(200))),
        "message is 292 bytes: the limit is 200"
    );
    assert_eq!(refused(&format!(r#"{{{EXEC},"args":{{"a":[[1]]}}}}"#)), "nesting deeper than 3 levels");
    assert_eq!(refused(&format!(r#"{{{EXEC},"args":"{{\"a\":[[1]]}}"}}"#)), "nesting deeper than 3 levels");
    assert!(decode(&format!(r#"{{{EXEC},"args":{{"a":[1]}}}}"#), &limits).is_ok());
    assert_eq!(
        refused(&format!(r#"{{{TOOLS},"tools":[{{"name":"a"}},{{"name":"b"}}]}}"#)),
        "tools: holds 2 entries: at most 1 are allowed"
    );
    assert_eq!(
        refused(&format!(r#"{{{TOOLS},"tools":[{{"name":"a","description":"abcd"}}]}}"#)),
        "tools[0].description: is 4 characters long: at most 3 are allowed"
    );
    assert_eq!(
        refused(r#"{"type":"WEBMCP_CALL_ACK","requestIds":["a","b"]}"#),
        "requestIds: holds 2 entries: at most 1 are allowed"
    );
    let Ok(Decoded::Message(Message::ExecuteResponse(cut))) =
        decode(&format!(r#"{{{DONE},"success":false,"error":"abcdef"}}"#), &limits)
    else {
        panic!("a long error is cut, not refused")
    };
    assert_eq!(cut.outcome.unwrap_err().message, "abc…");
}

/// Regression (fuzz crash-e6066b98): a lone UTF-16 surrogate escape is valid JSON, as `JSON.parse` and
/// `JSON.stringify` agree, even though serde_json refuses it when it builds a string. The scanner accepts it, a
/// text field reads it as U+FFFD, and a payload keeps it as written.
#[test]
fn lone_surrogate_escapes_are_json() {
    let limits = Limits::default();
    let crash = r#"[{"type":"","reequstIds":["a","b"]},{"type":"WEBMCP_CALL_STATUS_RESPONSE","reques.Id":"c0","state":"run\\\\++\\\\\\P_CALL_ACK","reequstIdWEBMCP_CALL_STATUS_RESPONSEs":"p2"},{"type":"WEBMCP_GOIN'\udb1c[[G_AWAY"}]"#;
    let batch = interpane_policy::decode_batch(crash, &limits).unwrap();
    assert_eq!(batch.len(), 3);
    assert_eq!(batch[0], Ok(Decoded::NotOurs));
    assert_eq!(batch[1].as_ref().unwrap_err().to_string(), "requestId: missing");
    assert_eq!(batch[2], Ok(Decoded::NotOurs));

    let text = JsonText::parse(r#""\udb1c[[G""#, &limits).unwrap();
    assert_eq!(text.as_str(), r#""\udb1c[[G""#);
    assert!(text.to_value().is_err());

    let failure_text = format!(r#"{{{DONE},"success":false,"error":"a\ud800b","code":"tool_error"}}"#);
    let Ok(Decoded::Message(Message::ExecuteResponse(response))) = decode(&failure_text, &limits) else {
        panic!("{failure_text}")
    };
    assert_eq!(response.outcome.unwrap_err().message, "a\u{fffd}b");
    let args_text = format!(r#"{{{EXEC},"args":{{"q":"\udc00"}}}}"#);
    let Ok(Decoded::Message(Message::ExecuteRequest(request))) = decode(&args_text, &limits) else {
        panic!("{args_text}")
    };
    assert_eq!(request.args.as_str(), r#"{"q":"\udc00"}"#);
}
