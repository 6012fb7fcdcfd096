//! Expose WebMCP tools to other windows and call theirs, over `postMessage`, safely.
#![deny(missing_docs)]

use gloo_events::EventListener;
use wasm_bindgen::JsCast;

/// Listens for `message` events on a window until dropped.
#[must_use = "the listener stops when this guard is dropped"]
pub struct MessageListener {
    _guard: EventListener,
}

impl MessageListener {
    /// Calls `on_message` with the data of every `message` event the window receives.
    pub fn new(window: &web_sys::Window, mut on_message: impl FnMut(wasm_bindgen::JsValue) + 'static) -> Self {
        let guard = EventListener::new(window, "message", move |event| {
            if let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() {
                on_message(event.data());
            }
        });
        Self { _guard: guard }
    }
}
