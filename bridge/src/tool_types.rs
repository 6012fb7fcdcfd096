//! The data the APIs hand out: tools of other windows as listed, settled calls, and the future a Rust tool returns.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{Finished, ListedTool, PeerId, WindowId};
use interpane_policy::{ErrorKind, JsonText, ToolError, WindowOrigin};
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::user::{outcome_to_js, page_value};
use crate::{CallStatus, js};

/// What a Rust tool returns: its result as JSON, or an error that keeps its status and retryAfter.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, ToolError>>>>;

/// How one of the page's tools runs.
#[derive(Clone)]
pub(crate) enum Handler {
    /// A JavaScript `execute(args, { signal })` and the object it belongs to (its `this`).
    Js { execute: js_sys::Function, this: JsValue },
    /// A Rust function.
    Rust(Rc<dyn Fn(Value, web_sys::AbortSignal) -> ToolFuture>),
}

/// A tool of this page or of another window, as listed by [`Bridge::get_tools`](crate::Bridge::get_tools).
#[derive(Debug, Clone)]
pub struct RemoteTool {
    name: String,
    description: String,
    input_schema: Option<JsonText>,
    annotations: Option<JsonText>,
    origin: WindowOrigin,
    pub(crate) peer: PeerId,
    window: WindowId,
}

impl RemoteTool {
    pub(crate) fn from_listed(listed: ListedTool) -> Self {
        let ListedTool { descriptor, origin, peer, window } = listed;
        Self {
            name: descriptor.name.to_string(),
            description: descriptor.description,
            input_schema: descriptor.input_schema,
            annotations: descriptor.annotations,
            origin,
            peer,
            window,
        }
    }

    /// The tool's name (unique within its window, not across windows).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the tool does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The origin of the window that runs it, as the browser reported it.
    pub fn origin(&self) -> &str {
        self.origin.serialization()
    }

    /// The JSON Schema of its arguments.
    pub fn input_schema(&self) -> Option<Value> {
        self.input_schema.as_ref().and_then(|s| s.to_value().ok())
    }

    /// Its annotations (`readOnlyHint`, ...).
    pub fn annotations(&self) -> Option<Value> {
        self.annotations.as_ref().and_then(|a| a.to_value().ok())
    }

    /// The window the tool runs in, as the driver names it.
    pub(crate) fn window(&self) -> WindowId {
        self.window
    }

    /// The tool object `getTools` resolves with; `window` is the tool's window.
    pub(crate) fn to_js(&self, window: &JsValue) -> JsValue {
        let parse = |text: &Option<JsonText>| text.as_ref().map_or(JsValue::UNDEFINED, |t| page_value(t.as_str()));
        js::make_tool_object(
            &self.name,
            &self.description,
            &parse(&self.input_schema),
            &parse(&self.annotations),
            self.origin.serialization(),
            window,
            self.peer.0,
        )
    }
}

/// A settled call, as the `toolresult` event reports it.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The caller's `callId`, or the id the bridge made.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The origin of the window that ran it.
    pub origin: String,
    pub(crate) outcome: CallOutcome,
    /// Milliseconds from the call's start to its end.
    pub duration_ms: u64,
    /// The call settled in a later page than the one that started it.
    pub recovered: bool,
}

impl ToolResult {
    pub(crate) fn from_finished(finished: Finished) -> Self {
        let Finished { call_id, name, origin, outcome, duration_ms, recovered } = finished;
        Self { call_id, name, origin: origin.to_string(), outcome, duration_ms, recovered }
    }

    /// How the call ended.
    pub fn status(&self) -> CallStatus {
        match &self.outcome {
            CallOutcome::Failed(error) if error.kind == ErrorKind::Interrupted => CallStatus::Interrupted,
            other => other.status(),
        }
    }

    /// The result, when the call completed.
    pub fn result(&self) -> Option<Value> {
        match &self.outcome {
            CallOutcome::Completed { result } => result.to_value().ok(),
            _ => None,
        }
    }

    /// The error, for any other status.
    pub fn error(&self) -> Option<ToolError> {
        self.outcome.error()
    }

    pub(crate) fn to_js_detail(&self) -> JsValue {
        let detail = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = js_sys::Reflect::set(&detail, &JsValue::from_str(key), value);
        };
        set("callId", &JsValue::from_str(&self.call_id));
        set("name", &JsValue::from_str(&self.name));
        set("origin", &JsValue::from_str(&self.origin));
        set("status", &JsValue::from_str(self.status().as_str()));
        match outcome_to_js(&self.outcome) {
            Ok(result) => set("result", &result),
            Err(error) => set("error", &error),
        }
        set("durationMs", &JsValue::from_f64(self.duration_ms as f64));
        set("recovered", &JsValue::from_bool(self.recovered));
        detail.into()
    }
}

/// The options of one call.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// The caller's idempotency key: a second call with the same key, from this frame of this tab (across
    /// reloads), never runs the tool again while the first is kept (the last 256 settled calls, for a day;
    /// docs/once-only.md §1).
    pub call_id: Option<String>,
    /// Stop the call when it takes longer than this (ms). No limit by default.
    pub timeout_ms: Option<u32>,
}

impl CallOptions {
    /// These options with an idempotency key.
    pub fn call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// These options with a time limit.
    pub fn timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = Some(ms);
        self
    }
}
