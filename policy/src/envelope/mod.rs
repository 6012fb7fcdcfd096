//! Message envelopes: decoding what other windows post into typed [`Message`]s, and encoding ours.
//!
//! The wire protocol is docs/protocol.md. Every message is a JSON object with a string `type`; a value that is
//! not an object, or whose `type` is not ours, is [`Decoded::NotOurs`] (other libraries share the `message`
//! event). A message of ours that breaks a rule is refused with an [`EnvelopeError`] that names the field.
//!
//! ```
//! use interpane_policy::envelope::{decode, Decoded, ExecuteResponse, Message};
//! use interpane_policy::{JsonText, Limits};
//!
//! let limits = Limits::default();
//! let text = r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw",
//!                "name":"add_to_cart","args":{"sku":"margherita"}}"#;
//! let Decoded::Message(Message::ExecuteRequest(request)) = decode(text, &limits)? else { unreachable!() };
//! assert_eq!(request.name.as_str(), "add_to_cart");
//! assert_eq!(request.args.as_str(), r#"{"sku":"margherita"}"#);
//!
//! let result = JsonText::parse(r#"{"content":[{"type":"text","text":"Added margherita"}]}"#, &limits)?;
//! let reply = Message::from(ExecuteResponse::success(request.request_id, result, &limits));
//! assert_eq!(
//!     reply.encode(),
//!     r#"{"type":"WEBMCP_EXECUTE_TOOL_RESPONSE","requestId":"c_6YV2n0cM1yqg1nq4cH3Wyw","success":true,"result":{"content":[{"type":"text","text":"Added margherita"}]}}"#
//! );
//!
//! // Arguments that could replace a prototype are refused, and the refusal still lets the provider answer.
//! let bad = r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","requestId":"c1","name":"t","args":{"a":{"__proto__":{}}}}"#;
//! let error = decode(bad, &limits).unwrap_err();
//! assert!(error.to_string().starts_with("args.a.__proto__: a \"__proto__\" key is refused"));
//! assert_eq!(error.request_id().map(|id| id.as_str()), Some("c1"));
//! assert!(error.error_reply().is_some());
//!
//! // Not ours: ignored without a reply.
//! assert_eq!(decode(r#"{"type":"react-devtools-bridge"}"#, &limits)?, Decoded::NotOurs);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate reads and writes JSON text itself (`json.rs` checks a text and hands out raw slices of it,
//! `json_tree.rs` builds a `serde_json::Value` where a tree is needed, `number.rs` reads numbers exactly,
//! `encode.rs` writes), with serde_json's `Value` as the tree type only. Payloads (arguments, results, schemas) are
//! [`JsonText`]: checked once and kept as raw slices without building a tree, copied as text, and inserted as they
//! are when encoding, so their numbers keep their exact digits. Nesting is limited to `Limits::max_depth` levels and
//! never more than 128, whatever the limit says.

mod build;
mod decode;
pub(crate) mod encode;
mod error;
mod fields;
pub(crate) mod json;
mod json_text;
mod json_tree;
mod locate;
mod message;
mod number;
mod shape;

pub use build::{ThrownError, cap_result};
pub use decode::{decode, decode_batch, decode_value};
pub use encode::{encode_batch, encode_batches, take_batch};
pub use error::{EnvelopeError, ErrorCategory, FieldProblem, Problem};
pub use json::{JsonKind, SyntaxError};
pub use json_text::{JsonError, JsonText};
pub use json_tree::{JsonTreeError, parse_json};
pub use message::{
    CallState, CallStatusResponse, Decoded, ExecuteRequest, ExecuteResponse, GetToolsResponse, Message, MessageType,
    ToolDescriptor,
};
