//! The one persistence layer under both journals: the store, whether it still takes writes, and which records
//! changed since they were last written.
//!
//! A journal changes a record in memory and calls [`Persist::note`]. Over a store that writes each change
//! (`MemoryStore`, the tests' store) the journal then writes the record at once; over a batched store (the
//! bridge's `LogStore`, after [`Persist::batch`]) the record waits for [`Persist::take_changed`], which the
//! journal calls before each flush, so that each changed record is encoded once, in its latest state. Either way
//! the store holds what immediate writes would have left there.

use crate::index_map::{IndexKey, IndexMap};

use super::store::JournalStore;

/// The store of one journal and the records it has yet to write (see the module docs).
#[derive(Debug)]
pub(crate) struct Persist<S, K: IndexKey> {
    store: S,
    /// False once storage was lost: the journal lives in memory and writes nothing more.
    writing: bool,
    /// Whether changes wait for [`Persist::take_changed`] instead of being written at once.
    batched: bool,
    /// Records changed since they were last written, with the time of their last change.
    changed: IndexMap<K, u64>,
}

impl<S: JournalStore, K: IndexKey> Persist<S, K> {
    /// Writes to `store`, each change at once until [`Persist::batch`].
    pub(crate) fn new(store: S) -> Self {
        Self { store, writing: true, batched: false, changed: IndexMap::new() }
    }

    /// From now on, changes wait for [`Persist::take_changed`].
    pub(crate) fn batch(&mut self) {
        self.batched = true;
    }

    /// Whether the store still takes writes.
    pub(crate) fn is_writing(&self) -> bool {
        self.writing
    }

    /// Whether what is written survives a reload: the store is durable and still takes writes.
    pub(crate) fn is_durable(&self) -> bool {
        self.writing && self.store.is_durable()
    }

    /// Record `key` changed at `now`. True when the journal must write it now; false when it waits for
    /// [`Persist::take_changed`], or storage was lost.
    #[must_use = "write the record when this returns true"]
    pub(crate) fn note(&mut self, key: &K, now: u64) -> bool {
        if !self.writing {
            return false;
        }
        if self.batched {
            self.changed.insert(key.clone(), now);
            return false;
        }
        true
    }

    /// Record `key` is gone from memory: its stored value `store_key` goes too, and it waits for no write.
    pub(crate) fn remove(&mut self, key: &K, store_key: &str) {
        self.changed.remove(key);
        if self.writing {
            self.store.remove(store_key);
        }
    }

    /// The records changed since the last call, each once, with the time of its last change (none once storage
    /// was lost). The journal writes each that it still holds.
    pub(crate) fn take_changed(&mut self) -> Vec<(K, u64)> {
        let changed = self.changed.drain();
        if !self.writing {
            return Vec::new();
        }
        changed
    }

    /// Storage was lost: nothing more is written, nothing waits.
    pub(crate) fn stop(&mut self) {
        self.writing = false;
        self.changed.clear();
    }

    /// The store.
    pub(crate) fn store(&self) -> &S {
        &self.store
    }

    /// The store, to write to it.
    pub(crate) fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The store, given back.
    pub(crate) fn into_store(self) -> S {
        self.store
    }
}
