//! Rust listeners for `toolresult`, `toolstatus` and `toolchange`, removed when their guard drops.

use std::rc::Rc;

use std::cell::RefCell;
use std::rc::Weak;

use crate::{ObservedCall, ToolResult};

type ResultListener = Rc<dyn Fn(&ToolResult)>;
type StatusListener = Rc<dyn Fn(&ObservedCall)>;
type ChangeListener = Rc<dyn Fn()>;

#[derive(Default)]
pub(crate) struct Listeners {
    next: u64,
    tool_result: Vec<(u64, ResultListener)>,
    tool_status: Vec<(u64, StatusListener)>,
    tool_change: Vec<(u64, ChangeListener)>,
}

impl Listeners {
    pub fn add_tool_result(&mut self, listener: ResultListener) -> u64 {
        self.next += 1;
        self.tool_result.push((self.next, listener));
        self.next
    }

    pub fn add_tool_status(&mut self, listener: StatusListener) -> u64 {
        self.next += 1;
        self.tool_status.push((self.next, listener));
        self.next
    }

    pub fn add_tool_change(&mut self, listener: ChangeListener) -> u64 {
        self.next += 1;
        self.tool_change.push((self.next, listener));
        self.next
    }

    pub fn remove(&mut self, id: u64) {
        self.tool_result.retain(|(i, _)| *i != id);
        self.tool_status.retain(|(i, _)| *i != id);
        self.tool_change.retain(|(i, _)| *i != id);
    }

    pub fn tool_result(&self) -> Vec<ResultListener> {
        self.tool_result.iter().map(|(_, l)| l.clone()).collect()
    }

    pub fn tool_status(&self) -> Vec<StatusListener> {
        self.tool_status.iter().map(|(_, l)| l.clone()).collect()
    }

    pub fn tool_change(&self) -> Vec<ChangeListener> {
        self.tool_change.iter().map(|(_, l)| l.clone()).collect()
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
            listeners.borrow_mut().remove(id);
        }
    }
}
