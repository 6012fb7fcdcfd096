//! Reading the fields of a located envelope, by message type, into a typed [`Message`] or a refusal that names
//! the field and says what is wrong with it.

use std::borrow::Cow;

use crate::envelope::json::Raw;
use serde_json::Value;

use super::error::{EnvelopeError, FieldProblem, Problem, syntax};
use super::json::{JsonKind, for_each_element, for_each_member, string};
use super::json_text::JsonText;
use super::locate::{Envelope, Field, Read};
use super::message::{
    CallState, CallStatusResponse, Decoded, ExecuteRequest, ExecuteResponse, GetToolsResponse, Message, MessageType,
    ToolDescriptor,
};
use super::shape::{MAX_NESTING, shape};
use crate::ids::{RequestId, ToolName};
use crate::limits::Limits;
use crate::outcome::{
    ErrorKind, MAX_ERROR_MESSAGE_CHARS, RetryAfter, ToolError, cap_error_message, standard_error_name, status_from_json,
};
use crate::sorted_map::SortedSet;

/// Turns a located envelope into a message or a refusal.
pub(super) fn interpret(read: Read<'_>, limits: &Limits) -> Result<Decoded, EnvelopeError> {
    let Read::Object(envelope) = read else {
        return Ok(Decoded::NotOurs);
    };
    let Some(message_type) = envelope.message_type else {
        return Ok(Decoded::NotOurs);
    };
    let mut cx = Fields { envelope: &envelope, limits, message_type, request_id: None };
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
    envelope: &'a Envelope<'t>,
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
            MessageType::Connect => {
                Message::Connect { request_id: self.request_id()?, utf8_batches: self.flag(Field::Utf8Batches) }
            }
            MessageType::Connected => {
                Message::Connected { request_id: self.request_id()?, utf8_batches: self.flag(Field::Utf8Batches) }
            }
        })
    }

    fn refuse(&self, problem: Problem) -> EnvelopeError {
        EnvelopeError::about(self.message_type, self.request_id.clone(), problem)
    }

    fn fail(&self, field: impl Into<String>, problem: FieldProblem) -> EnvelopeError {
        self.refuse(Problem::field(field, problem))
    }

    /// The field's value, absent or not.
    fn slot(&self, field: Field) -> Option<Raw<'t>> {
        self.envelope.slots.get(field as usize).copied().flatten()
    }

    /// The field's value, unless it is absent or `null`.
    fn present(&self, field: Field) -> Option<Raw<'t>> {
        self.slot(field).filter(|value| kind(*value) != JsonKind::Null)
    }

    fn require(&self, field: Field) -> Result<Raw<'t>, EnvelopeError> {
        self.slot(field).ok_or_else(|| self.fail(field.name(), FieldProblem::Missing))
    }

    fn string(&self, path: &str, value: Raw<'t>) -> Result<Cow<'t, str>, EnvelopeError> {
        match kind(value) {
            JsonKind::String => Ok(string(value.get())),
            found => Err(self.fail(path, FieldProblem::WrongType { expected: "a string", found })),
        }
    }

    fn request_id(&self) -> Result<RequestId, EnvelopeError> {
        let path = Field::RequestId.name();
        let text = self.string(path, self.require(Field::RequestId)?)?;
        RequestId::new(text).map_err(|e| self.fail(path, FieldProblem::Id(e)))
    }

    fn tool_name(&self, path: &str, scan: Raw<'t>) -> Result<ToolName, EnvelopeError> {
        ToolName::new(self.string(path, scan)?).map_err(|e| self.fail(path, FieldProblem::Id(e)))
    }

    /// `"bridge": 1` (or `true`) marks a interpane; anything else, or nothing, a plain peer.
    fn bridge(&self) -> bool {
        self.flag(Field::Bridge)
    }

    /// A flag such as `"bridge": 1`: `true` or the number 1; anything else (or nothing) is `false`.
    fn flag(&self, field: Field) -> bool {
        self.slot(field).is_some_and(|value| match kind(value) {
            JsonKind::Bool => value.get() == "true",
            JsonKind::Number => super::number::read_f64(value.get()) == Some(1.0),
            _ => false,
        })
    }

    fn boolean(&self, field: Field) -> Result<bool, EnvelopeError> {
        let value = self.require(field)?;
        match kind(value) {
            JsonKind::Bool => Ok(value.get() == "true"),
            found => Err(self.fail(field.name(), FieldProblem::WrongType { expected: "true or false", found })),
        }
    }

    fn args(&self) -> Result<JsonText, EnvelopeError> {
        let (path, scan) = match (self.present(Field::Args), self.present(Field::InputObject)) {
            (Some(scan), _) => (Field::Args.name(), scan),
            (None, Some(scan)) => (Field::InputObject.name(), scan),
            (None, None) => return Ok(JsonText::empty_object()),
        };
        let (args, proto_path) = self.object(path, scan, 1, true)?;
        if let Some(proto_path) = proto_path {
            return Err(self.fail(format!("{path}{proto_path}"), FieldProblem::ProtoKey));
        }
        Ok(args)
    }

    /// An object (or, with `arrays`, an array), or a string holding one as JSON, at `depth` inside the message;
    /// with the path of its first `__proto__` key, if any.
    fn object(
        &self,
        path: &str,
        value: Raw<'t>,
        depth: usize,
        arrays: bool,
    ) -> Result<(JsonText, Option<String>), EnvelopeError> {
        let taken = |kind: JsonKind| kind == JsonKind::Object || (arrays && kind == JsonKind::Array);
        match kind(value) {
            found if taken(found) => {
                // The envelope's depth has been measured: only the `__proto__` key is looked for.
                let proto_path = shape(value.get(), MAX_NESTING).proto_path;
                Ok((JsonText::from_checked(value.get(), proto_path.is_some()), proto_path))
            }
            JsonKind::String => {
                let inner = string(value.get());
                let inner = super::json::raw(&inner).map_err(|e| self.fail(path, FieldProblem::EmbeddedSyntax(e)))?;
                let found = shape(inner.get(), self.limits.max_depth.saturating_sub(depth));
                if found.too_deep {
                    return Err(self.refuse(Problem::TooDeep { limit: self.limits.max_depth }));
                }
                match kind(inner) {
                    held if taken(held) => {
                        Ok((JsonText::from_checked(inner.get(), found.proto_path.is_some()), found.proto_path))
                    }
                    found => {
                        let expected = if arrays { "a JSON object or array" } else { "a JSON object" };
                        Err(self.fail(path, FieldProblem::EmbeddedNotObject { found, expected }))
                    }
                }
            }
            found => {
                let expected = if arrays {
                    "an object, an array, or a string holding one as JSON"
                } else {
                    "an object or a string holding a JSON object"
                };
                Err(self.fail(path, FieldProblem::WrongType { expected, found }))
            }
        }
    }

    fn outcome(&self) -> Result<Result<JsonText, ToolError>, EnvelopeError> {
        if self.boolean(Field::Success)? {
            return Ok(Ok(match self.slot(Field::Result) {
                Some(result) => {
                    let has_proto_key = shape(result.get(), MAX_NESTING).proto_path.is_some();
                    JsonText::from_checked(result.get(), has_proto_key)
                }
                None => JsonText::null(),
            }));
        }
        let message = self.string(Field::Error.name(), self.require(Field::Error)?)?;
        let code = self.slot(Field::Code).filter(|code| kind(*code) == JsonKind::String);
        let error_kind = code.map_or(ErrorKind::ToolError, |code| ErrorKind::from_provider(&string(code.get())));
        let name = self.slot(Field::ErrorName).filter(|name| kind(*name) == JsonKind::String);
        let name = name.and_then(|name| standard_error_name(&string(name.get())));
        Ok(Err(ToolError {
            kind: error_kind,
            message: cap_message(&message, self.limits.max_error_message_chars),
            name,
            status: self.scalar(Field::Status).as_ref().and_then(status_from_json),
            retry_after: self.scalar(Field::RetryAfter).as_ref().and_then(RetryAfter::from_json),
        }))
    }

    /// A number or a short string as a `Value`, for the outcome rules; anything else is `None`.
    fn scalar(&self, field: Field) -> Option<Value> {
        let value = self.slot(field)?;
        match kind(value) {
            JsonKind::Number => number_value(value.get()),
            JsonKind::String if value.get().len() <= 66 => Some(Value::String(string(value.get()).into_owned())),
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
    fn elements(&self, path: &str, value: Raw<'t>, limit: usize) -> Result<Vec<Raw<'t>>, EnvelopeError> {
        if kind(value) != JsonKind::Array {
            return Err(self.fail(path, FieldProblem::WrongType { expected: "an array", found: kind(value) }));
        }
        let mut elements = Vec::new();
        let count = for_each_element(value.get(), limit, |element| elements.push(element)).map_err(syntax)?;
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
            let id = RequestId::new(self.string(&path, *scan)?).map_err(|e| self.fail(&path, FieldProblem::Id(e)))?;
            ids.push(id);
        }
        Ok(ids)
    }

    fn tools(&self) -> Result<Vec<ToolDescriptor>, EnvelopeError> {
        let path = Field::Tools.name();
        let elements = self.elements(path, self.require(Field::Tools)?, self.limits.max_tools_per_response)?;
        let mut tools = Vec::with_capacity(elements.len());
        for (i, scan) in elements.iter().enumerate() {
            tools.push(self.tool(&format!("{path}[{i}]"), *scan)?);
        }
        let mut seen = SortedSet::new();
        for (i, tool) in tools.iter().enumerate() {
            if !seen.insert(tool.name.as_str()) {
                let name = tool.name.as_str().to_owned();
                return Err(self.fail(format!("{path}[{i}].name"), FieldProblem::DuplicateTool { name }));
            }
        }
        Ok(tools)
    }

    fn tool(&self, path: &str, tool: Raw<'t>) -> Result<ToolDescriptor, EnvelopeError> {
        const KEYS: [&str; 5] = ["name", "description", "inputSchema", "origin", "annotations"];
        if kind(tool) != JsonKind::Object {
            return Err(self.fail(path, FieldProblem::WrongType { expected: "an object", found: kind(tool) }));
        }
        let mut slots: [Option<Raw<'t>>; 5] = Default::default();
        let mut repeated = None;
        for_each_member(tool.get(), |key, value| {
            let key = string(key.get());
            if let Some(at) = KEYS.iter().position(|k| *k == key) {
                match &slots[at] {
                    Some(_) => repeated = repeated.or(Some(at)),
                    None => slots[at] = Some(value),
                }
            }
        })
        .map_err(syntax)?;
        let field = |at: usize| format!("{path}.{}", KEYS[at]);
        if let Some(at) = repeated {
            return Err(self.fail(field(at), FieldProblem::Repeated));
        }
        let present = |at: usize| slots[at].filter(|value| kind(*value) != JsonKind::Null);
        let name_scan = slots[0].ok_or_else(|| self.fail(field(0), FieldProblem::Missing))?;
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
            Some(scan) => Some(self.object(&field(2), scan, TOOL_FIELD_DEPTH, false)?.0),
            None => None,
        };
        let origin =
            present(3).filter(|value| kind(*value) == JsonKind::String).map(|value| string(value.get()).into_owned());
        let annotations = match present(4) {
            Some(value) if kind(value) == JsonKind::Object => {
                let has_proto_key = shape(value.get(), MAX_NESTING).proto_path.is_some();
                Some(JsonText::from_checked(value.get(), has_proto_key))
            }
            Some(value) => {
                return Err(self.fail(field(4), FieldProblem::WrongType { expected: "an object", found: kind(value) }));
            }
            None => None,
        };
        Ok(ToolDescriptor { name, description, input_schema, origin, annotations })
    }
}

/// A JSON number's text as a `Value`: integers exactly, other numbers correctly rounded to `f64`, as
/// `JSON.parse` reads them (a `retryAfter` survives a round trip).
fn number_value(text: &str) -> Option<Value> {
    super::parse_json(text).ok().filter(Value::is_number)
}

/// The kind of a value that was checked.
fn kind(value: Raw<'_>) -> JsonKind {
    JsonKind::of(value.get())
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::number_value;

    /// Every finite `f64`, written as JavaScript writes it (the shortest text that reads back the same), reads back
    /// as exactly that `f64` (a `retryAfter` survives the trip between windows).
    #[test]
    fn numbers_read_back_exactly() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut checked = 0;
        while checked < 20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let number = f64::from_bits(state);
            if !number.is_finite() {
                continue;
            }
            // Rust's `{:e}` writes the shortest digits that read back exactly, as JavaScript's `String(n)` does.
            let text = format!("{number:e}");
            let read = number_value(&text).and_then(|value| value.as_f64());
            assert_eq!(read.map(f64::to_bits), Some(number.to_bits()), "{text}");
            checked += 1;
        }
    }
}
