//! Carrying out the session's effects in the browser.

use gloo_events::EventListener;
use interpane_policy::envelope::Message;
use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{
    CallRefusal, Effect, Finished, FormId, Input, ListedTool, PeerId, PortId, Registration, RunId, RunResult, ThrownAs,
    WindowId,
};
use interpane_policy::{ErrorKind, JsonText, RequestId, ToolError, ToolName, TupleOrigin};
use wasm_bindgen::{JsCast, JsValue};

use crate::driver::handles::{Handler, JsResult, PortHandle, ToolHandle, Waiter};
use crate::driver::{Driver, upgrade, windows_around};
use crate::listeners::Heard;
use crate::user::{outcome_to_js, page_value};
use crate::{RemoteTool, ToolResult, console, js};

impl Driver {
    pub(super) fn carry_out(&self, effect: Effect) {
        match effect {
            Effect::WriteJournals => self.write_journals(),
            Effect::Post { window, origin, message, open_port } => self.post(window, origin, &message, open_port),
            Effect::PostBatch { port, batch, utf8 } => {
                let port = self.handles.borrow().ports.get(&port).map(|handle| handle.port.clone());
                if let Some(port) = port {
                    // As bytes to a bridge that reads them: one native copy out of the wasm's memory here and one
                    // in on the other side, where a string costs a UTF-8 decode here and an encode there (about
                    // 150 µs for 64 KiB in Chromium 156: docs/measurements/history.md, issue 25).
                    let message: JsValue = if utf8 {
                        js_sys::Uint8Array::from(batch.as_bytes()).into()
                    } else {
                        JsValue::from_str(&batch)
                    };
                    let _ = port.post_message(&message);
                }
            }
            Effect::AcceptPort(port) => self.accept_port(port),
            Effect::ClosePort(port) => {
                let handle = self.handles.borrow_mut().ports.remove(&port);
                drop(handle);
            }
            Effect::PostAround { message, origins } => {
                let Ok(object) = js_sys::JSON::parse(&message.encode()) else { return };
                for (window, _) in windows_around() {
                    for origin in &origins {
                        let _ = js::post_to_window(&window, &object, origin.as_str(), &JsValue::UNDEFINED);
                    }
                }
            }
            Effect::RunTool { run, registration, args } => self.run_tool(run, registration, args),
            Effect::AbortRun(run) => {
                // A microtask later: a caller on this page that aborted its call sees its promise reject before the
                // tool's signal aborts (and `toolcancel` fires), as with native, whose abort reaches the tool later.
                let controller = self.handles.borrow_mut().runs.remove(&run);
                if let Some(controller) = controller {
                    wasm_bindgen_futures::spawn_local(async move { controller.abort() });
                }
            }
            Effect::CallNative { peer, wire_id, tool, args } => self.call_native(peer, wire_id, &tool, &args),
            Effect::AbortNative(wire_id) => {
                let controller = self.handles.borrow_mut().native_calls.remove(&wire_id);
                if let Some(controller) = controller {
                    controller.abort();
                }
            }
            Effect::Settle { waiter, outcome } => {
                let waiter = self.handles.borrow_mut().waiters.remove(&waiter);
                if let Some(waiter) = waiter {
                    settle(waiter, outcome);
                }
            }
            Effect::RefuseCall { waiter, error } => {
                let waiter = self.handles.borrow_mut().waiters.remove(&waiter);
                if let Some(waiter) = waiter {
                    refuse(waiter, error);
                }
            }
            Effect::Listed { waiter, tools } => {
                let waiter = self.handles.borrow_mut().waiters.remove(&waiter);
                if let Some(waiter) = waiter {
                    self.resolve_list(waiter, tools);
                }
            }
            Effect::ToolChange => self.fire_tool_change(),
            Effect::ToolResult(finished) => self.fire_tool_result(finished),
            Effect::ToolStatus(call) => {
                let context = self.context.borrow().clone();
                if !context.is_undefined() {
                    js::fire_tool_status(&context, &crate::observe::to_js_detail(&call));
                }
                self.tell_listeners(&Heard::Status(&call));
            }
            Effect::PostCalls(text) => js::post_calls(&text),
            Effect::WatchFrame(window) => self.watch_frame(window),
            Effect::ProbeWindows(windows) => {
                let mut closed = Vec::new();
                for id in windows {
                    let window = self.handles.borrow().window(id).cloned();
                    if window.as_ref().is_none_or(js::window_closed) {
                        closed.push(id);
                    }
                }
                self.input(Input::WindowsClosed(closed));
            }
            Effect::ToNative { registration, descriptor, exposed_to } => {
                let tool = self.handles.borrow().tools.get(&registration).map(|t| t.form.clone());
                if let Some(form) = tool {
                    let definition = form.map(|(_, definition)| definition);
                    crate::native::registry::register(registration, &descriptor, &exposed_to, definition.as_ref());
                }
            }
            Effect::UnregisterFromNative(registration) => crate::native::registry::unregister(registration),
            Effect::FormTool { form, registration } => self.form_tool(form, registration),
            Effect::Warn(text) => console::warn(&text),
            Effect::EndOfTask => self.queue_end_of_task(),
            Effect::Ready => js::mark_ready(&self.context.borrow()),
        }
    }

    /// A window message at exactly `origin`; with `open_port`, a new channel whose other end goes with it.
    fn post(&self, window: WindowId, origin: TupleOrigin, message: &Message, open_port: Option<PortId>) {
        let Some(target) = self.handles.borrow().window(window).cloned() else { return };
        let Ok(object) = js_sys::JSON::parse(&message.encode()) else { return };
        let mut transfer = JsValue::UNDEFINED;
        if let Some(id) = open_port {
            let Ok(channel) = web_sys::MessageChannel::new() else { return };
            let port = channel.port1();
            let listener = Some(super::events::listen_to_port(&self.me, &port, id));
            // A new id: nothing is replaced (and dropped) under the borrow.
            self.handles.borrow_mut().ports.insert(id, PortHandle { port, _listener: listener });
            transfer = js_sys::Array::of1(&channel.port2()).into();
        }
        if let Err(error) = js::post_to_window(&target, &object, origin.as_str(), &transfer) {
            self.input(Input::PostFailed { origin, error: console::describe(&error) });
        }
    }

    /// Starts listening on a port that came with a message and that the session accepted.
    fn accept_port(&self, id: PortId) {
        let Some(port) = self.handles.borrow().ports.get(&id).map(|handle| handle.port.clone()) else { return };
        let listener = super::events::listen_to_port(&self.me, &port, id);
        // A port is accepted once: no listener is replaced (and dropped) under the borrow.
        if let Some(handle) = self.handles.borrow_mut().ports.get_mut(&id) {
            handle._listener = Some(listener);
        }
    }

    /// A form's tool is now `registration` (or none): the form's earlier tool, if any, is dropped, and the new one
    /// runs the definition js/forms/watch.js last reported of the form (its `execute`, with it as `this`).
    fn form_tool(&self, form: FormId, registration: Option<Registration>) {
        {
            let mut handles = self.handles.borrow_mut();
            // A form has one tool at most (found and removed by key: no `retain` of the map, less code in the wasm).
            // Dropping a form's tool calls no JavaScript: it has no abort listener.
            let earlier = handles.tools.iter().find(|(_, tool)| tool.form.as_ref().is_some_and(|(of, _)| *of == form));
            if let Some(earlier) = earlier.map(|(registration, _)| *registration) {
                handles.tools.remove(&earlier);
            }
        }
        let Some(registration) = registration else { return };
        let Some(definition) = self.handles.borrow().forms.get(&form).cloned() else { return };
        let Ok(execute) = crate::options::get(&definition, "execute").dyn_into::<js_sys::Function>() else { return };
        let handler = Handler::Js { execute, this: definition.clone() };
        let tool = ToolHandle { handler, form: Some((form, definition)), _abort: None };
        // What it may replace is a form's tool too: dropping it under the borrow calls no JavaScript.
        self.handles.borrow_mut().tools.insert(registration, tool);
    }

    fn run_tool(&self, run: RunId, registration: Registration, args: JsonText) {
        let handler = self.handles.borrow().tools.get(&registration).map(|t| t.handler.clone());
        let Some(handler) = handler else {
            let error = ToolError::new(ErrorKind::UnknownTool, "the tool was unregistered before it could run");
            return self.input(Input::ToolSettled { run, result: RunResult::Threw(error) });
        };
        let Ok(controller) = web_sys::AbortController::new() else { return };
        let signal = controller.signal();
        self.handles.borrow_mut().runs.insert(run, controller);
        match handler {
            Handler::Js { execute, this } => js::run_tool(run.0, &execute, &this, args.as_str(), &signal),
            Handler::Rust(run_fn) => {
                let value = args.to_value().unwrap_or(serde_json::Value::Null);
                let future = run_fn(value, signal);
                let driver = self.me.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let result = match future.await {
                        Ok(value) => RunResult::Returned(JsonText::from_value(&value).into_string()),
                        Err(error) => RunResult::Threw(error),
                    };
                    upgrade(&driver, |driver| {
                        driver.handles.borrow_mut().runs.remove(&run);
                        driver.input(Input::ToolSettled { run, result });
                    });
                });
            }
        }
    }

    /// A call on native's path: native's `executeTool` with native's own tool object, its end back to the session.
    /// Native resolves with a string (a string result as it is, any other result's JSON text), kept as a JSON
    /// string so that the page gets exactly native's string.
    fn call_native(&self, peer: PeerId, wire_id: RequestId, tool: &ToolName, args: &JsonText) {
        let native_tool = self.handles.borrow().native_tools.get(&(peer, tool.to_string())).cloned();
        let Some(native_tool) = native_tool else {
            let error = ToolError::new(ErrorKind::UnknownTool, format!("{tool} is no longer listed by native WebMCP"));
            return self.input(Input::NativeSettled { wire_id, result: Err(error) });
        };
        let Ok(controller) = web_sys::AbortController::new() else { return };
        let signal = controller.signal();
        self.handles.borrow_mut().native_calls.insert(wire_id.clone(), controller);
        let call = crate::native::registry::call(&native_tool, &page_value(args.as_str()), Some(signal));
        let driver = self.me.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let settled = wasm_bindgen_futures::JsFuture::from(call).await;
            let Some(driver) = driver.upgrade() else { return };
            driver.handles.borrow_mut().native_calls.remove(&wire_id);
            let result = match settled {
                Ok(text) => {
                    let text = crate::text_in::string(&text).unwrap_or_default();
                    Ok(JsonText::from_value(&serde_json::Value::String(text)))
                }
                Err(error) => Err(super::events::native_error(&driver, &error)),
            };
            driver.input(Input::NativeSettled { wire_id, result });
        });
    }

    fn resolve_list(&self, waiter: Waiter, tools: Vec<ListedTool>) {
        let tools: Vec<RemoteTool> = tools.into_iter().map(RemoteTool::from_listed).collect();
        match waiter {
            Waiter::ListJs(resolve) => {
                let list = js_sys::Array::new();
                for tool in &tools {
                    let window = self.handles.borrow().window(tool.window()).cloned().unwrap_or(JsValue::NULL);
                    list.push(&tool.to_js(&window));
                }
                let _ = resolve.call1(&JsValue::UNDEFINED, &list);
            }
            Waiter::ListRust(sender) => sender.send(tools),
            other => settle(other, CallOutcome::Failed(ToolError::new(ErrorKind::Refused, "not a call"))),
        }
    }

    fn fire_tool_change(&self) {
        let context = self.context.borrow().clone();
        if !context.is_undefined() {
            js::fire_tool_change(&context);
        }
        self.tell_listeners(&Heard::Change);
    }

    fn fire_tool_result(&self, finished: Finished) {
        let result = ToolResult::from_finished(finished);
        let context = self.context.borrow().clone();
        if !context.is_undefined() {
            js::fire_tool_result(&context, &result.to_js_detail());
        }
        self.tell_listeners(&Heard::Result(&result));
    }

    /// Tells the Rust listeners, from a copy of their list (a listener may add or remove listeners).
    fn tell_listeners(&self, heard: &Heard<'_>) {
        let listeners = self.listeners.borrow().all();
        for (_, listener) in &listeners {
            listener(heard);
        }
    }

    /// Tells the session when the frame element of `window` loads another document.
    fn watch_frame(&self, window: WindowId) {
        let target = {
            let handles = self.handles.borrow();
            if handles.frames.contains_key(&window) {
                return;
            }
            handles.window(window).cloned()
        };
        let Some(target) = target else { return };
        let element = js::frame_element_of(&target);
        let Some(element) = element.dyn_ref::<web_sys::EventTarget>() else { return };
        let driver = self.me.clone();
        let listener = EventListener::new(element, "load", move |_| {
            upgrade(&driver, |driver| {
                let fired = driver.handles.borrow_mut().frames.remove(&window);
                driver.input(Input::FrameLoaded(window));
                drop(fired);
            })
        });
        let replaced = self.handles.borrow_mut().frames.insert(window, listener);
        drop(replaced);
    }
}

/// Settles a caller's promise or future. A caller whose own signal aborted the call gets the signal's reason.
fn settle(waiter: Waiter, outcome: CallOutcome) {
    match waiter {
        Waiter::CallJs { resolve, reject, signal, result, .. } => {
            if outcome == CallOutcome::Stopped
                && let Some(signal) = signal.filter(web_sys::AbortSignal::aborted)
            {
                let _ = reject.call1(&JsValue::UNDEFINED, &signal.reason());
                return;
            }
            let settled = match (&outcome, result) {
                (CallOutcome::Completed { result }, JsResult::Value) => Ok(page_value(result.as_str())),
                _ => outcome_to_js(&outcome),
            };
            let _ = match settled {
                Ok(value) => resolve.call1(&JsValue::UNDEFINED, &value),
                Err(error) => reject.call1(&JsValue::UNDEFINED, &error),
            };
        }
        Waiter::CallRust(sender) => sender.send(Ok(outcome)),
        Waiter::ListJs(resolve) => {
            let _ = resolve.call1(&JsValue::UNDEFINED, &js_sys::Array::new());
        }
        Waiter::ListRust(sender) => sender.send(Vec::new()),
    }
}

/// Refuses a call the session refused before it started: for a JavaScript caller, the error the session names
/// ([`CallRefusal::thrown_as`]); the refusal itself for a Rust one.
fn refuse(waiter: Waiter, error: CallRefusal) {
    match waiter {
        Waiter::CallJs { reject, .. } => {
            let error: JsValue = match error.thrown_as() {
                ThrownAs::UnknownError => {
                    crate::user::make_dom_exception(&format!("executeTool: {error}"), "UnknownError", "")
                }
                ThrownAs::TypeErrorOfToolObject => {
                    js_sys::TypeError::new(&format!("executeTool(tool, args): {error}")).into()
                }
                ThrownAs::TypeError => js_sys::TypeError::new(&format!("executeTool: {error}")).into(),
            };
            let _ = reject.call1(&JsValue::UNDEFINED, &error);
        }
        Waiter::CallRust(sender) => sender.send(Err(error)),
        Waiter::ListJs(resolve) => {
            let _ = resolve.call1(&JsValue::UNDEFINED, &js_sys::Array::new());
        }
        Waiter::ListRust(sender) => sender.send(Vec::new()),
    }
}
