//! The journals' storage: `sessionStorage` when the page may use it, memory otherwise, with writes batched by a
//! [`LogStore`] so that a burst of calls costs one `setItem`.

use interpane_policy::journal::{JournalStore, MemoryStore, StoreError};

/// Where a journal's log is written.
pub(crate) enum RawStore {
    Session(web_sys::Storage),
    Memory(MemoryStore),
}

impl RawStore {
    /// `sessionStorage`, or memory (with the reason) when the page cannot use it: blocked storage, a sandboxed
    /// document, some private modes.
    pub fn open(prefer_session: bool) -> (Self, Option<String>) {
        if !prefer_session {
            return (Self::Memory(MemoryStore::new()), None);
        }
        match session_storage() {
            Ok(storage) => (Self::Session(storage), None),
            Err(reason) => (Self::Memory(MemoryStore::new()), Some(reason)),
        }
    }

    pub fn get(&self, key: &str) -> Option<String> {
        match self {
            Self::Session(storage) => storage.get_item(key).ok().flatten(),
            Self::Memory(memory) => memory.get(key).map(str::to_owned),
        }
    }
}

fn session_storage() -> Result<web_sys::Storage, String> {
    let window = web_sys::window().ok_or("no window")?;
    let storage =
        window.session_storage().map_err(|e| crate::console::describe(&e))?.ok_or("sessionStorage is missing")?;
    // Some browsers hand out a storage object whose writes all fail (a private mode, a full quota): probe it.
    storage.set_item("webmcp:probe", "1").map_err(|e| crate::console::describe(&e))?;
    let _ = storage.remove_item("webmcp:probe");
    Ok(storage)
}

impl JournalStore for RawStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        match self {
            Self::Session(storage) => {
                let count = storage.length().unwrap_or(0);
                let keys: Vec<String> = (0..count)
                    .filter_map(|i| storage.key(i).ok().flatten())
                    .filter(|k| k.starts_with(prefix))
                    .collect();
                keys.into_iter().filter_map(|k| storage.get_item(&k).ok().flatten().map(|v| (k, v))).collect()
            }
            Self::Memory(memory) => memory.entries(prefix),
        }
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        match self {
            Self::Session(storage) => storage.set_item(key, value).map_err(|error| {
                let text = crate::console::describe(&error);
                if text.contains("QuotaExceeded") || text.contains("quota") {
                    StoreError::Full
                } else {
                    StoreError::Unavailable(text)
                }
            }),
            Self::Memory(memory) => memory.put(key, value),
        }
    }

    fn remove(&mut self, key: &str) {
        match self {
            Self::Session(storage) => {
                let _ = storage.remove_item(key);
            }
            Self::Memory(memory) => memory.remove(key),
        }
    }

    fn is_durable(&self) -> bool {
        matches!(self, Self::Session(_))
    }
}
