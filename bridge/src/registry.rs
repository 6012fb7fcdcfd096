//! The tools this page registered, and which of them an origin may see.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use serde_json::Value;
use webmcp_policy::envelope::ToolDescriptor;
use webmcp_policy::{ArgSchema, JsonText, OriginList, ToolError, ToolName, tool_visible_to};

/// What a Rust tool returns: its result as JSON, or an error that keeps its status and retryAfter.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, ToolError>>>>;

/// How a tool runs.
#[derive(Clone)]
pub(crate) enum Handler {
    /// A JavaScript `execute(args, { signal })` and the tool object it belongs to (its `this`).
    Js { execute: js_sys::Function, this: wasm_bindgen::JsValue },
    /// A Rust function.
    Rust(Rc<dyn Fn(Value, web_sys::AbortSignal) -> ToolFuture>),
}

/// A registered tool.
pub(crate) struct LocalTool {
    pub name: ToolName,
    pub description: String,
    /// As sent to other windows.
    pub input_schema: Option<JsonText>,
    pub annotations: Option<JsonText>,
    /// Checks arguments before the tool runs; `None` when the tool has no schema or opted out (`validateArgs:
    /// false`).
    pub checker: Option<ArgSchema>,
    /// The tool's own `exposedTo`; without one the page's `expose-tools-to` applies.
    pub exposed_to: Option<OriginList>,
    pub handler: Handler,
    /// Tells this registration apart from a later one of the same name, so that an old guard cannot remove it.
    pub registration: u64,
}

impl LocalTool {
    pub fn descriptor(&self, own_origin: &str) -> ToolDescriptor {
        ToolDescriptor {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            origin: Some(own_origin.to_owned()),
            annotations: self.annotations.clone(),
        }
    }
}

/// The page's tools in registration order.
#[derive(Default)]
pub(crate) struct Registry {
    tools: Vec<LocalTool>,
    next_registration: u64,
}

impl Registry {
    /// Adds a tool; a second tool of the same name is refused.
    pub fn add(&mut self, mut tool: LocalTool) -> Result<u64, crate::BridgeError> {
        if self.tools.iter().any(|t| t.name == tool.name) {
            return Err(crate::BridgeError::DuplicateTool(tool.name.to_string()));
        }
        self.next_registration += 1;
        tool.registration = self.next_registration;
        self.tools.push(tool);
        Ok(self.next_registration)
    }

    /// Removes the tool `name`; with `registration`, only that registration of it. Whether one was removed.
    pub fn remove(&mut self, name: &str, registration: Option<u64>) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.name.as_str() != name || registration.is_some_and(|r| r != t.registration));
        self.tools.len() != before
    }

    /// The tool `name`, when `caller` may see it.
    pub fn visible(&self, name: &str, caller: &str, own_origin: &str, page_list: &OriginList) -> Option<&LocalTool> {
        self.tools
            .iter()
            .find(|t| t.name.as_str() == name)
            .filter(|t| tool_visible_to(caller, own_origin, t.exposed_to.as_ref(), page_list))
    }

    /// Every tool `caller` may see.
    pub fn visible_to<'a>(
        &'a self,
        caller: &'a str,
        own_origin: &'a str,
        page_list: &'a OriginList,
    ) -> impl Iterator<Item = &'a LocalTool> + 'a {
        self.tools.iter().filter(move |t| tool_visible_to(caller, own_origin, t.exposed_to.as_ref(), page_list))
    }

    /// Whether `caller` may see at least one tool.
    pub fn any_visible(&self, caller: &str, own_origin: &str, page_list: &OriginList) -> bool {
        self.visible_to(caller, own_origin, page_list).next().is_some()
    }

    pub fn all(&self) -> &[LocalTool] {
        &self.tools
    }
}
