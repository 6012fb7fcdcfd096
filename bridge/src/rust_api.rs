//! The Rust API: the same powers as the JavaScript one, with futures and guards.

use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use crate::patterns::registered_checker;
use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{
    CallRefusal, CallRequest, CallTarget, Input, ListRequest, Registration, ToolSpec, WaiterId,
};
use interpane_policy::{ErrorKind, JsonText, OriginList, ToolError, ToolName, WindowOrigin};
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::driver::{Driver, Handler, Waiter, upgrade};
use crate::listeners::{Heard, ListenerGuard};
use crate::{
    BridgeError, BridgeOptions, CallError, CallOptions, ObservedCall, RemoteTool, ToolFuture, ToolResult, js, oneshot,
};

/// The page's bridge. Cloning it is cheap; every clone is the same bridge.
///
/// There is one bridge per page: `install` a second time returns the first (its options win).
#[derive(Clone)]
pub struct Bridge {
    driver: Rc<Driver>,
}

impl Bridge {
    /// Installs the bridge in this page (or returns the one already installed): it starts answering other
    /// windows and defines `document.modelContext` where the page has none or has the browser's native one (whose
    /// registry then gets every tool registered through the bridge too; see docs/native.md).
    pub fn install(options: BridgeOptions) -> Result<Self, BridgeError> {
        let driver = crate::install::install_core(options)?;
        #[cfg(feature = "js-api")]
        crate::js_api::attach(&driver);
        Ok(Self { driver })
    }

    /// The `document.modelContext`-shaped JavaScript object of this bridge (an `EventTarget` with
    /// `registerTool`, `getTools`, `executeTool`, and `toolchange` / `toolresult` events); `undefined` when the
    /// crate is built without its `js-api` feature.
    pub fn model_context(&self) -> JsValue {
        self.driver.context.borrow().clone()
    }

    /// Registers a tool. It is visible to this page's own origin and to `expose_tools_to` (or to the tool's
    /// own `exposed_to`), and unregistered when the returned guard drops. Fails with [`BridgeError::Busy`] when called
    /// from page code that the bridge runs while its state is in use (a built-in the page replaced).
    pub fn register_tool(&self, tool: ToolDefinition) -> Result<ToolRegistration, BridgeError> {
        let name = tool.name.clone();
        let (spec, handler) = tool.into_spec()?;
        let registration = self.driver.register(spec, handler, None)?;
        Ok(ToolRegistration { name: Some(name), registration, driver: Rc::downgrade(&self.driver) })
    }

    /// Lists the tools of this page and of the windows around it (its parent, the parent's frames, its own
    /// frames, its opener) whose origin is this page's own or allowed by `from_origins`.
    pub async fn get_tools(&self, from_origins: OriginList) -> Vec<RemoteTool> {
        let (sender, receiver) = oneshot::channel();
        let waiter = self.driver.add_waiter(Waiter::ListRust(sender));
        let windows = self.driver.windows_to_ask(&[]);
        let origin_hints =
            js::origin_hints().iter().filter_map(|h| h.as_string()).map(|h| WindowOrigin::from_browser(&h)).collect();
        let request = ListRequest { waiter, from_origins, windows, origin_hints, timeout_ms: None };
        // A listing sees the forms the page changed in this task (see forms::flush).
        crate::forms::flush();
        self.driver.input(Input::ListTools(request));
        receiver.await.unwrap_or_default()
    }

    /// Calls a tool. Dropping the returned future before it completes stops the call (the provider is told).
    /// Arguments the page's limits refuse (too large, too deep, not an object, a `__proto__` key) make the future
    /// resolve at once with [`CallError::Arguments`]: nothing is sent.
    pub fn execute_tool(&self, tool: &RemoteTool, args: Value, options: CallOptions) -> ToolCall {
        let driver = Rc::downgrade(&self.driver);
        let refused = |error: CallError| ToolCall {
            receiver: None,
            refused: Some(error),
            waiter: None,
            done: false,
            driver: driver.clone(),
        };
        let Ok(name) = ToolName::new(tool.name().to_owned()) else {
            return refused(CallError::Tool(ToolError::new(ErrorKind::UnknownTool, "the tool has an invalid name")));
        };
        let (sender, receiver) = oneshot::channel();
        let waiter = self.driver.add_waiter(Waiter::CallRust(sender));
        let CallOptions { call_id, timeout_ms } = options;
        // What the arguments may be is the session's to decide (refused with CallError::Arguments).
        let args = Some(args.to_string());
        let target = CallTarget::Listed(tool.peer);
        let request = CallRequest { waiter, target, tool: name, args, call_id, timeout_ms };
        self.driver.input(Input::Execute(request));
        ToolCall { receiver: Some(receiver), refused: None, waiter: Some(waiter), done: false, driver }
    }

    /// Calls `listener` for every call of this page that settles (the `toolresult` event).
    pub fn on_tool_result(&self, listener: impl Fn(&ToolResult) + 'static) -> ListenerGuard {
        ListenerGuard::new(
            self.driver.listeners.borrow_mut().add(Rc::new(move |heard: &Heard<'_>| {
                if let Heard::Result(result) = heard {
                    listener(result);
                }
            })),
            Rc::downgrade(&self.driver.listeners),
        )
    }

    /// Calls `listener` whenever another page of this origin (another tab, or another frame) says how one of its
    /// calls stands (the `toolstatus` event): running, then how it settled. Only statuses: never arguments or
    /// results; and observing never runs or resumes another page's call.
    pub fn on_tool_status(&self, listener: impl Fn(&ObservedCall) + 'static) -> ListenerGuard {
        ListenerGuard::new(
            self.driver.listeners.borrow_mut().add(Rc::new(move |heard: &Heard<'_>| {
                if let Heard::Status(call) = heard {
                    listener(call);
                }
            })),
            Rc::downgrade(&self.driver.listeners),
        )
    }

    /// Calls `listener` whenever the tools of this page or of a listed window change (the `toolchange` event).
    pub fn on_tool_change(&self, listener: impl Fn() + 'static) -> ListenerGuard {
        ListenerGuard::new(
            self.driver.listeners.borrow_mut().add(Rc::new(move |heard: &Heard<'_>| {
                if let Heard::Change = heard {
                    listener();
                }
            })),
            Rc::downgrade(&self.driver.listeners),
        )
    }
}

/// A call in progress. Resolves to the tool's result, or the error that keeps the provider's `status` and
/// `retryAfter`. Dropping it before it resolves stops the call.
#[must_use = "dropping a ToolCall stops the call"]
pub struct ToolCall {
    /// Where the session's outcome arrives, when the call reached it.
    receiver: Option<oneshot::Receiver<Result<CallOutcome, CallRefusal>>>,
    /// Why the call was refused before it reached the session.
    refused: Option<CallError>,
    /// The waiter the session settles, when the call reached it.
    waiter: Option<WaiterId>,
    done: bool,
    /// The bridge that took the call.
    driver: Weak<Driver>,
}

impl Future for ToolCall {
    type Output = Result<Value, CallError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(error) = self.refused.take() {
            self.done = true;
            return Poll::Ready(Err(error));
        }
        let Some(receiver) = self.receiver.as_mut() else {
            return Poll::Ready(Err(CallError::Invalid("the call was already polled to its end".into())));
        };
        let outcome = match Pin::new(receiver).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(outcome) => outcome,
        };
        self.done = true;
        Poll::Ready(match outcome {
            Some(Err(CallRefusal::Arguments(error))) => Err(CallError::Arguments(error)),
            Some(Err(CallRefusal::TimeLimit(error))) => Err(CallError::Invalid(error.to_string())),
            Some(Err(other)) => Err(CallError::Tool(ToolError::new(ErrorKind::UnknownTool, other.to_string()))),
            Some(Ok(CallOutcome::Completed { result })) => {
                result.to_value().map_err(|e| CallError::Invalid(e.to_string()))
            }
            Some(Ok(other)) => Err(CallError::Tool(
                other.error().unwrap_or_else(|| ToolError::new(ErrorKind::ToolError, "the call failed")),
            )),
            None => Err(CallError::Invalid("the bridge dropped the call".into())),
        })
    }
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        if !self.done
            && let Some(waiter) = self.waiter.take()
        {
            // Nobody will read the outcome: the call stops unless someone else waits for it too.
            upgrade(&self.driver, |driver| {
                // Dropped after the borrow (dropping a waiter may call into JavaScript).
                let removed = driver.handles.borrow_mut().waiters.remove(&waiter);
                drop(removed);
                driver.input(Input::Abandon(waiter));
            });
        }
    }
}

/// A tool defined in Rust.
pub struct ToolDefinition {
    name: String,
    description: String,
    input_schema: Option<Value>,
    annotations: Option<Value>,
    exposed_to: Option<OriginList>,
    validate_args: bool,
    handler: Rc<dyn Fn(Value, web_sys::AbortSignal) -> ToolFuture>,
}

impl ToolDefinition {
    /// A tool named `name` that runs `handler(args, signal)`; `signal` aborts when the caller stops the call.
    pub fn new<F, Fut>(name: impl Into<String>, description: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Value, web_sys::AbortSignal) -> Fut + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + 'static,
    {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema: None,
            annotations: None,
            exposed_to: None,
            validate_args: true,
            handler: Rc::new(move |args, signal| Box::pin(handler(args, signal))),
        }
    }

    /// The JSON Schema of the arguments; calls whose arguments do not match are refused before the tool runs.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// The tool's annotations.
    pub fn annotations(mut self, annotations: Value) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// The origins that may see this tool, instead of the page's `expose_tools_to`.
    pub fn exposed_to(mut self, origins: OriginList) -> Self {
        self.exposed_to = Some(origins);
        self
    }

    /// Whether arguments are checked against the schema (true by default).
    pub fn validate_args(mut self, validate: bool) -> Self {
        self.validate_args = validate;
        self
    }

    fn into_spec(self) -> Result<(ToolSpec, Handler), BridgeError> {
        let name = ToolName::new(self.name)?;
        let checker = match &self.input_schema {
            Some(schema) => registered_checker(name.as_str(), schema, self.validate_args)?,
            None => None,
        };
        let mut spec = ToolSpec::new(name, self.description);
        spec.input_schema = self.input_schema.as_ref().map(JsonText::from_value);
        spec.annotations = self.annotations.as_ref().map(JsonText::from_value);
        spec.checker = checker;
        spec.exposed_to = self.exposed_to;
        Ok((spec, Handler::Rust(self.handler)))
    }
}

/// Keeps a tool registered until dropped.
#[must_use = "the tool is unregistered when this guard is dropped"]
pub struct ToolRegistration {
    name: Option<String>,
    registration: Registration,
    /// The bridge it is registered with.
    driver: Weak<Driver>,
}

impl ToolRegistration {
    /// Keeps the tool registered for the life of the page.
    pub fn forget(mut self) {
        self.name = None;
    }
}

impl Drop for ToolRegistration {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let registration = self.registration;
            upgrade(&self.driver, |driver| {
                driver.unregister(&name, Some(registration));
            });
        }
    }
}
