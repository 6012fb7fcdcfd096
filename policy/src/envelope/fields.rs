//! Reading the fields of a located envelope, by message type, into a typed [`Message`] or a refusal that names
//! the field and says what is wrong with it.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::{Number, Value};

use super::decode::{Decoded, Envelope, Field, Read, syntax};
use super::error::{EnvelopeError, FieldProblem, Problem};
use super::json_text::JsonText;
use super::message::{
    CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, Message, MessageType,
    ToolDescriptor,
};
use super::scan::{JsonKind, RawStr, Scanner, ValueScan};
use crate::ids::{RequestId, ToolName};
use crate::limits::Limits;
use crate::outcome::{
    ErrorKind, MAX_ERROR_MESSAGE_CHARS, RetryAfter, ToolError, cap_error_message, standard_error_name, status_from_json,
};

/// Turns a located envelope into a message or a refusal.
pub(super) fn interpret(text: &str, read: Read, limits: &Limits) -> Result<Decoded, EnvelopeError> {
    let Read::Object(envelope) = read else {
        return Ok(Decoded::NotOurs);
    };
    let Some(message_type) = envelope.message_type else {
        return Ok(Decoded::NotOurs);
    };
    let mut cx = Fields { text, envelope: &envelope, limits, message_type, request_id: None };
    cx.request_id = cx.request_id().ok();
    if envelope.too_deep {
        return Err(cx.refuse(Problem::TooDeep { limit: limits.max_depth }));
    }
    if let Some(field) = envelope.repeated {
        return Err(cx.fail(field.name(), FieldProblem::Repeated));
    }
    cx.message().map(Decoded::Message)
}

/// Reads the fields of one message of a known type.
struct Fields<'a, 't> {
    text: &'t str,
    envelope: &'a Envelope,
    limits: &'a Limits,
    message_type: MessageType,
    request_id: Option<RequestId>,
}

/// Where a value sits, relative to the message, for depth limits on JSON held in strings.
const TOOL_FIELD_DEPTH: usize = 3;

impl<'t> Fields<'_, 't> {
    fn message(&self) -> Result<Message, EnvelopeError> {
        Ok(match self.message_type {
            MessageType::GetToolsRequest => {
                Message::GetToolsRequest { request_id: self.request_id()?, bridge: self.bridge() }
            }
            MessageType::GetToolsResponse => Message::GetToolsResponse(GetToolsResponse {
                request_id: self.request_id()?,
                tools: self.tools()?,
                bridge: self.bridge(),
            }),
            MessageType::ExecuteToolRequest => Message::ExecuteRequest(ExecuteRequest {
                request_id: self.request_id()?,
                name: self.tool_name(Field::Name.name(), self.require(Field::Name)?)?,
                args: self.args()?,
                resend: self.flag(Field::Resend),
            }),
            MessageType::ExecuteToolResponse => {
                Message::ExecuteResponse(ExecuteResponse { request_id: self.request_id()?, outcome: self.outcome()? })
            }
            MessageType::CancelTool => Message::CancelTool { request_id: self.request_id()? },
            MessageType::CallStatusRequest => Message::CallStatusRequest { request_id: self.request_id()? },
            MessageType::CallStatusResponse => Message::CallStatusResponse(CallStatusResponse {
                request_id: self.request_id()?,
                state: self.state()?,
                durable: self.boolean(Field::Durable)?,
            }),
            MessageType::CallAck => Message::CallAck { request_ids: self.ack_ids()? },
            MessageType::ToolsChanged => Message::ToolsChanged,
            MessageType::GoingAway => Message::GoingAway,
            MessageType::Connect => Message::Connect { request_id: self.request_id()? },
            MessageType::Connected => Message::Connected { request_id: self.request_id()? },
        })
    }

    fn refuse(&self, problem: Problem) -> EnvelopeError {
        EnvelopeError::about(self.message_type, self.request_id.clone(), problem)
    }

    fn fail(&self, field: impl Into<String>, problem: FieldProblem) -> EnvelopeError {
        self.refuse(Problem::field(field, problem))
    }

    /// The field's value, absent or not.
    fn slot(&self, field: Field) -> Option<&ValueScan> {
        self.envelope.slots.get(field as usize).and_then(Option::as_ref)
    }

    /// The field's value, unless it is absent or `null`.
    fn present(&self, field: Field) -> Option<&ValueScan> {
        self.slot(field).filter(|scan| scan.kind != JsonKind::Null)
    }

    fn require(&self, field: Field) -> Result<&ValueScan, EnvelopeError> {
        self.slot(field).ok_or_else(|| self.fail(field.name(), FieldProblem::Missing))
    }

    fn string(&self, path: &str, scan: &ValueScan) -> Result<Cow<'t, str>, EnvelopeError> {
        self.raw(path, scan).map(RawStr::unescape)
    }

    fn raw(&self, path: &str, scan: &ValueScan) -> Result<RawStr<'t>, EnvelopeError> {
        if scan.kind != JsonKind::String {
            return Err(self.fail(path, FieldProblem::WrongType { expected: "a string", found: scan.kind }));
        }
        Ok(scan.raw_str(self.text))
    }

    fn request_id(&self) -> Result<RequestId, EnvelopeError> {
        let path = Field::RequestId.name();
        let text = self.string(path, self.require(Field::RequestId)?)?;
        RequestId::new(text).map_err(|e| self.fail(path, FieldProblem::Id(e)))
    }

    fn tool_name(&self, path: &str, scan: &ValueScan) -> Result<ToolName, EnvelopeError> {
        ToolName::new(self.string(path, scan)?).map_err(|e| self.fail(path, FieldProblem::Id(e)))
    }

    /// `"bridge": 1` (or `true`) marks a webmcp-bridge; anything else, or nothing, a plain peer.
    fn bridge(&self) -> bool {
        self.flag(Field::Bridge)
    }

    /// A flag such as `"bridge": 1`: `true` or the number 1; anything else (or nothing) is `false`.
    fn flag(&self, field: Field) -> bool {
        self.slot(field).is_some_and(|scan| match scan.kind {
            JsonKind::Bool => scan.slice(self.text) == "true",
            JsonKind::Number => scan.slice(self.text).parse::<f64>() == Ok(1.0),
            _ => false,
        })
    }

    fn boolean(&self, field: Field) -> Result<bool, EnvelopeError> {
        let scan = self.require(field)?;
        if scan.kind != JsonKind::Bool {
            return Err(
                self.fail(field.name(), FieldProblem::WrongType { expected: "true or false", found: scan.kind })
            );
        }
        Ok(scan.slice(self.text) == "true")
    }

    fn args(&self) -> Result<JsonText, EnvelopeError> {
        let (path, scan) = match (self.present(Field::Args), self.present(Field::InputObject)) {
            (Some(scan), _) => (Field::Args.name(), scan),
            (None, Some(scan)) => (Field::InputObject.name(), scan),
            (None, None) => return Ok(JsonText::empty_object()),
        };
        let (args, proto_path) = self.object(path, scan, 1)?;
        if let Some(proto_path) = proto_path {
            return Err(self.fail(format!("{path}{proto_path}"), FieldProblem::ProtoKey));
        }
        Ok(args)
    }

    /// An object, or a string holding a JSON object, at `depth` inside the message; with the path of its first
    /// `__proto__` key, if any.
    fn object(&self, path: &str, scan: &ValueScan, depth: usize) -> Result<(JsonText, Option<String>), EnvelopeError> {
        match scan.kind {
            JsonKind::Object => Ok((JsonText::from_scan(self.text, scan), scan.proto_path.clone())),
            JsonKind::String => {
                let inner = scan.raw_str(self.text).unescape();
                let mut scanner = Scanner::new(&inner);
                let inner_scan = scanner
                    .scan_value(self.limits.max_depth.saturating_sub(depth))
                    .and_then(|found| scanner.finish().map(|()| found))
                    .map_err(|e| self.fail(path, FieldProblem::EmbeddedSyntax(e)))?;
                if inner_scan.too_deep {
                    return Err(self.refuse(Problem::TooDeep { limit: self.limits.max_depth }));
                }
                if inner_scan.kind != JsonKind::Object {
                    return Err(self.fail(path, FieldProblem::EmbeddedNotObject { found: inner_scan.kind }));
                }
                Ok((JsonText::from_scan(&inner, &inner_scan), inner_scan.proto_path))
            }
            found => Err(self.fail(
                path,
                FieldProblem::WrongType { expected: "an object or a string holding a JSON object", found },
            )),
        }
    }

    fn outcome(&self) -> Result<Result<JsonText, ToolError>, EnvelopeError> {
        if self.boolean(Field::Success)? {
            return Ok(Ok(match self.slot(Field::Result) {
                Some(scan) => JsonText::from_scan(self.text, scan),
                None => JsonText::null(),
            }));
        }
        let message = self.string(Field::Error.name(), self.require(Field::Error)?)?;
        let kind = match self.slot(Field::Code).map(|scan| (scan.kind, scan)) {
            Some((JsonKind::String, scan)) => ErrorKind::from_provider(&scan.raw_str(self.text).unescape()),
            _ => ErrorKind::ToolError,
        };
        let name = match self.slot(Field::ErrorName) {
            Some(scan) if scan.kind == JsonKind::String => standard_error_name(&scan.raw_str(self.text).unescape()),
            _ => None,
        };
        Ok(Err(ToolError {
            kind,
            message: cap_message(&message, self.limits.max_error_message_chars),
            name,
            status: self.scalar(Field::Status).as_ref().and_then(status_from_json),
            retry_after: self.scalar(Field::RetryAfter).as_ref().and_then(RetryAfter::from_json),
        }))
    }

    /// A number or a short string as a `Value`, for the outcome rules; anything else is `None`.
    fn scalar(&self, field: Field) -> Option<Value> {
        let scan = self.slot(field)?;
        match scan.kind {
            JsonKind::Number => number_value(scan.slice(self.text)),
            JsonKind::String if scan.end - scan.start <= 66 => {
                Some(Value::String(scan.raw_str(self.text).unescape().into_owned()))
            }
            _ => None,
        }
    }

    fn state(&self) -> Result<CallState, EnvelopeError> {
        let path = Field::State.name();
        let state = self.string(path, self.require(Field::State)?)?;
        match &*state {
            "running" => Ok(CallState::Running),
            "unknown" => Ok(CallState::Unknown),
            other => Err(self.fail(
                path,
                FieldProblem::NotOneOf {
                    expected: "\"running\" or \"unknown\"",
                    found: other.chars().take(40).collect(),
                },
            )),
        }
    }

    /// The elements of an array field, at most `limit` of them.
    fn elements(&self, path: &str, scan: &ValueScan, limit: usize) -> Result<Vec<ValueScan>, EnvelopeError> {
        if scan.kind != JsonKind::Array {
            return Err(self.fail(path, FieldProblem::WrongType { expected: "an array", found: scan.kind }));
        }
        let mut elements = Vec::new();
        let mut count = 0;
        Scanner::at(self.text, scan.start)
            .read_array(|s| {
                let element = s.scan_value(self.limits.max_depth)?;
                count += 1;
                if count <= limit {
                    elements.push(element);
                }
                Ok(())
            })
            .map_err(syntax)?;
        if count > limit {
            return Err(self.fail(path, FieldProblem::TooMany { count, limit }));
        }
        Ok(elements)
    }

    fn ack_ids(&self) -> Result<Vec<RequestId>, EnvelopeError> {
        let path = Field::RequestIds.name();
        let elements = self.elements(path, self.require(Field::RequestIds)?, self.limits.max_ack_ids)?;
        let mut ids = Vec::with_capacity(elements.len());
        for (i, scan) in elements.iter().enumerate() {
            let path = format!("{path}[{i}]");
            let id = RequestId::new(self.string(&path, scan)?).map_err(|e| self.fail(&path, FieldProblem::Id(e)))?;
            ids.push(id);
        }
        Ok(ids)
    }

    fn tools(&self) -> Result<Vec<ToolDescriptor>, EnvelopeError> {
        let path = Field::Tools.name();
        let elements = self.elements(path, self.require(Field::Tools)?, self.limits.max_tools_per_response)?;
        let mut tools = Vec::with_capacity(elements.len());
        for (i, scan) in elements.iter().enumerate() {
            tools.push(self.tool(&format!("{path}[{i}]"), scan)?);
        }
        let mut seen = BTreeSet::new();
        for (i, tool) in tools.iter().enumerate() {
            if !seen.insert(tool.name.as_str()) {
                let name = tool.name.as_str().to_owned();
                return Err(self.fail(format!("{path}[{i}].name"), FieldProblem::DuplicateTool { name }));
            }
        }
        Ok(tools)
    }

    fn tool(&self, path: &str, scan: &ValueScan) -> Result<ToolDescriptor, EnvelopeError> {
        const KEYS: [&str; 5] = ["name", "description", "inputSchema", "origin", "annotations"];
        if scan.kind != JsonKind::Object {
            return Err(self.fail(path, FieldProblem::WrongType { expected: "an object", found: scan.kind }));
        }
        let mut slots: [Option<ValueScan>; 5] = Default::default();
        let mut repeated = None;
        Scanner::at(self.text, scan.start)
            .read_object(|s, key| {
                let value = s.scan_value(self.limits.max_depth)?;
                let key = key.unescape();
                if let Some(at) = KEYS.iter().position(|k| *k == key) {
                    match &slots[at] {
                        Some(_) => repeated = repeated.or(Some(at)),
                        None => slots[at] = Some(value),
                    }
                }
                Ok(())
            })
            .map_err(syntax)?;
        let field = |at: usize| format!("{path}.{}", KEYS[at]);
        if let Some(at) = repeated {
            return Err(self.fail(field(at), FieldProblem::Repeated));
        }
        let present = |at: usize| slots[at].as_ref().filter(|s| s.kind != JsonKind::Null);
        let name_scan = slots[0].as_ref().ok_or_else(|| self.fail(field(0), FieldProblem::Missing))?;
        let name = self.tool_name(&field(0), name_scan)?;
        let description = match present(1) {
            Some(scan) => {
                let text = self.string(&field(1), scan)?;
                let limit = self.limits.max_description_chars;
                if text.len() > limit && text.chars().count() > limit {
                    let chars = text.chars().count();
                    return Err(self.fail(field(1), FieldProblem::TooLong { chars, limit }));
                }
                text.into_owned()
            }
            None => String::new(),
        };
        let input_schema = match present(2) {
            Some(scan) => Some(self.object(&field(2), scan, TOOL_FIELD_DEPTH)?.0),
            None => None,
        };
        let origin = present(3)
            .filter(|scan| scan.kind == JsonKind::String)
            .map(|scan| scan.raw_str(self.text).unescape().into_owned());
        let annotations = match present(4) {
            Some(scan) if scan.kind == JsonKind::Object => Some(JsonText::from_scan(self.text, scan)),
            Some(scan) => {
                return Err(self.fail(field(4), FieldProblem::WrongType { expected: "an object", found: scan.kind }));
            }
            None => None,
        };
        Ok(ToolDescriptor { name, description, input_schema, origin, annotations })
    }
}

/// A JSON number's text as a `Value`: integers exactly, other numbers correctly rounded to `f64`.
fn number_value(text: &str) -> Option<Value> {
    if !text.contains(['.', 'e', 'E']) {
        if let Ok(n) = text.parse::<u64>() {
            return Some(Value::from(n));
        }
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::from(n));
        }
    }
    text.parse::<f64>().ok().and_then(Number::from_f64).map(Value::Number)
}

/// Cuts an error message to `limit` characters (never more than the crate-wide cap), marking a cut with `…`.
pub(crate) fn cap_message(message: &str, limit: usize) -> String {
    let capped = cap_error_message(message);
    if limit >= MAX_ERROR_MESSAGE_CHARS {
        return capped;
    }
    match capped.char_indices().nth(limit) {
        None => capped,
        Some(_) if limit == 0 => String::new(),
        Some((cut, _)) => {
            let mut shorter = capped.get(..cut).unwrap_or_default().to_owned();
            shorter.pop();
            shorter.push('…');
            shorter
        }
    }
}
