//! The browser objects the driver holds for the session, under the ids the session knows them by: windows, ports,
//! the page's callers, tool runs, the page's tools, and the definitions of its declarative forms.

use gloo_events::EventListener;
use interpane_policy::RequestId;
use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{
    FormId, Locator, PeerId, PortId, Registration, RunId, WaiterId, WindowFacts, WindowId,
};
use interpane_policy::sorted_map::SortedMap;
use wasm_bindgen::JsValue;

use crate::RemoteTool;
use crate::oneshot;
pub(crate) use crate::tool_types::Handler;

/// One of the page's tools, as the driver runs it.
pub(crate) struct ToolHandle {
    pub handler: Handler,
    /// For a declarative form's tool: the form, and the definition js/forms/watch.js reported of it when the session
    /// made it this tool (`Effect::FormTool`; native registration takes the form's `toolname` off while it
    /// registers, see native/registry.rs).
    pub form: Option<(FormId, JsValue)>,
    /// Unregisters the tool when the signal it was registered with aborts.
    pub _abort: Option<EventListener>,
}

/// Someone in the page waiting for an answer.
pub(crate) enum Waiter {
    /// A JavaScript caller's promise: `executeTool`'s, or the one native WebMCP waits for when it calls one of the
    /// page's tools (`result` says which form a result takes).
    CallJs {
        resolve: js_sys::Function,
        reject: js_sys::Function,
        signal: Option<web_sys::AbortSignal>,
        result: JsResult,
        _abort: Option<EventListener>,
    },
    /// A Rust caller's future: the call's outcome, or why its arguments were refused.
    CallRust(oneshot::Sender<Result<CallOutcome, interpane_policy::session::CallRefusal>>),
    ListJs(js_sys::Function),
    ListRust(oneshot::Sender<Vec<RemoteTool>>),
}

/// The form in which a JavaScript caller's promise gets a completed call's result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsResult {
    /// A string, as `executeTool` gives it (docs/native.md): a string result as it is, any other its JSON text.
    Text,
    /// The value, for native WebMCP, which writes its caller's JSON text from it.
    Value,
}

/// A private port and its listener.
pub(crate) struct PortHandle {
    pub port: web_sys::MessagePort,
    pub _listener: Option<EventListener>,
}

impl Drop for PortHandle {
    fn drop(&mut self) {
        self.port.close();
    }
}

#[derive(Default)]
pub(crate) struct Handles {
    windows: Vec<(WindowId, JsValue)>,
    next_window: u32,
    pub ports: SortedMap<PortId, PortHandle>,
    pub waiters: SortedMap<WaiterId, Waiter>,
    next_waiter: u64,
    pub runs: SortedMap<RunId, web_sys::AbortController>,
    pub tools: SortedMap<Registration, ToolHandle>,
    /// The definition js/forms/watch.js last reported of each form of the page (its `execute`, and `this` for it),
    /// by form, for as long as the form is in the page: the session says which registration runs which form.
    pub forms: SortedMap<FormId, JsValue>,
    /// Load listeners of the frame elements of windows that calls wait on.
    pub frames: SortedMap<WindowId, EventListener>,
    /// Native's tool objects of the tools `getTools` listed on native's path, by native peer and name.
    pub native_tools: SortedMap<(PeerId, String), JsValue>,
    /// The signals of calls on native's path, by the call's id.
    pub native_calls: SortedMap<RequestId, web_sys::AbortController>,
}

impl Handles {
    pub fn new(own_window: JsValue) -> Self {
        Self { windows: vec![(WindowId::SELF, own_window)], next_window: 1, ..Self::default() }
    }

    /// The id of `window`, if the driver named it. Compared with `===` (wasm-bindgen's own glue), which runs no
    /// page code, unlike a built-in such as `Object.is` that the page may have replaced.
    pub fn known(&self, window: &JsValue) -> Option<WindowId> {
        self.windows.iter().find(|(_, w)| w == window).map(|(id, _)| *id)
    }

    /// Names a window new to the driver.
    pub fn add_window(&mut self, window: &JsValue) -> WindowId {
        let id = WindowId(self.next_window);
        self.next_window += 1;
        self.windows.push((id, window.clone()));
        id
    }

    pub fn window(&self, id: WindowId) -> Option<&JsValue> {
        self.windows.iter().find(|(w, _)| *w == id).map(|(_, window)| window)
    }

    pub fn new_waiter(&mut self, waiter: Waiter) -> WaiterId {
        self.next_waiter += 1;
        let id = WaiterId(self.next_waiter);
        self.waiters.insert(id, waiter);
        id
    }

    /// Reserves a waiter id, for a waiter whose handle needs the id (an abort listener).
    pub fn reserve_waiter(&mut self) -> WaiterId {
        self.next_waiter += 1;
        WaiterId(self.next_waiter)
    }
}

/// What the session should learn about a window new to the driver.
pub(crate) fn facts(window: &JsValue) -> WindowFacts {
    let locator = locate(window).map_or(Locator::Unknown, |l| Locator::parse(&l));
    WindowFacts { locator, ancestor: crate::js::is_ancestor(window) }
}

/// Where `window` sits around this page (see `candidateWindows` in js/windows.js), if it is one of those windows.
fn locate(window: &JsValue) -> Option<String> {
    crate::js::candidate_windows().iter().find_map(|candidate| {
        let found = js_sys::Reflect::get(&candidate, &JsValue::from_str("window")).ok()?;
        if found != *window {
            return None;
        }
        js_sys::Reflect::get(&candidate, &JsValue::from_str("locator")).ok()?.as_string()
    })
}

/// The windows around this page, each with where it sits.
pub(crate) fn windows_around() -> Vec<(JsValue, Locator)> {
    crate::js::candidate_windows()
        .iter()
        .filter_map(|candidate| {
            let window = js_sys::Reflect::get(&candidate, &JsValue::from_str("window")).ok()?;
            let locator = js_sys::Reflect::get(&candidate, &JsValue::from_str("locator")).ok()?.as_string()?;
            Some((window, Locator::parse(&locator)))
        })
        .collect()
}
