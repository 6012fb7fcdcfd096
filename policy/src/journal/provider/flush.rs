//! The provider journal over a batched [`LogStore`], as the bridge runs it: a flush that finds the storage full
//! costs held results (they read as expired), never the records that keep a call from running twice
//! (docs/once-only.md §7).

use super::ProviderJournal;
use crate::journal::entry::ProviderMeta;
use crate::journal::log_store::LogStore;
use crate::journal::store::{JournalStore, StoreError};
use crate::journal::warning::JournalWarning;

impl ProviderJournal<LogStore> {
    /// Writes the pending changes and flushes the log to `storage`, the store it was opened from (what the bridge
    /// does after a batch of changes, and when the page goes away).
    ///
    /// When the storage is full, the journal makes room and writes the log again as one snapshot: first every
    /// held result is dropped (each reads as expired from then on: it ran, and will not run again), then the
    /// records inherited from another tab (noting the horizon). Only when its own records of ids that ran do not
    /// fit either does it stop writing: it then leaves the note alone in the storage (later pages answer
    /// `durable: false` for a day) and lives in memory; if not even the note fits, new calls are refused until a
    /// later flush can write it. The error is returned when the journal stopped writing, and reported once by
    /// [`Self::take_warnings`].
    pub fn flush(&mut self, now: u64, storage: &mut dyn JournalStore) -> Result<(), StoreError> {
        self.write_pending();
        if self.persist.store().has_failed() {
            // An earlier flush failed and not even the note could be written: try again.
            if self.is_unnoted() {
                self.leave_note_alone(now, storage);
            }
            return Ok(());
        }
        let error = match self.persist.store_mut().flush(now, storage) {
            Ok(()) => return Ok(()),
            Err(error) => error,
        };
        if error == StoreError::Full && self.persist.is_writing() {
            if self.expire_every_result(now) && self.rewrite(now, storage) {
                return Ok(());
            }
            if !self.orphans.is_empty() {
                self.drop_orphans(now);
                if self.rewrite(now, storage) {
                    return Ok(());
                }
            }
        }
        let was_writing = self.persist.is_writing();
        self.horizon = self.horizon.max(Some(now));
        self.persist.stop();
        self.noted = false;
        let noted = self.leave_note_alone(now, storage);
        if was_writing {
            self.warnings.push(JournalWarning::StorageLost { error: error.clone(), noted });
        }
        Err(error)
    }

    /// Writes the pending changes and the whole log as a snapshot; whether it fit.
    fn rewrite(&mut self, now: u64, storage: &mut dyn JournalStore) -> bool {
        self.write_pending();
        self.persist.store_mut().rewrite(now, storage).is_ok()
    }

    /// Makes the log hold only the note of the horizon (this page's records removed from it): the least that
    /// still tells a later page that records up to the horizon may be missing. True when it was written; the
    /// journal then runs calls in memory (noting each), otherwise it refuses them.
    fn leave_note_alone(&mut self, now: u64, storage: &mut dyn JournalStore) -> bool {
        let own: Vec<String> = self.records.values().map(|entry| entry.key()).collect();
        for key in own {
            self.persist.store_mut().remove(&key);
        }
        let horizon = self.horizon.map_or(now, |h| h.max(now));
        self.horizon = Some(horizon);
        let meta = ProviderMeta { owner: self.owner.clone(), horizon };
        // A put to a log waits for the rewrite below, and cannot fail.
        let _ = self.persist.store_mut().put(&meta.key(), &meta.encode());
        let written = self.persist.store_mut().rewrite(now, storage).is_ok();
        if written {
            self.noted = true;
        }
        written
    }
}
