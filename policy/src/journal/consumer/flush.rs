//! The consumer journal over a batched [`LogStore`], as the bridge runs it.

use super::ConsumerJournal;
use crate::journal::log_store::LogStore;
use crate::journal::store::{JournalStore, StoreError};

impl ConsumerJournal<LogStore> {
    /// Writes the entries changed since the last flush and flushes the log to `storage` (the store it was opened
    /// from), as one write (what the bridge does after a batch of changes, before a request to a plain peer
    /// leaves, and when the page goes away).
    ///
    /// When the storage refuses the write, the journal stops writing, as when a `put` fails (see the type's
    /// documentation): the error is returned, and reported once by [`Self::take_warnings`].
    pub fn flush(&mut self, now: u64, storage: &mut dyn JournalStore) -> Result<(), StoreError> {
        self.write_pending();
        let result = self.persist.store_mut().flush(now, storage);
        if let Err(error) = &result {
            self.storage_failed(error.clone());
        }
        result
    }
}
