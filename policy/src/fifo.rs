//! [`Fifo`]: the queue of effects of the session and of the tab claim.
//!
//! `VecDeque` is the obvious type, but each `VecDeque<T>` brings its own copy of the ring buffer's code (wrapping
//! copies, growth, slice ranges): 3.7 KB of the wasm for the two effect types (issue 24, measured 2026-12-03). This
//! queue is two `Vec`s: items pushed go on the back one, and the front one holds the older items, the next one
//! last, refilled by reversing the back one when it runs dry. Its code is `Vec`'s push, pop and reverse; each item
//! moves at most twice.

use std::fmt;

/// A first-in, first-out queue.
#[derive(Clone)]
pub(crate) struct Fifo<T> {
    /// The older items, the next one last.
    front: Vec<T>,
    /// The newer items, in the order pushed.
    back: Vec<T>,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Self { front: Vec::new(), back: Vec::new() }
    }
}

impl<T> Fifo<T> {
    /// Adds `item` at the back.
    pub fn push_back(&mut self, item: T) {
        self.back.push(item);
    }

    /// Adds `items` at the back, in order.
    pub fn extend(&mut self, items: impl IntoIterator<Item = T>) {
        self.back.extend(items);
    }

    /// Takes the oldest item.
    pub fn pop_front(&mut self) -> Option<T> {
        if self.front.is_empty() {
            std::mem::swap(&mut self.front, &mut self.back);
            self.front.reverse();
        }
        self.front.pop()
    }

    /// Takes out the oldest item that `matches`, leaving the others in their order.
    pub fn take_first(&mut self, matches: impl Fn(&T) -> bool) -> Option<T> {
        if let Some(at) = self.front.iter().rposition(&matches) {
            return Some(self.front.remove(at));
        }
        let at = self.back.iter().position(matches)?;
        Some(self.back.remove(at))
    }

    /// The items, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.front.iter().rev().chain(&self.back)
    }
}

impl<T: fmt::Debug> fmt::Debug for Fifo<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::collections::VecDeque;

    use super::*;
    use crate::test_rng::next;

    /// The same random pushes, pops and take-outs on a `VecDeque` and a `Fifo` give the same items in the same order.
    #[test]
    fn it_queues_as_a_vec_deque_does() {
        let mut state = 5u64;
        let mut theirs: VecDeque<u32> = VecDeque::new();
        let mut ours: Fifo<u32> = Fifo::default();
        for item in 0..5000u32 {
            match next(&mut state) % 6 {
                0 | 1 => {
                    theirs.push_back(item);
                    ours.push_back(item);
                }
                2 => {
                    theirs.extend([item, item + 1]);
                    ours.extend([item, item + 1]);
                }
                3 | 4 => assert_eq!(ours.pop_front(), theirs.pop_front()),
                _ => {
                    let divisor = (next(&mut state) % 7 + 2) as u32;
                    let theirs_taken = theirs.iter().position(|i| i % divisor == 0).and_then(|at| theirs.remove(at));
                    assert_eq!(ours.take_first(|i| i % divisor == 0), theirs_taken);
                }
            }
            assert!(ours.iter().eq(theirs.iter()));
        }
        assert_eq!(format!("{ours:?}"), format!("{:?}", theirs.iter().collect::<Vec<_>>()));
    }
}
