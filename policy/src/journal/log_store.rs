//! A [`JournalStore`] that batches writes: changes are kept in memory and written to the underlying store as
//! one log segment per [`LogStore::flush`], compacted as the log grows. The log does not own the underlying
//! store: it reads it once when it opens and is handed it for each flush, so that the session that holds the
//! log does no I/O of its own (the driver calls `Session::write_journals` with the page's `sessionStorage`).
//!
//! `sessionStorage.setItem` costs tens of microseconds per call and more per kilobyte, so a journal that wrote
//! each change as its own key would cost more than the tool call it protects. A `LogStore` turns any number of
//! changes into one `setItem` per flush. The bridge flushes shortly after any change, and whenever the page is
//! hidden, frozen or goes away.
//!
//! The log is a snapshot followed by segments. Compaction keeps its cost proportional to what changed, however
//! much is live: when there are [`MAX_SEGMENTS`] segments, the segments written since the last merge are merged
//! into one (the keys they changed, with their values now), so that each change is written about twice; when
//! half the segments are merges, all of them are merged into one (the keys changed since the snapshot); when the
//! changes since the snapshot, or the segments as stored (with the values they hold that are dead by now, such as
//! a large result removed when its caller acknowledged it), outweigh the live data, a new snapshot replaces the
//! log, so that the log stays within about twice the live data. A merge reads the values from the live data, so
//! the log keeps no second copy of what changed, only the keys.
//!
//! A change only marks its key: a flush writes each marked key once, with its latest value (or its removal).
//!
//! ```
//! use interpane_policy::journal::{JournalStore, MemoryStore};
//! use interpane_policy::log_store::LogStore;
//!
//! let mut storage = MemoryStore::durable();
//! let mut log = LogStore::open(&mut storage, "webmcp:log:tab1/top:", 0);
//! log.put("webmcp:c:a", "one")?;
//! log.put("webmcp:c:b", "two")?;
//! log.remove("webmcp:c:a");
//! log.flush(10, &mut storage)?; // one write to the underlying store
//! assert_eq!(storage.len(), 1);
//!
//! let reopened = LogStore::open(&mut storage, "webmcp:log:tab1/top:", 20);
//! assert_eq!(reopened.entries("webmcp:c:"), vec![("webmcp:c:b".to_string(), "two".to_string())]);
//! # Ok::<(), interpane_policy::journal::StoreError>(())
//! ```

use crate::envelope::encode::Object;
use crate::index_map::{IndexMap, IndexSet};
use crate::journal::entry::read::Fields;
use crate::journal::store::{JournalStore, StoreError};

/// The most segments after a snapshot; then they are merged into one.
pub const MAX_SEGMENTS: usize = 32;

/// Changes since the snapshot that may exceed the live data before a new snapshot replaces the log, in bytes.
const SLACK_BYTES: usize = 16 * 1024;

/// Segments of any log older than this are deleted when a log is opened (ms): the logs of pages that are gone.
pub const ABANDONED_LOG_AGE_MS: u64 = 24 * 60 * 60 * 1000;

/// One segment of the log, stored as `{"v":1,"seq":…,"at":…,"snap":…,"set":{…},"del":[…]}`, every member written
/// in this order (see [`encode`]).
struct Segment {
    /// Format version.
    v: u64,
    /// Position in the log.
    seq: u64,
    /// When it was written (ms since the epoch).
    at: u64,
    /// A snapshot holds every live key; earlier segments no longer matter.
    snap: bool,
    set: IndexMap<String, String>,
    del: Vec<String>,
}

impl Segment {
    fn new(v: u64, seq: u64, at: u64, snap: bool) -> Self {
        Self { v, seq, at, snap, set: IndexMap::new(), del: Vec::new() }
    }

    /// Reads a stored segment. `snap`, `set` and `del` may be absent; other members are ignored; a key given twice
    /// in `set` keeps its last value.
    fn decode(text: &str) -> Result<Self, String> {
        if !text.trim_start().starts_with('{') {
            return Err("not a JSON object".to_owned());
        }
        let mut fields = Fields::parse(text).map_err(|e| format!("not JSON: {e}"))?;
        let mut segment = Self::new(fields.u64("v"), fields.u64("seq"), fields.u64("at"), false);
        segment.snap = fields.bool("snap", Some(false));
        for (key, value) in fields.strings_by_key("set") {
            segment.set.insert(key, value);
        }
        segment.del = fields.strings("del");
        fields.done().map_err(|e| e.to_string())?;
        Ok(segment)
    }
}

/// What [`LogStore::open`] found that it could not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscardedSegment {
    /// The storage key of the segment.
    pub key: String,
    /// Why it was discarded.
    pub reason: String,
}

/// A write-batching [`JournalStore`] over another store, which it is handed to flush (see the module docs).
#[derive(Debug)]
pub struct LogStore {
    /// Whether the underlying store survives a reload (`sessionStorage` does, the memory fallback does not).
    durable: bool,
    prefix: String,
    live: IndexMap<String, String>,
    /// Keys changed since the last flush, which writes each in its state at that time (taken from `live`). A key
    /// changed twice is listed twice (the flush's map keeps one): a push costs less than keeping a set in order
    /// on every change, thousands of times in a burst of calls.
    dirty: Vec<String>,
    /// The keys changed since the snapshot (what one segment after the snapshot would hold: each with its value
    /// in `live`, or its removal), each with the bytes it adds to `changed_bytes` and the `merges` count when it
    /// last changed (the keys changed since the last merge are those of the current count).
    since_snapshot: IndexMap<String, (usize, u64)>,
    /// Merges and snapshots written so far.
    merges: u64,
    /// Key of the snapshot, if there is one.
    snapshot: Option<String>,
    /// Keys of the segments after the snapshot, in order: first the merged ones, then one per flush; each with the
    /// bytes of its text.
    segments: Vec<(String, usize)>,
    /// How many of `segments` are merges.
    merged: usize,
    next_seq: u64,
    /// Bytes of the keys and values in `live`.
    live_bytes: usize,
    /// Bytes of the keys and values in `since_snapshot`.
    changed_bytes: usize,
    /// Bytes of the segments after the snapshot as stored: what the log holds besides the snapshot, dead values
    /// included (a large result written, then removed when its caller acknowledged it, stays in its segment until a
    /// merge or a snapshot replaces it; `changed_bytes` counts it no more).
    segment_bytes: usize,
    failed: bool,
    discarded: Vec<DiscardedSegment>,
}

impl LogStore {
    /// Reads the log whose segment keys start with `prefix` (one log per page slot, such as
    /// `webmcp:log:<tab>/<slot>:`) from `inner`. Unreadable segments are discarded and reported by
    /// [`LogStore::take_discarded`]; segments of any log under `webmcp:log:` older than [`ABANDONED_LOG_AGE_MS`]
    /// are deleted. Later flushes must be handed the same store.
    pub fn open(inner: &mut dyn JournalStore, prefix: &str, now: u64) -> Self {
        let mut discarded = Vec::new();
        let mut readable = Vec::new();
        for (key, text) in inner.entries("webmcp:log:") {
            match Segment::decode(&text) {
                Ok(segment) if segment.v == 1 => {
                    if now.saturating_sub(segment.at) > ABANDONED_LOG_AGE_MS && !key.starts_with(prefix) {
                        inner.remove(&key);
                    } else if key.starts_with(prefix) {
                        // In log order (an ordered insert: a log has a few segments; a sort's code would be one
                        // more copy per element type in the download).
                        let at = readable
                            .partition_point(|(_, earlier, _): &(String, Segment, usize)| earlier.seq <= segment.seq);
                        readable.insert(at, (key, segment, text.len()));
                    }
                }
                Ok(segment) => {
                    discarded
                        .push(DiscardedSegment { key: key.clone(), reason: format!("format version {}", segment.v) });
                    inner.remove(&key);
                }
                Err(reason) => {
                    discarded.push(DiscardedSegment { key: key.clone(), reason });
                    inner.remove(&key);
                }
            }
        }
        let start = readable.iter().rposition(|(_, segment, _)| segment.snap).unwrap_or(0);
        for (key, _, _) in readable.drain(..start) {
            inner.remove(&key);
        }
        let mut log = Self {
            durable: inner.is_durable(),
            prefix: prefix.to_owned(),
            live: IndexMap::new(),
            dirty: Vec::new(),
            since_snapshot: IndexMap::new(),
            merges: 0,
            snapshot: None,
            segments: Vec::new(),
            merged: 0,
            next_seq: 0,
            live_bytes: 0,
            changed_bytes: 0,
            segment_bytes: 0,
            failed: false,
            discarded,
        };
        for (key, mut segment, bytes) in readable {
            log.next_seq = segment.seq + 1;
            if segment.snap {
                log.live = segment.set;
                log.snapshot = Some(key);
                continue;
            }
            for gone in segment.del {
                log.live.remove(&gone);
                log.note_change(&gone);
            }
            for (key, value) in segment.set.drain() {
                log.live.insert(key.clone(), value);
                log.note_change(&key);
            }
            log.segments.push((key, bytes));
            log.segment_bytes += bytes;
        }
        log.live_bytes = log.live.iter().map(|(k, v)| k.len() + v.len()).sum();
        log
    }

    /// Notes that `key` changed to its value in `live` (or was removed): counted in `changed_bytes` with its size
    /// now, replacing what it counted for before.
    fn note_change(&mut self, key: &str) {
        let bytes = key.len() + self.live.get(key).map_or(0, String::len);
        self.changed_bytes += bytes;
        if let Some((old, _)) = self.since_snapshot.insert(key.to_owned(), (bytes, self.merges)) {
            self.changed_bytes -= old;
        }
    }

    /// Whether changes wait for [`LogStore::flush`].
    pub fn is_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Writes every change since the last flush as one write to the underlying store: a segment, the merge of
    /// the segments after the snapshot, or a new snapshot (see the module docs). When the underlying store
    /// refuses the write, a snapshot is tried (it may be smaller than the log); if that fails too, the store
    /// stays in memory from then on (`is_durable()` becomes false) and the error is returned. `inner` is the
    /// store the log was opened from.
    pub fn flush(&mut self, now: u64, inner: &mut dyn JournalStore) -> Result<(), StoreError> {
        if self.dirty.is_empty() || self.failed {
            self.dirty.clear();
            return Ok(());
        }
        // Each changed key once, in key order.
        let mut changes = IndexSet::new();
        for key in std::mem::take(&mut self.dirty) {
            changes.insert(key);
        }
        for key in changes.iter() {
            self.note_change(key);
        }
        // A merge writes the changes since the last merge (or since the snapshot), a snapshot writes the live data:
        // when the changes since the snapshot have grown to half the live data, a snapshot costs about as much as a
        // merge of them all and resets the changes.
        // The segments as stored count, dead values included (a large result written, then removed): when they
        // outweigh the live data, a snapshot replaces the log, which so stays within about twice the live data.
        let merge_due = self.segments.len() >= MAX_SEGMENTS;
        let result = if self.changed_bytes > self.live_bytes + SLACK_BYTES
            || self.segment_bytes > self.live_bytes + SLACK_BYTES
            || (merge_due && 2 * self.changed_bytes > self.live_bytes)
        {
            self.write_snapshot(now, inner)
        } else if merge_due {
            self.write_merged(now, inner).or_else(|_| self.write_snapshot(now, inner))
        } else {
            self.write_segment(now, changes.iter(), inner).or_else(|_| self.write_snapshot(now, inner))
        };
        if result.is_err() {
            self.failed = true;
        }
        result
    }

    /// Whether a flush failed, so that the store lives in memory (see [`LogStore::flush`]), until
    /// [`LogStore::rewrite`] succeeds.
    pub fn has_failed(&self) -> bool {
        self.failed
    }

    /// Writes the live data as a new snapshot that replaces the log, whether or not a flush failed before: how a
    /// journal that made room (after [`StoreError::Full`]) tries again. On success the store is durable again and
    /// nothing waits for a flush; on failure it lives in memory, and the underlying store may hold none of this
    /// log (the old log is freed to make room for the snapshot).
    pub fn rewrite(&mut self, now: u64, inner: &mut dyn JournalStore) -> Result<(), StoreError> {
        self.dirty.clear();
        let result = self.write_snapshot(now, inner);
        self.failed = result.is_err();
        result
    }

    fn next_key(&mut self) -> (u64, String) {
        let seq = self.next_seq;
        self.next_seq += 1;
        (seq, format!("{}{}", self.prefix, seq))
    }

    /// The changes of this flush as one more segment.
    fn write_segment<'k>(
        &mut self,
        now: u64,
        changes: impl Iterator<Item = &'k String>,
        inner: &mut dyn JournalStore,
    ) -> Result<(), StoreError> {
        let (seq, key) = self.next_key();
        let text = encode_changes(seq, now, changes, &self.live);
        inner.put(&key, &text)?;
        self.segments.push((key, text.len()));
        self.segment_bytes += text.len();
        Ok(())
    }

    /// The segments written since the last merge as one segment that replaces them; or, when half the segments
    /// are merges already, every change since the snapshot as one segment that replaces all of them.
    fn write_merged(&mut self, now: u64, inner: &mut dyn JournalStore) -> Result<(), StoreError> {
        let (seq, key) = self.next_key();
        let all = self.merged >= MAX_SEGMENTS / 2;
        let since = if all { 0 } else { self.merges };
        let changes = self.since_snapshot.iter().filter(|(_, (_, merges))| *merges >= since).map(|(key, _)| key);
        let text = encode_changes(seq, now, changes, &self.live);
        inner.put(&key, &text)?;
        let first_replaced = if all { 0 } else { self.merged };
        for (old, bytes) in self.segments.drain(first_replaced..) {
            inner.remove(&old);
            self.segment_bytes -= bytes;
        }
        self.segments.push((key, text.len()));
        self.segment_bytes += text.len();
        self.merged = self.segments.len();
        self.merges += 1;
        Ok(())
    }

    fn write_snapshot(&mut self, now: u64, inner: &mut dyn JournalStore) -> Result<(), StoreError> {
        let (seq, key) = self.next_key();
        let live: Vec<(&str, &str)> = self.live.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let text = encode_parts(seq, now, true, &live, &[]);
        let old: Vec<String> = self.snapshot.iter().chain(self.segments.iter().map(|(key, _)| key)).cloned().collect();
        // Free the old log first when the store is full: the snapshot holds all it said.
        inner.put(&key, &text).or_else(|error| {
            for key in &old {
                inner.remove(key);
            }
            inner.put(&key, &text).map_err(|_| error)
        })?;
        for key in &old {
            inner.remove(key);
        }
        self.snapshot = Some(key);
        self.segments.clear();
        self.merged = 0;
        self.merges += 1;
        self.since_snapshot.clear();
        self.changed_bytes = 0;
        self.segment_bytes = 0;
        Ok(())
    }

    /// What [`LogStore::open`] could not read (and removed), for a console warning. Empties the list.
    pub fn take_discarded(&mut self) -> Vec<DiscardedSegment> {
        std::mem::take(&mut self.discarded)
    }
}

/// A segment of format version 1 that sets each of `keys` to its value in `live` and removes those `live` does not
/// hold (`keys` in key order).
fn encode_changes<'k>(
    seq: u64,
    at: u64,
    keys: impl Iterator<Item = &'k String>,
    live: &IndexMap<String, String>,
) -> String {
    let (mut set, mut del) = (Vec::new(), Vec::new());
    for key in keys {
        match live.get(key) {
            Some(value) => set.push((key.as_str(), value.as_str())),
            None => del.push(key.as_str()),
        }
    }
    encode_parts(seq, at, false, &set, &del)
}

/// The stored form of a segment of format version 1: compact JSON, every member written in the order of
/// [`Segment`]'s fields, `set` as given (in key order).
fn encode_parts(seq: u64, at: u64, snap: bool, set: &[(&str, &str)], del: &[&str]) -> String {
    let bytes: usize =
        set.iter().map(|(k, v)| k.len() + v.len() + 6).sum::<usize>() + del.iter().map(|k| k.len() + 3).sum::<usize>();
    let mut out = String::with_capacity(80 + bytes);
    let mut object = Object::open(&mut out);
    object.number("v", 1).number("seq", seq).number("at", at).bool("snap", snap);
    let mut members = Object::open(object.key("set"));
    for (key, value) in set {
        members.string_key(key, value);
    }
    members.close();
    object.strings("del", del.iter().copied());
    object.close();
    out
}

impl JournalStore for LogStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        self.live
            .range_from(prefix)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.live_bytes += key.len() + value.len();
        if let Some(old) = self.live.insert(key.to_owned(), value.to_owned()) {
            self.live_bytes -= key.len() + old.len();
        }
        self.dirty.push(key.to_owned());
        Ok(())
    }

    fn remove(&mut self, key: &str) {
        if let Some(old) = self.live.remove(key) {
            self.live_bytes -= key.len() + old.len();
            self.dirty.push(key.to_owned());
        }
    }

    fn is_durable(&self) -> bool {
        !self.failed && self.durable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::MemoryStore;

    const PREFIX: &str = "webmcp:log:t/top:";

    /// The stored form of `segment` (which must be of format version 1).
    fn encode(segment: &Segment) -> String {
        assert_eq!(segment.v, 1);
        let set: Vec<(&str, &str)> = segment.set.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let del: Vec<&str> = segment.del.iter().map(String::as_str).collect();
        encode_parts(segment.seq, segment.at, segment.snap, &set, &del)
    }

    impl Segment {
        fn of_changes(seq: u64, at: u64, changes: &IndexMap<String, Option<String>>) -> Self {
            let mut segment = Self::new(1, seq, at, false);
            for (key, value) in changes {
                match value {
                    Some(value) => {
                        segment.set.insert(key.clone(), value.clone());
                    }
                    None => segment.del.push(key.clone()),
                }
            }
            segment
        }
    }

    #[test]
    fn segments_are_written_as_before() {
        // The stored form of a segment as the serde derive wrote it before segments were encoded by hand (issue
        // 24): logs written by an earlier version must read back.
        let mut changes = IndexMap::new();
        changes.insert("webmcp:c:b".to_owned(), Some("{\"v\":1,\"k\":\"\\\"é\\n\"}".to_owned()));
        changes.insert("webmcp:c:a \"q\"\t\u{1}\u{7f}😀".to_owned(), Some(String::new()));
        changes.insert("webmcp:c:gone".to_owned(), None);
        changes.insert("webmcp:c:gone \\".to_owned(), None);
        let mut snapshot = Segment::new(1, 7, 1_700_000_000_000, true);
        snapshot.set.insert("k".to_owned(), "v".to_owned());
        let cases = [
            (Segment::new(1, 0, 0, false), r#"{"v":1,"seq":0,"at":0,"snap":false,"set":{},"del":[]}"#.to_owned()),
            (snapshot, r#"{"v":1,"seq":7,"at":1700000000000,"snap":true,"set":{"k":"v"},"del":[]}"#.to_owned()),
            (
                Segment::of_changes(u64::MAX, 3, &changes),
                r#"{"v":1,"seq":18446744073709551615,"at":3,"snap":false,"set":{"webmcp:c:a \"q\"\t\u0001<DEL>😀":"","webmcp:c:b":"{\"v\":1,\"k\":\"\\\"é\\n\"}"},"del":["webmcp:c:gone","webmcp:c:gone \\"]}"#
                    .replace("<DEL>", "\u{7f}"),
            ),
        ];
        for (segment, text) in cases {
            assert_eq!(encode(&segment), text);
            assert_eq!(Segment::decode(&text).map(|read| encode(&read)), Ok(text));
        }
    }

    #[test]
    fn segments_are_read_as_before() {
        // Absent `snap`, `set` and `del` read as empty; unknown members are ignored; a key given twice in `set` keeps
        // its last value.
        let read = Segment::decode(r#"{"v":1,"seq":2,"at":3,"future":[1],"set":{"b":"1","a":"\u00e9","b":"2"}}"#);
        assert_eq!(
            read.map(|segment| encode(&segment)),
            Ok(r#"{"v":1,"seq":2,"at":3,"snap":false,"set":{"a":"é","b":"2"},"del":[]}"#.to_owned())
        );
        for (text, reason) in [
            ("[]", "not a JSON object"),
            ("{not json", "not JSON: expected a string key at byte 1, found 'n'"),
            (r#"{"v":1,"seq":2}"#, "missing field `at`"),
            (r#"{"v":1,"seq":2,"at":3,"at":3}"#, "repeated field `at`"),
            (r#"{"v":1,"seq":-2,"at":3}"#, "field `seq` is not a whole number from 0 to 2^64-1 (found -2)"),
            (r#"{"v":1,"seq":2,"at":3,"snap":null}"#, "field `snap` is not true or false (found null)"),
            (r#"{"v":1,"seq":2,"at":3,"set":{"a":1}}"#, "field `set.a` is not a string (found 1)"),
            (r#"{"v":1,"seq":2,"at":3,"del":"a"}"#, "field `del` is not an array of strings (found a string)"),
            (r#"{"v":1,"seq":2,"at":3,"del":["a",null]}"#, "field `del[1]` is not a string (found null)"),
        ] {
            assert_eq!(Segment::decode(text).err().as_deref(), Some(reason), "{text}");
        }
    }

    #[test]
    fn many_changes_make_one_write() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        for i in 0..100 {
            log.put(&format!("k{i}"), "v").unwrap();
        }
        log.flush(1, &mut raw).unwrap();
        assert_eq!(raw.len(), 1);
        let log = LogStore::open(&mut raw, PREFIX, 2);
        assert_eq!(log.entries("k").len(), 100);
    }

    #[test]
    fn unflushed_changes_are_lost_on_reopen() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        log.put("a", "1").unwrap();
        log.flush(1, &mut raw).unwrap();
        log.put("b", "2").unwrap();
        let log = LogStore::open(&mut raw, PREFIX, 2);
        assert_eq!(log.entries(""), vec![("a".into(), "1".into())]);
    }

    #[test]
    fn nothing_reaches_the_store_before_a_flush() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        log.put("a", "1").unwrap();
        log.remove("a");
        log.put("b", "2").unwrap();
        assert!(raw.is_empty(), "the log wrote outside a flush: {:?}", raw.keys().collect::<Vec<_>>());
        log.flush(1, &mut raw).unwrap();
        assert_eq!(raw.len(), 1);
    }

    #[test]
    fn removals_and_overwrites_replay_in_order() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        log.put("a", "1").unwrap();
        log.flush(1, &mut raw).unwrap();
        log.put("a", "2").unwrap();
        log.put("b", "x").unwrap();
        log.flush(2, &mut raw).unwrap();
        log.remove("b");
        log.flush(3, &mut raw).unwrap();
        let log = LogStore::open(&mut raw, PREFIX, 4);
        assert_eq!(log.entries(""), vec![("a".into(), "2".into())]);
    }

    #[test]
    fn snapshots_bound_the_number_of_segments() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        for i in 0..300u64 {
            log.put("counter", &i.to_string()).unwrap();
            log.flush(i, &mut raw).unwrap();
            assert!(raw.len() <= MAX_SEGMENTS + 1, "{} segments", raw.len());
        }
        let log = LogStore::open(&mut raw, PREFIX, 400);
        assert_eq!(log.entries(""), vec![("counter".into(), "299".into())]);
    }

    #[test]
    fn compaction_writes_in_proportion_to_changes_not_to_live_data() {
        // Regression: a snapshot every 16 flushes rewrote every kept record, so with a large journal each call
        // cost kilobytes of writes (seen in the benchmark's profile of the provider frame).
        let mut raw = Counting { inner: MemoryStore::durable(), written: 0 };
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        for i in 0..2000 {
            log.put(&format!("kept{i}"), &"r".repeat(100)).unwrap();
        }
        log.flush(0, &mut raw).unwrap();
        let live = log.live_bytes;
        raw.written = 0;
        for i in 0..1000u64 {
            log.put("hot", &i.to_string()).unwrap();
            log.flush(i + 1, &mut raw).unwrap();
        }
        // At most one snapshot of the live data, plus small segments and merges (it was 16 snapshots before).
        assert!(raw.written < 2 * live, "1000 small flushes wrote {} bytes; the live data is {live}", raw.written);
        assert!(raw.inner.len() <= MAX_SEGMENTS + 2, "{} keys", raw.inner.len());
        let log = LogStore::open(&mut raw.inner, PREFIX, 2000);
        assert_eq!(log.entries("hot"), vec![("hot".into(), "999".into())]);
        assert_eq!(log.entries("kept").len(), 2000);
    }

    #[test]
    fn merges_write_each_change_a_few_times_when_many_keys_change() {
        // Regression: a journal that keeps 2000 records changes new keys on every call (a record added, the oldest
        // removed). Each merge rewrote every change since the snapshot, up to half the live data every 32 flushes:
        // the provider's journal spent most of its time writing merges (criterion bench `journal`).
        let mut raw = Counting { inner: MemoryStore::durable(), written: 0 };
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        let value = "r".repeat(100);
        for i in 0..2000 {
            log.put(&format!("kept{i:05}"), &value).unwrap();
        }
        log.flush(0, &mut raw).unwrap();
        let live = log.live_bytes;
        raw.written = 0;
        let mut changed = 0;
        for i in 0..1000u64 {
            let (new, old) = (format!("kept{:05}", 2000 + i), format!("kept{i:05}"));
            log.put(&new, &value).unwrap();
            log.remove(&old);
            changed += new.len() + value.len() + old.len();
            log.flush(i + 1, &mut raw).unwrap();
            if i % 97 == 0 || i == 999 {
                // Merges of the recent segments, of everything since the snapshot, and snapshots all replay to the
                // state in memory.
                let reopened = LogStore::open(&mut raw.inner.clone(), PREFIX, i + 1);
                assert!(reopened.entries("") == log.entries(""), "after flush {i}");
            }
        }
        // At most 16 merges of the recent segments follow each other: more means one merged all since the snapshot.
        assert!(log.merges > 16, "{} merges", log.merges);
        assert!(
            raw.written < 6 * changed + 2 * live,
            "1000 flushes that changed {changed} bytes wrote {}; the live data is {live}",
            raw.written
        );
        let log = LogStore::open(&mut raw.inner, PREFIX, 2000);
        let kept = log.entries("kept");
        assert_eq!((kept.len(), kept[0].0.as_str()), (2000, "kept01000"));
    }

    #[test]
    fn merges_and_snapshots_replay_to_the_same_state() {
        let mut raw = MemoryStore::durable();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        let mut expected = IndexMap::new();
        for i in 0..500u64 {
            let key = format!("k{}", i % 37);
            if i % 5 == 0 {
                log.remove(&key);
                expected.remove(&key);
            } else {
                let value = "v".repeat((i % 300) as usize) + &i.to_string();
                log.put(&key, &value).unwrap();
                expected.insert(key, value);
            }
            log.flush(i, &mut raw).unwrap();
            let reopened = LogStore::open(&mut raw.clone(), PREFIX, i);
            let seen: IndexMap<String, String> = reopened.entries("").into_iter().collect();
            assert_eq!(seen, expected, "after flush {i}");
        }
    }

    /// Counts the bytes written to a store.
    struct Counting {
        inner: MemoryStore,
        written: usize,
    }

    impl JournalStore for Counting {
        fn entries(&self, prefix: &str) -> Vec<(String, String)> {
            self.inner.entries(prefix)
        }
        fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
            self.written += key.len() + value.len();
            self.inner.put(key, value)
        }
        fn remove(&mut self, key: &str) {
            self.inner.remove(key);
        }
        fn is_durable(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_full_store_gets_a_snapshot_then_falls_back_to_memory() {
        let mut raw = MemoryStore::durable().with_quota(400);
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        log.put("a", &"x".repeat(100)).unwrap();
        log.flush(1, &mut raw).unwrap();
        log.put("a", &"y".repeat(100)).unwrap();
        log.flush(2, &mut raw).unwrap(); // the log would exceed the quota; a snapshot replaces it
        assert!(log.is_durable());
        log.put("b", &"z".repeat(500)).unwrap();
        assert_eq!(log.flush(3, &mut raw), Err(StoreError::Full));
        assert!(!log.is_durable());
        assert_eq!(log.entries("b").len(), 1, "the state in memory is kept");
    }

    #[test]
    fn a_log_over_a_store_that_does_not_survive_reloads_is_not_durable() {
        let mut raw = MemoryStore::new();
        let log = LogStore::open(&mut raw, PREFIX, 0);
        assert!(!log.is_durable());
    }

    #[test]
    fn corrupt_segments_are_discarded_and_reported() {
        let mut raw = MemoryStore::durable();
        raw.put(&format!("{PREFIX}0"), "{not json").unwrap();
        raw.put(&format!("{PREFIX}1"), r#"{"v":9,"seq":1,"at":0}"#).unwrap();
        let mut log = LogStore::open(&mut raw, PREFIX, 0);
        let discarded = log.take_discarded();
        assert_eq!(discarded.len(), 2);
        assert_eq!(discarded[0].reason, "not JSON: expected a string key at byte 1, found 'n'");
        assert_eq!(discarded[1].reason, "format version 9");
        assert!(log.entries("").is_empty());
        assert!(raw.is_empty(), "discarded segments are removed");
    }

    #[test]
    fn other_logs_are_invisible_and_abandoned_ones_expire() {
        let mut raw = MemoryStore::durable();
        let mut other = LogStore::open(&mut raw, "webmcp:log:t/top/1:", 0);
        other.put("theirs", "1").unwrap();
        other.flush(0, &mut raw).unwrap();
        let log = LogStore::open(&mut raw, PREFIX, 1000);
        assert!(log.entries("").is_empty());
        assert_eq!(raw.len(), 1, "a live sibling's log is kept");
        LogStore::open(&mut raw, PREFIX, ABANDONED_LOG_AGE_MS + 1);
        assert!(raw.is_empty(), "an abandoned log is deleted");
    }
}
