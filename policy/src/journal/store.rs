//! Where journal entries are kept: a trait the bridge implements over `sessionStorage`, and a map in memory.

use crate::index_map::IndexMap;

use thiserror::Error;

/// Why a journal entry could not be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The storage quota is used up.
    #[error("the journal's storage is full: prune it or free space in sessionStorage")]
    Full,
    /// The storage refused the write for another reason (blocked storage, a private mode).
    #[error("the journal's storage is unavailable: {0}")]
    Unavailable(String),
}

/// A string-to-string storage area, such as `sessionStorage`, seen by one page.
///
/// The journals keep their state in memory and write every change through this trait before they return the
/// decision that depends on it, so that a page that replaces this one can read the change.
pub trait JournalStore {
    /// Every `(key, value)` pair whose key starts with `prefix`, in any order.
    fn entries(&self, prefix: &str) -> Vec<(String, String)>;
    /// Writes `value` under `key`, replacing what was there.
    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError>;
    /// Removes `key`; removing a missing key does nothing.
    fn remove(&mut self, key: &str);
    /// Whether what is written survives a reload of the page (true for `sessionStorage`, false in memory).
    fn is_durable(&self) -> bool;
    /// The value under exactly `key`, if any.
    fn get(&self, key: &str) -> Option<String> {
        self.entries(key).into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// A [`JournalStore`] in memory: the bridge's fallback when `sessionStorage` is unavailable, and the tests' store.
///
/// [`MemoryStore::new`] reports itself as not durable, as the bridge's fallback must. Tests that keep one store
/// across simulated reloads use [`MemoryStore::durable`]; [`MemoryStore::with_quota`] makes writes fail with
/// [`StoreError::Full`] past a size, as `sessionStorage` does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryStore {
    items: IndexMap<String, String>,
    durable: bool,
    quota: Option<usize>,
}

impl MemoryStore {
    /// An empty store that does not survive reloads (`is_durable()` is false).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that stands for `sessionStorage` (`is_durable()` is true).
    pub fn durable() -> Self {
        Self { durable: true, ..Self::default() }
    }

    /// Limits the store to `bytes` bytes of keys and values, after which `put` fails with [`StoreError::Full`].
    pub fn with_quota(mut self, bytes: usize) -> Self {
        self.quota = Some(bytes);
        self
    }

    /// The value under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.items.get(key).map(String::as_str)
    }

    /// How many keys the store holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the store holds no key.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Bytes of keys and values held.
    pub fn used_bytes(&self) -> usize {
        self.items.iter().map(|(k, v)| k.len() + v.len()).sum()
    }

    /// Every key, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.items.keys().map(String::as_str)
    }
}

impl JournalStore for MemoryStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        self.items
            .range_from(prefix)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        if let Some(quota) = self.quota {
            let replaced = self.items.get(key).map_or(0, |old| key.len() + old.len());
            if self.used_bytes() - replaced + key.len() + value.len() > quota {
                return Err(StoreError::Full);
            }
        }
        self.items.insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    fn remove(&mut self, key: &str) {
        self.items.remove(key);
    }

    fn is_durable(&self) -> bool {
        self.durable
    }
}
