//! A [`JournalStore`] that batches writes: changes are kept in memory and written to the underlying store as
//! one log segment per [`LogStore::flush`], with periodic snapshots.
//!
//! `sessionStorage.setItem` costs tens of microseconds per call and more per kilobyte, so a journal that wrote
//! each change as its own key would cost more than the tool call it protects. A `LogStore` turns any number of
//! changes into one `setItem` per flush. The bridge flushes before a provider starts a tool (so a reload can never
//! forget that it ran), shortly after any other change, and when the page is hidden or goes away.
//!
//! ```
//! use webmcp_policy::journal::{JournalStore, MemoryStore};
//! use webmcp_policy::log_store::LogStore;
//!
//! let mut log = LogStore::open(MemoryStore::durable(), "webmcp:log:tab1/top:", 0);
//! log.put("webmcp:c:a", "one")?;
//! log.put("webmcp:c:b", "two")?;
//! log.remove("webmcp:c:a");
//! log.flush(10)?; // one write to the underlying store
//!
//! let reopened = LogStore::open(log.into_inner(), "webmcp:log:tab1/top:", 20);
//! assert_eq!(reopened.entries("webmcp:c:"), vec![("webmcp:c:b".to_string(), "two".to_string())]);
//! # Ok::<(), webmcp_policy::journal::StoreError>(())
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::journal::{JournalStore, StoreError};

/// How many segments may follow a snapshot before the next flush writes a new snapshot instead.
const SEGMENTS_BEFORE_SNAPSHOT: usize = 16;

/// Segments of any log older than this are deleted when a log is opened (ms): the logs of pages that are gone.
pub const ABANDONED_LOG_AGE_MS: u64 = 24 * 60 * 60 * 1000;

#[derive(Serialize, Deserialize)]
struct Segment {
    /// Format version.
    v: u32,
    /// Position in the log.
    seq: u64,
    /// When it was written (ms since the epoch).
    at: u64,
    /// A snapshot holds every live key; earlier segments no longer matter.
    #[serde(default)]
    snap: bool,
    #[serde(default)]
    set: BTreeMap<String, String>,
    #[serde(default)]
    del: Vec<String>,
}

/// What [`LogStore::open`] found that it could not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscardedSegment {
    /// The storage key of the segment.
    pub key: String,
    /// Why it was discarded.
    pub reason: String,
}

/// A write-batching [`JournalStore`] over another store (see the module docs).
#[derive(Debug)]
pub struct LogStore<S> {
    inner: S,
    prefix: String,
    live: BTreeMap<String, String>,
    dirty: BTreeMap<String, Option<String>>,
    /// Keys of the segments written since (and including) the last snapshot, in order.
    segments: Vec<String>,
    next_seq: u64,
    failed: bool,
    discarded: Vec<DiscardedSegment>,
}

impl<S: JournalStore> LogStore<S> {
    /// Reads the log whose segment keys start with `prefix` (one log per page slot, such as
    /// `webmcp:log:<tab>/<slot>:`) from `inner`. Unreadable segments are discarded and reported by
    /// [`LogStore::take_discarded`]; segments of any log under `webmcp:log:` older than [`ABANDONED_LOG_AGE_MS`]
    /// are deleted.
    pub fn open(mut inner: S, prefix: &str, now: u64) -> Self {
        let mut discarded = Vec::new();
        let mut readable = Vec::new();
        for (key, text) in inner.entries("webmcp:log:") {
            match serde_json::from_str::<Segment>(&text) {
                Ok(segment) if segment.v == 1 => {
                    if now.saturating_sub(segment.at) > ABANDONED_LOG_AGE_MS && !key.starts_with(prefix) {
                        inner.remove(&key);
                    } else if key.starts_with(prefix) {
                        readable.push((key, segment));
                    }
                }
                Ok(segment) => {
                    discarded
                        .push(DiscardedSegment { key: key.clone(), reason: format!("format version {}", segment.v) });
                    inner.remove(&key);
                }
                Err(error) => {
                    discarded.push(DiscardedSegment { key: key.clone(), reason: error.to_string() });
                    inner.remove(&key);
                }
            }
        }
        readable.sort_by_key(|(_, segment)| segment.seq);
        let start = readable.iter().rposition(|(_, segment)| segment.snap).unwrap_or(0);
        for (key, _) in readable.drain(..start) {
            inner.remove(&key);
        }
        let mut live = BTreeMap::new();
        let mut segments = Vec::new();
        let mut next_seq = 0;
        for (key, segment) in readable {
            if segment.snap {
                live.clear();
            }
            for gone in segment.del {
                live.remove(&gone);
            }
            live.extend(segment.set);
            next_seq = segment.seq + 1;
            segments.push(key);
        }
        Self {
            inner,
            prefix: prefix.to_owned(),
            live,
            dirty: BTreeMap::new(),
            segments,
            next_seq,
            failed: false,
            discarded,
        }
    }

    /// Whether changes wait for [`LogStore::flush`].
    pub fn is_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Writes every change since the last flush as one segment of the log (or, every so often, a snapshot that
    /// replaces the segments before it). When the underlying store refuses the write, a snapshot is tried (it
    /// may be smaller than the log); if that fails too, the store stays in memory from then on
    /// (`is_durable()` becomes false) and the error is returned.
    pub fn flush(&mut self, now: u64) -> Result<(), StoreError> {
        if self.dirty.is_empty() || self.failed {
            self.dirty.clear();
            return Ok(());
        }
        let result = if self.segments.len() >= SEGMENTS_BEFORE_SNAPSHOT {
            self.write_snapshot(now)
        } else {
            self.write_segment(now).or_else(|_| self.write_snapshot(now))
        };
        self.dirty.clear();
        if result.is_err() {
            self.failed = true;
        }
        result
    }

    fn write_segment(&mut self, now: u64) -> Result<(), StoreError> {
        let mut segment =
            Segment { v: 1, seq: self.next_seq, at: now, snap: false, set: BTreeMap::new(), del: Vec::new() };
        for (key, value) in &self.dirty {
            match value {
                Some(value) => {
                    segment.set.insert(key.clone(), value.clone());
                }
                None => segment.del.push(key.clone()),
            }
        }
        let key = format!("{}{}", self.prefix, self.next_seq);
        self.inner.put(&key, &encode(&segment))?;
        self.next_seq += 1;
        self.segments.push(key);
        Ok(())
    }

    fn write_snapshot(&mut self, now: u64) -> Result<(), StoreError> {
        let segment =
            Segment { v: 1, seq: self.next_seq, at: now, snap: true, set: self.live.clone(), del: Vec::new() };
        let key = format!("{}{}", self.prefix, self.next_seq);
        // Free the old segments first when the store is full: the snapshot holds all they said.
        let written = self.inner.put(&key, &encode(&segment)).or_else(|error| {
            for old in &self.segments {
                self.inner.remove(old);
            }
            self.segments.clear();
            self.inner.put(&key, &encode(&segment)).map_err(|_| error)
        });
        written?;
        for old in self.segments.drain(..) {
            self.inner.remove(&old);
        }
        self.next_seq += 1;
        self.segments.push(key);
        Ok(())
    }

    /// What [`LogStore::open`] could not read (and removed), for a console warning. Empties the list.
    pub fn take_discarded(&mut self) -> Vec<DiscardedSegment> {
        std::mem::take(&mut self.discarded)
    }

    /// The underlying store.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

fn encode(segment: &Segment) -> String {
    // A Segment holds only strings, numbers and maps of strings: serializing it cannot fail.
    serde_json::to_string(segment).unwrap_or_default()
}

impl<S: JournalStore> JournalStore for LogStore<S> {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        self.live
            .range(prefix.to_owned()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.live.insert(key.to_owned(), value.to_owned());
        self.dirty.insert(key.to_owned(), Some(value.to_owned()));
        Ok(())
    }

    fn remove(&mut self, key: &str) {
        if self.live.remove(key).is_some() {
            self.dirty.insert(key.to_owned(), None);
        }
    }

    fn is_durable(&self) -> bool {
        !self.failed && self.inner.is_durable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::MemoryStore;

    const PREFIX: &str = "webmcp:log:t/top:";

    fn reopen(log: LogStore<MemoryStore>, now: u64) -> LogStore<MemoryStore> {
        LogStore::open(log.into_inner(), PREFIX, now)
    }

    #[test]
    fn many_changes_make_one_write() {
        let mut log = LogStore::open(MemoryStore::durable(), PREFIX, 0);
        for i in 0..100 {
            log.put(&format!("k{i}"), "v").unwrap();
        }
        log.flush(1).unwrap();
        assert_eq!(log.inner.len(), 1);
        let log = reopen(log, 2);
        assert_eq!(log.entries("k").len(), 100);
    }

    #[test]
    fn unflushed_changes_are_lost_on_reopen() {
        let mut log = LogStore::open(MemoryStore::durable(), PREFIX, 0);
        log.put("a", "1").unwrap();
        log.flush(1).unwrap();
        log.put("b", "2").unwrap();
        let log = reopen(log, 2);
        assert_eq!(log.entries(""), vec![("a".into(), "1".into())]);
    }

    #[test]
    fn removals_and_overwrites_replay_in_order() {
        let mut log = LogStore::open(MemoryStore::durable(), PREFIX, 0);
        log.put("a", "1").unwrap();
        log.flush(1).unwrap();
        log.put("a", "2").unwrap();
        log.put("b", "x").unwrap();
        log.flush(2).unwrap();
        log.remove("b");
        log.flush(3).unwrap();
        let log = reopen(log, 4);
        assert_eq!(log.entries(""), vec![("a".into(), "2".into())]);
    }

    #[test]
    fn snapshots_bound_the_number_of_segments() {
        let mut log = LogStore::open(MemoryStore::durable(), PREFIX, 0);
        for i in 0..100u64 {
            log.put("counter", &i.to_string()).unwrap();
            log.flush(i).unwrap();
            assert!(log.inner.len() <= SEGMENTS_BEFORE_SNAPSHOT + 1, "{} segments", log.inner.len());
        }
        let log = reopen(log, 200);
        assert_eq!(log.entries(""), vec![("counter".into(), "99".into())]);
    }

    #[test]
    fn a_full_store_gets_a_snapshot_then_falls_back_to_memory() {
        let mut log = LogStore::open(MemoryStore::durable().with_quota(400), PREFIX, 0);
        log.put("a", &"x".repeat(100)).unwrap();
        log.flush(1).unwrap();
        log.put("a", &"y".repeat(100)).unwrap();
        log.flush(2).unwrap(); // the log would exceed the quota; a snapshot replaces it
        assert!(log.is_durable());
        log.put("b", &"z".repeat(500)).unwrap();
        assert_eq!(log.flush(3), Err(StoreError::Full));
        assert!(!log.is_durable());
        assert_eq!(log.entries("b").len(), 1, "the state in memory is kept");
    }

    #[test]
    fn corrupt_segments_are_discarded_and_reported() {
        let mut raw = MemoryStore::durable();
        raw.put(&format!("{PREFIX}0"), "{not json").unwrap();
        raw.put(&format!("{PREFIX}1"), r#"{"v":9,"seq":1,"at":0}"#).unwrap();
        let mut log = LogStore::open(raw, PREFIX, 0);
        let discarded = log.take_discarded();
        assert_eq!(discarded.len(), 2);
        assert_eq!(discarded[1].reason, "format version 9");
        assert!(log.entries("").is_empty());
        assert!(log.into_inner().is_empty(), "discarded segments are removed");
    }

    #[test]
    fn other_logs_are_invisible_and_abandoned_ones_expire() {
        let mut raw = MemoryStore::durable();
        let mut other = LogStore::open(raw.clone(), "webmcp:log:t/top/1:", 0);
        other.put("theirs", "1").unwrap();
        other.flush(0).unwrap();
        raw = other.into_inner();
        let log = LogStore::open(raw.clone(), PREFIX, 1000);
        assert!(log.entries("").is_empty());
        assert_eq!(log.into_inner().len(), 1, "a live sibling's log is kept");
        let log = LogStore::open(raw, PREFIX, ABANDONED_LOG_AGE_MS + 1);
        assert!(log.into_inner().is_empty(), "an abandoned log is deleted");
    }
}
