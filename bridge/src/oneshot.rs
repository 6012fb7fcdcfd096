//! A one-value channel for this single-threaded page: how a Rust future learns what the bridge decided.
//!
//! Hand-made rather than `futures-channel`'s `oneshot`: that crate is not among the wasm build's dependencies, and
//! its channel is made to cross threads (an `Arc`, atomics, a lock), which a page's one thread does not need; an
//! `Rc<RefCell<…>>` does the same here in a few dozen lines. The difference in wasm size is not measured here.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Shared<T> {
    value: Option<T>,
    waker: Option<Waker>,
    sender_gone: bool,
    receiver_gone: bool,
}

/// Sends the one value.
pub(crate) struct Sender<T>(Rc<RefCell<Shared<T>>>);

/// Receives the one value; `None` when the sender went away without sending.
pub(crate) struct Receiver<T>(Rc<RefCell<Shared<T>>>);

pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Rc::new(RefCell::new(Shared { value: None, waker: None, sender_gone: false, receiver_gone: false }));
    (Sender(shared.clone()), Receiver(shared))
}

impl<T> Sender<T> {
    pub fn send(self, value: T) {
        let waker = {
            let mut shared = self.0.borrow_mut();
            shared.value = Some(value);
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let Ok(mut shared) = self.0.try_borrow_mut() else { return };
            shared.sender_gone = true;
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Ok(mut shared) = self.0.try_borrow_mut() {
            shared.receiver_gone = true;
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut shared = self.0.borrow_mut();
        if let Some(value) = shared.value.take() {
            return Poll::Ready(Some(value));
        }
        if shared.sender_gone {
            return Poll::Ready(None);
        }
        shared.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
