//! The messages of the wire protocol (docs/protocol.md), one type per message.

use std::fmt;

use super::json_text::JsonText;
use crate::ids::{RequestId, ToolName};
use crate::outcome::ToolError;

/// What a text or value turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// Not a message of ours (not an object, no string `type`, or a `type` that is not ours): ignore it
    /// without a reply, because other libraries share the `message` event.
    NotOurs,
    /// A well-formed message of ours.
    Message(Message),
}

/// The `type` of every message of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MessageType {
    /// `WEBMCP_GET_TOOLS_REQUEST`
    GetToolsRequest,
    /// `WEBMCP_GET_TOOLS_RESPONSE`
    GetToolsResponse,
    /// `WEBMCP_EXECUTE_TOOL_REQUEST`
    ExecuteToolRequest,
    /// `WEBMCP_EXECUTE_TOOL_RESPONSE`
    ExecuteToolResponse,
    /// `WEBMCP_CANCEL_TOOL` (extension)
    CancelTool,
    /// `WEBMCP_CALL_STATUS_REQUEST` (extension)
    CallStatusRequest,
    /// `WEBMCP_CALL_STATUS_RESPONSE` (extension)
    CallStatusResponse,
    /// `WEBMCP_CALL_ACK` (extension)
    CallAck,
    /// `WEBMCP_TOOLS_CHANGED` (extension)
    ToolsChanged,
    /// `WEBMCP_GOING_AWAY` (extension)
    GoingAway,
    /// `WEBMCP_CONNECT` (extension)
    Connect,
    /// `WEBMCP_CONNECTED` (extension)
    Connected,
}

impl MessageType {
    /// Every message type, the four basic ones first.
    pub const ALL: [Self; 12] = [
        Self::GetToolsRequest,
        Self::GetToolsResponse,
        Self::ExecuteToolRequest,
        Self::ExecuteToolResponse,
        Self::CancelTool,
        Self::CallStatusRequest,
        Self::CallStatusResponse,
        Self::CallAck,
        Self::ToolsChanged,
        Self::GoingAway,
        Self::Connect,
        Self::Connected,
    ];

    /// The `type` string on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GetToolsRequest => "WEBMCP_GET_TOOLS_REQUEST",
            Self::GetToolsResponse => "WEBMCP_GET_TOOLS_RESPONSE",
            Self::ExecuteToolRequest => "WEBMCP_EXECUTE_TOOL_REQUEST",
            Self::ExecuteToolResponse => "WEBMCP_EXECUTE_TOOL_RESPONSE",
            Self::CancelTool => "WEBMCP_CANCEL_TOOL",
            Self::CallStatusRequest => "WEBMCP_CALL_STATUS_REQUEST",
            Self::CallStatusResponse => "WEBMCP_CALL_STATUS_RESPONSE",
            Self::CallAck => "WEBMCP_CALL_ACK",
            Self::ToolsChanged => "WEBMCP_TOOLS_CHANGED",
            Self::GoingAway => "WEBMCP_GOING_AWAY",
            Self::Connect => "WEBMCP_CONNECT",
            Self::Connected => "WEBMCP_CONNECTED",
        }
    }

    /// The type named `name`, or `None` when the name is not ours (the message belongs to someone else).
    pub fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Whether only a peer that announced `"bridge": 1` may receive it (it is not one of the four basic ones).
    pub fn is_extension(self) -> bool {
        !matches!(
            self,
            Self::GetToolsRequest | Self::GetToolsResponse | Self::ExecuteToolRequest | Self::ExecuteToolResponse
        )
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool as a provider lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDescriptor {
    /// The tool's name.
    pub name: ToolName,
    /// What the tool does (empty when the provider gave none).
    pub description: String,
    /// The JSON Schema of its arguments, always an object (a string form is read into one).
    pub input_schema: Option<JsonText>,
    /// The provider's origin as the provider wrote it. Informational only: a consumer files the tool under the
    /// origin of the response event, never under this.
    pub origin: Option<String>,
    /// The tool's annotations object (`readOnlyHint`, ...).
    pub annotations: Option<JsonText>,
}

impl ToolDescriptor {
    /// A tool with a name and a description, and nothing else.
    pub fn new(name: ToolName, description: impl Into<String>) -> Self {
        Self { name, description: description.into(), input_schema: None, origin: None, annotations: None }
    }
}

/// `WEBMCP_GET_TOOLS_RESPONSE`: the tools visible to the asking origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetToolsResponse {
    /// The id of the request it answers.
    pub request_id: RequestId,
    /// The tools.
    pub tools: Vec<ToolDescriptor>,
    /// Whether the provider is a interpane that speaks the extensions (`"bridge": 1`).
    pub bridge: bool,
}

/// `WEBMCP_EXECUTE_TOOL_REQUEST`: run a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecuteRequest {
    /// The call id on the wire.
    pub request_id: RequestId,
    /// The tool to run.
    pub name: ToolName,
    /// The arguments, always an object without a `__proto__` key (`{}` when the request had none).
    pub args: JsonText,
    /// A bridge re-sends a call after its provider said it never received it (`"resend": 1`); the provider runs
    /// it only if it can still prove that (`ProviderJournal::on_resend`).
    pub resend: bool,
}

/// `WEBMCP_EXECUTE_TOOL_RESPONSE`: how a call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecuteResponse {
    /// The call id on the wire.
    pub request_id: RequestId,
    /// The tool's result, or why the call failed.
    pub outcome: Result<JsonText, ToolError>,
}

/// What a provider knows of a call it was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallState {
    /// The call runs; its response follows when it ends.
    Running,
    /// The provider never received the call.
    Unknown,
}

impl CallState {
    /// The `state` string on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Unknown => "unknown",
        }
    }
}

/// `WEBMCP_CALL_STATUS_RESPONSE`: the state of a call that has no outcome to send yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallStatusResponse {
    /// The call id on the wire.
    pub request_id: RequestId,
    /// What the provider knows of the call.
    pub state: CallState,
    /// Whether the provider's journal survives its own reloads; when it does not, `Unknown` does not prove that
    /// the call never ran.
    pub durable: bool,
}

/// One message of the protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `WEBMCP_GET_TOOLS_REQUEST`: list the tools visible to me.
    GetToolsRequest {
        /// Pairs the request with its response.
        request_id: RequestId,
        /// Whether the consumer is a interpane (`"bridge": 1`).
        bridge: bool,
    },
    /// `WEBMCP_GET_TOOLS_RESPONSE`.
    GetToolsResponse(GetToolsResponse),
    /// `WEBMCP_EXECUTE_TOOL_REQUEST`.
    ExecuteRequest(ExecuteRequest),
    /// `WEBMCP_EXECUTE_TOOL_RESPONSE`.
    ExecuteResponse(ExecuteResponse),
    /// `WEBMCP_CANCEL_TOOL`: the caller stopped this call.
    CancelTool {
        /// The call id on the wire.
        request_id: RequestId,
    },
    /// `WEBMCP_CALL_STATUS_REQUEST`: how did this call end, if it did?
    CallStatusRequest {
        /// The call id on the wire.
        request_id: RequestId,
    },
    /// `WEBMCP_CALL_STATUS_RESPONSE`.
    CallStatusResponse(CallStatusResponse),
    /// `WEBMCP_CALL_ACK`: the consumer recorded these outcomes.
    CallAck {
        /// The call ids whose outcomes were recorded.
        request_ids: Vec<RequestId>,
    },
    /// `WEBMCP_TOOLS_CHANGED`: the provider's catalog changed.
    ToolsChanged,
    /// `WEBMCP_GOING_AWAY`: the provider's page is going away.
    GoingAway,
    /// `WEBMCP_CONNECT`: here is a private port (sent with the port transferred).
    Connect {
        /// Pairs the offer with its `WEBMCP_CONNECTED`.
        request_id: RequestId,
        /// `"utf8Batches": 1`: the sender reads batches posted on the port as UTF-8 bytes, not only as strings.
        utf8_batches: bool,
    },
    /// `WEBMCP_CONNECTED`: the port is accepted (sent on the port).
    Connected {
        /// The id of the `WEBMCP_CONNECT` it accepts.
        request_id: RequestId,
        /// `"utf8Batches": 1`: the sender reads batches posted on the port as UTF-8 bytes, not only as strings.
        utf8_batches: bool,
    },
}

impl Message {
    /// The message's `type`.
    pub fn message_type(&self) -> MessageType {
        match self {
            Self::GetToolsRequest { .. } => MessageType::GetToolsRequest,
            Self::GetToolsResponse(_) => MessageType::GetToolsResponse,
            Self::ExecuteRequest(_) => MessageType::ExecuteToolRequest,
            Self::ExecuteResponse(_) => MessageType::ExecuteToolResponse,
            Self::CancelTool { .. } => MessageType::CancelTool,
            Self::CallStatusRequest { .. } => MessageType::CallStatusRequest,
            Self::CallStatusResponse(_) => MessageType::CallStatusResponse,
            Self::CallAck { .. } => MessageType::CallAck,
            Self::ToolsChanged => MessageType::ToolsChanged,
            Self::GoingAway => MessageType::GoingAway,
            Self::Connect { .. } => MessageType::Connect,
            Self::Connected { .. } => MessageType::Connected,
        }
    }

    /// The message's `requestId`, for the messages that have one.
    pub fn request_id(&self) -> Option<&RequestId> {
        match self {
            Self::GetToolsRequest { request_id, .. }
            | Self::CancelTool { request_id }
            | Self::CallStatusRequest { request_id }
            | Self::Connect { request_id, .. }
            | Self::Connected { request_id, .. } => Some(request_id),
            Self::GetToolsResponse(m) => Some(&m.request_id),
            Self::ExecuteRequest(m) => Some(&m.request_id),
            Self::ExecuteResponse(m) => Some(&m.request_id),
            Self::CallStatusResponse(m) => Some(&m.request_id),
            Self::CallAck { .. } | Self::ToolsChanged | Self::GoingAway => None,
        }
    }
}

impl From<GetToolsResponse> for Message {
    fn from(m: GetToolsResponse) -> Self {
        Self::GetToolsResponse(m)
    }
}

impl From<ExecuteRequest> for Message {
    fn from(m: ExecuteRequest) -> Self {
        Self::ExecuteRequest(m)
    }
}

impl From<ExecuteResponse> for Message {
    fn from(m: ExecuteResponse) -> Self {
        Self::ExecuteResponse(m)
    }
}

impl From<CallStatusResponse> for Message {
    fn from(m: CallStatusResponse) -> Self {
        Self::CallStatusResponse(m)
    }
}
