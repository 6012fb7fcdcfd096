//! Results held until their caller acknowledges them, bounded in bytes per caller origin (docs/once-only.md §8):
//! one origin that never acknowledges cannot fill the storage that every caller's records share.

use super::{Key, ProviderJournal};
use crate::journal::entry::RecordState;
use crate::journal::store::JournalStore;

impl<S: JournalStore> ProviderJournal<S> {
    /// Drops the oldest held results of each caller origin that holds more than `held_result_bytes_per_origin_max`
    /// (they read as expired: the call ran, its result is gone), until it holds no more. Other origins keep theirs.
    pub(super) fn hold_within_budget(&mut self, now: u64) {
        let budget = self.config.held_result_bytes_per_origin_max;
        let over: Vec<String> = self
            .held_per_origin
            .iter()
            .filter(|(_, bytes)| **bytes > budget)
            .map(|(origin, _)| origin.clone())
            .collect();
        for origin in over {
            let oldest_first: Vec<Key> =
                self.done_order.iter().filter(|(_, key)| key.0 == origin).map(|(_, key)| key.clone()).collect();
            for key in oldest_first {
                if self.held_per_origin.get(&origin).is_none_or(|bytes| *bytes <= budget) {
                    break;
                }
                self.change(&key, RecordState::Expired, now);
            }
        }
    }

    /// Drops every held result, of every origin (they read as expired); whether there was one.
    pub(super) fn expire_every_result(&mut self, now: u64) -> bool {
        let held: Vec<Key> = self.done_order.iter().map(|(_, key)| key.clone()).collect();
        for key in &held {
            self.change(key, RecordState::Expired, now);
        }
        !held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use crate::byte_scan::escaped_len;
    use crate::journal::outcome::ToolOutcome;
    use crate::outcome::{ErrorKind, ToolError};

    #[test]
    fn held_bytes_count_the_stored_text() {
        let json = |text: &str| crate::JsonText::parse(text, &crate::Limits::default()).unwrap();
        let cases: [(ToolOutcome, usize); 3] = [
            (ToolOutcome::Completed { result: json("\"abc\"") }, 7),
            (ToolOutcome::Completed { result: json("\"é\\n\"") }, 9),
            (ToolOutcome::Failed(ToolError::new(ErrorKind::ToolError, "boom")), 4),
        ];
        for (outcome, bytes) in cases {
            assert_eq!(outcome.stored_bytes(), bytes, "{outcome:?}");
        }
        // A raw control character (which no JSON text holds, but an error message may) takes six.
        assert_eq!(escaped_len("[\"\u{1}\"]"), 12);
    }
}
