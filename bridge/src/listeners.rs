//! Rust listeners for `toolresult`, `toolstatus` and `toolchange`, removed when their guard drops.

use std::rc::Rc;

use std::cell::RefCell;
use std::rc::Weak;

use crate::{ObservedCall, ToolResult};

/// What a Rust listener hears.
pub(crate) enum Heard<'a> {
    Result(&'a ToolResult),
    Status(&'a ObservedCall),
    Change,
}

/// A Rust listener: each hears every event and keeps those of its kind (one type of listener, less code in the
/// wasm than one per event).
pub(crate) type Listener = Rc<dyn Fn(&Heard<'_>)>;

#[derive(Default)]
pub(crate) struct Listeners {
    next: u64,
    all: Vec<(u64, Listener)>,
}

impl Listeners {
    pub fn add(&mut self, listener: Listener) -> u64 {
        self.next += 1;
        self.all.push((self.next, listener));
        self.next
    }

    /// Removes listener `id` and returns it, to be dropped once the listeners are no longer borrowed: what its
    /// closure owns may call the bridge when it drops (a tool's registration, which fires `toolchange`).
    pub fn remove(&mut self, id: u64) -> Option<Listener> {
        let index = self.all.iter().position(|(i, _)| *i == id)?;
        Some(self.all.remove(index).1)
    }

    /// The listeners, a copy: each is called after the borrow ends (a listener may add or remove listeners).
    pub fn all(&self) -> Vec<(u64, Listener)> {
        self.all.clone()
    }
}

/// Keeps a `Bridge::on_tool_result`, `on_tool_status` or `on_tool_change` listener registered until dropped.
#[must_use = "the listener is removed when this guard is dropped"]
pub struct ListenerGuard {
    id: Option<u64>,
    listeners: Weak<RefCell<Listeners>>,
}

impl ListenerGuard {
    pub(crate) fn new(id: u64, listeners: Weak<RefCell<Listeners>>) -> Self {
        Self { id: Some(id), listeners }
    }

    /// Keeps the listener for the life of the page.
    pub fn forget(mut self) {
        self.id = None;
    }
}

impl Drop for ListenerGuard {
    fn drop(&mut self) {
        if let (Some(id), Some(listeners)) = (self.id, self.listeners.upgrade()) {
            let removed = listeners.borrow_mut().remove(id);
            drop(removed);
        }
    }
}
