//! The provider's journal: every call this page received, keyed by (caller origin, wire id), recorded as running
//! before the tool is called, so that no id ever runs twice.

mod flush;
mod held;
mod types;

use crate::index_map::{IndexMap, IndexSet};

pub use types::{
    BAD_ORIGIN_MESSAGE, CANCELLED_MESSAGE, CANNOT_RECORD_MESSAGE, CancelDecision, DELIVERED_MESSAGE, EXPIRED_MESSAGE,
    ExecuteDecision, INTERRUPTED_MESSAGE, OTHER_PAGE_MESSAGE, RESEND_UNPROVEN_MESSAGE, StatusAnswer,
};

use super::config::JournalConfig;
use super::entry::provider::{meta_key, record_key};
use super::entry::{EntryError, PROVIDER_PREFIX, ProviderEntry, ProviderMeta, RecordState, is_origin_text};
use super::outcome::ToolOutcome;
use super::owner::Owner;
use super::persist::Persist;
use super::store::{JournalStore, StoreError};
use super::warning::JournalWarning;
use crate::ids::{RequestId, ToolName};
use crate::outcome::{ErrorKind, ToolError};
use crate::sorted_map::SortedMap;

/// A call's identity at its provider.
type Key = (String, RequestId);

/// What the indexes hold of a record: whether it runs, or when it last changed and what result it holds.
#[derive(Clone, Copy)]
enum Indexed {
    Running,
    Done { updated_at: u64, held_bytes: usize },
    Kept { updated_at: u64 },
}

impl Indexed {
    fn of(entry: &ProviderEntry) -> Self {
        match &entry.state {
            RecordState::Running => Indexed::Running,
            RecordState::Done(outcome) => {
                Indexed::Done { updated_at: entry.updated_at, held_bytes: outcome.stored_bytes() }
            }
            _ => Indexed::Kept { updated_at: entry.updated_at },
        }
    }
}

/// The provider journal of one page (docs/once-only.md §3, §4, §7, §8).
///
/// Every change is written to the store before the decision is returned. Records: `running` (this page runs
/// it), `done` (the outcome, kept until acknowledged or for `result_kept_ms`), and tombstones that keep an id
/// from running again (`interrupted`, `cancelled`, `acked`, `expired`) for `ran_id_max_age_ms`, at most
/// `ran_ids_kept` of them with the results.
///
/// "Unknown" proves that a call never ran only while nothing was forgotten: when a record is dropped to respect
/// the count limit, or storage fails, the journal notes a horizon in the store, and for `ran_id_max_age_ms`
/// after it answers `durable: false`. Past that age a consumer never re-sends a call.
///
/// When a write fails (a full store: after dropping kept results and inherited records and retrying once), the
/// journal writes that note (removing its own records first if there is no room for it) and lives in memory
/// for the rest of the page, so that later pages answer `durable: false` for a day. If not even the note can be
/// written, new calls are refused (`refused`, not recorded) until it can: a later page could not know they ran.
#[derive(Debug)]
pub struct ProviderJournal<S> {
    /// The store, and the records yet to be written to it.
    persist: Persist<S, Key>,
    /// Once storage failed: whether a note in the store tells later pages that records up to `horizon` may be
    /// missing. Without one, new calls are refused until one can be written.
    noted: bool,
    owner: Owner,
    config: JournalConfig,
    records: IndexMap<Key, ProviderEntry>,
    /// Records of ids that ran (results and tombstones), by last change.
    kept_order: IndexSet<(u64, Key)>,
    /// Records holding a result, by last change.
    done_order: IndexSet<(u64, Key)>,
    running_per_origin: SortedMap<String, usize>,
    /// Bytes of the results held for each caller origin (see [`ToolOutcome::stored_bytes`]).
    held_per_origin: SortedMap<String, usize>,
    /// Whether the store survived reloads when the journal opened: a note must then really reach it.
    durable_store: bool,
    /// Keys held in the store by another frame of this tab: never overwritten, run or answered, and left to
    /// that frame to prune.
    siblings: IndexSet<Key>,
    /// Records of another tab id, inherited when this tab was copied from it (no page of that tab uses this
    /// storage): never run or answered here, counted in `ran_ids_kept` and pruned like own records, so that a
    /// chain of copied tabs stays bounded. By last change.
    orphans: IndexMap<Key, u64>,
    /// Calls received up to this time may have been forgotten.
    horizon: Option<u64>,
    warnings: Vec<JournalWarning>,
}

impl<S: JournalStore> ProviderJournal<S> {
    /// Loads the journal of `owner` from `store`. Own `running` records become `interrupted` (the page that ran
    /// them is gone). Records of other owners are never run or answered here (a request for one is answered
    /// as interrupted): those of another frame of this tab are left alone, those of another tab id (inherited
    /// by a copied tab) are pruned by age and count like own records. Entries that do not decode are removed,
    /// entries of another version left alone; both are reported by [`Self::take_warnings`].
    pub fn open(store: S, owner: Owner, config: JournalConfig, now: u64) -> Self {
        let mut journal = Self {
            persist: Persist::new(store),
            noted: false,
            owner,
            config,
            records: IndexMap::new(),
            kept_order: IndexSet::new(),
            done_order: IndexSet::new(),
            running_per_origin: SortedMap::new(),
            held_per_origin: SortedMap::new(),
            durable_store: false,
            siblings: IndexSet::new(),
            orphans: IndexMap::new(),
            horizon: None,
            warnings: Vec::new(),
        };
        journal.durable_store = journal.persist.store().is_durable();
        journal.load(now);
        journal.prune(now);
        journal
    }

    fn load(&mut self, now: u64) {
        let own_meta = meta_key(&self.owner);
        let meta_prefix = format!("{PROVIDER_PREFIX}!");
        for (key, value) in self.persist.store().entries(PROVIDER_PREFIX) {
            if key.starts_with(&meta_prefix) {
                match ProviderMeta::decode(&value) {
                    Err(error) => self.reject(key, error),
                    Ok(meta) if meta.key() != key => self.reject(key, EntryError::KeyMismatch),
                    Ok(meta) if key == own_meta => self.horizon = self.horizon.max(Some(meta.horizon)),
                    Ok(_) => {}
                }
                continue;
            }
            match ProviderEntry::decode(&value) {
                Err(error) => self.reject(key, error),
                Ok(entry) if entry.key() != key => self.reject(key, EntryError::KeyMismatch),
                Ok(entry) if entry.owner != self.owner => {
                    let key = (entry.caller_origin, entry.wire_id);
                    if entry.owner.tab() == self.owner.tab() {
                        self.siblings.insert(key);
                    } else {
                        self.kept_order.insert((entry.updated_at, key.clone()));
                        self.orphans.insert(key, entry.updated_at);
                    }
                }
                Ok(mut entry) => {
                    let key = (entry.caller_origin.clone(), entry.wire_id.clone());
                    if entry.state == RecordState::Running {
                        entry.state = RecordState::Interrupted;
                        entry.updated_at = entry.updated_at.max(now);
                        self.set(key.clone(), entry);
                        self.save(&key, now);
                    } else {
                        self.set(key, entry);
                    }
                }
            }
        }
        if self.horizon.is_some_and(|h| now.saturating_sub(h) > self.config.ran_id_max_age_ms) {
            self.horizon = None;
            self.persist.store_mut().remove(&own_meta);
        }
    }

    fn reject(&mut self, key: String, error: EntryError) {
        match error {
            EntryError::OtherVersion { found } => self.warnings.push(JournalWarning::OtherVersion { key, found }),
            error => {
                self.persist.store_mut().remove(&key);
                self.warnings.push(JournalWarning::Discarded { key, error });
            }
        }
    }

    /// A request to run `tool` came from `caller_origin` with `wire_id` (§3).
    ///
    /// Unknown id → recorded as running → [`ExecuteDecision::Run`]. Running → `AlreadyRunning`. Done → `Reply`
    /// with the kept outcome. Interrupted, cancelled, expired, acknowledged, or held by another page → `Reply`
    /// with an error that says so. The same id for another tool → `Reply` refused. An origin with
    /// `running_per_origin_max` calls running → `Refuse(too_many_calls)`, not recorded.
    pub fn on_execute(
        &mut self,
        caller_origin: &str,
        wire_id: &RequestId,
        tool: &ToolName,
        now: u64,
    ) -> ExecuteDecision {
        self.execute(caller_origin, wire_id, tool, false, now)
    }

    /// A request that the caller re-sent after this provider said it never received the call (`"resend": 1`).
    ///
    /// Like [`Self::on_execute`], except for an id this journal has no record of: it runs only if the journal
    /// can still prove, now, that it never received the call (what `durable: true` promised); otherwise it is
    /// answered with [`RESEND_UNPROVEN_MESSAGE`] (interrupted) and not recorded. The status answer that led to
    /// the re-send may be older than a request still in flight, and records may have been dropped since.
    pub fn on_resend(
        &mut self,
        caller_origin: &str,
        wire_id: &RequestId,
        tool: &ToolName,
        now: u64,
    ) -> ExecuteDecision {
        self.execute(caller_origin, wire_id, tool, true, now)
    }

    fn execute(
        &mut self,
        caller_origin: &str,
        wire_id: &RequestId,
        tool: &ToolName,
        resend: bool,
        now: u64,
    ) -> ExecuteDecision {
        if !is_origin_text(caller_origin) {
            return ExecuteDecision::Refuse(ToolError::new(ErrorKind::Refused, BAD_ORIGIN_MESSAGE));
        }
        let key = (caller_origin.to_owned(), wire_id.clone());
        if let Some(entry) = self.records.get(&key) {
            if let Some(first) = &entry.tool
                && first != tool
                && entry.state != RecordState::Cancelled
            {
                let message = format!("requestId {wire_id} was already used for tool `{first}`: an id runs once");
                return ExecuteDecision::Reply(failed(ErrorKind::Refused, &message));
            }
            return match answer_of(&entry.state) {
                None => ExecuteDecision::AlreadyRunning,
                Some(outcome) => ExecuteDecision::Reply(outcome),
            };
        }
        if self.is_foreign(&key) {
            return ExecuteDecision::Reply(failed(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE));
        }
        let running = self.running_per_origin.get(caller_origin).copied().unwrap_or(0);
        if running >= self.config.running_per_origin_max {
            let message = format!(
                "{caller_origin} already has {running} calls running in this page: retry when one of them finishes"
            );
            return ExecuteDecision::Refuse(ToolError::new(ErrorKind::TooManyCalls, message));
        }
        // Without storage, the call runs unrecorded: first the note must say that records up to now may be
        // missing (found by the simulator: a note a day old was dropped on reload, and a call run after it ran
        // again when re-sent).
        if !self.persist.is_writing() && !self.try_note(now) {
            return ExecuteDecision::Refuse(ToolError::new(ErrorKind::Refused, CANNOT_RECORD_MESSAGE));
        }
        if resend && !self.unknown_is_durable(now) {
            return ExecuteDecision::Reply(failed(ErrorKind::Interrupted, RESEND_UNPROVEN_MESSAGE));
        }
        let entry = ProviderEntry {
            owner: self.owner.clone(),
            caller_origin: caller_origin.to_owned(),
            wire_id: wire_id.clone(),
            tool: Some(tool.clone()),
            state: RecordState::Running,
            started_at: now,
            updated_at: now,
        };
        self.set(key.clone(), entry);
        self.save(&key, now);
        self.prune(now);
        if self.is_unnoted() {
            // The record could not be written, nor a note that it is missing: a later page could not know that
            // this call ran, so it must not run.
            self.unset(&key);
            return ExecuteDecision::Refuse(ToolError::new(ErrorKind::Refused, CANNOT_RECORD_MESSAGE));
        }
        ExecuteDecision::Run
    }

    /// The tool finished. Returns the outcome to send (capped to `result_cap_chars`, a result that is not JSON
    /// text sent as a JSON string), and keeps it until acknowledged; `None` when the call is not running here
    /// (it was cancelled: its late result is discarded).
    pub fn on_finish(
        &mut self,
        caller_origin: &str,
        wire_id: &RequestId,
        outcome: ToolOutcome,
        now: u64,
    ) -> Option<ToolOutcome> {
        let key = (caller_origin.to_owned(), wire_id.clone());
        let entry = self.records.get(&key)?;
        if entry.state != RecordState::Running {
            return None;
        }
        let outcome = outcome.capped(self.config.result_cap_chars);
        self.change(&key, RecordState::Done(outcome.clone()), now);
        self.prune(now);
        Some(outcome)
    }

    /// The caller stopped the call (§4). Running → `AbortRunning` (recorded as cancelled, so its late result is
    /// discarded); never received → `Recorded` (a tombstone: it never starts); otherwise `Nothing`.
    pub fn on_cancel(&mut self, caller_origin: &str, wire_id: &RequestId, now: u64) -> CancelDecision {
        if !is_origin_text(caller_origin) {
            return CancelDecision::Nothing;
        }
        let key = (caller_origin.to_owned(), wire_id.clone());
        let decision = match self.records.get(&key).map(|e| &e.state) {
            Some(RecordState::Running) => {
                self.change(&key, RecordState::Cancelled, now);
                CancelDecision::AbortRunning
            }
            Some(_) => return CancelDecision::Nothing,
            None if self.is_foreign(&key) => return CancelDecision::Nothing,
            // A cancel that overtakes its request is rare; a stream of them is an origin filling the journal to
            // push other callers' records out. Each origin gets a few such records, no more.
            None if self.early_cancels(caller_origin) >= self.config.early_cancels_per_origin_max => {
                return CancelDecision::Nothing;
            }
            None => {
                let entry = ProviderEntry {
                    owner: self.owner.clone(),
                    caller_origin: caller_origin.to_owned(),
                    wire_id: wire_id.clone(),
                    tool: None,
                    state: RecordState::Cancelled,
                    started_at: now,
                    updated_at: now,
                };
                self.set(key.clone(), entry);
                self.save(&key, now);
                CancelDecision::Recorded
            }
        };
        self.prune(now);
        decision
    }

    /// A status query for a call (§2, §3): its kept outcome, an error that says it was interrupted, cancelled,
    /// expired or delivered, `Running`, or `Unknown` with whether that proves it never ran here.
    pub fn on_status(&mut self, caller_origin: &str, wire_id: &RequestId, now: u64) -> StatusAnswer {
        let key = (caller_origin.to_owned(), wire_id.clone());
        match self.records.get(&key) {
            Some(entry) => match answer_of(&entry.state) {
                None => StatusAnswer::Running,
                Some(outcome) => StatusAnswer::Outcome(outcome),
            },
            None if self.is_foreign(&key) => StatusAnswer::Outcome(failed(ErrorKind::Interrupted, OTHER_PAGE_MESSAGE)),
            None => StatusAnswer::Unknown { durable: is_origin_text(caller_origin) && self.unknown_is_durable(now) },
        }
    }

    /// The caller recorded these outcomes: their results are dropped, and the ids remembered as acknowledged.
    pub fn on_ack(&mut self, caller_origin: &str, wire_ids: &[RequestId], now: u64) {
        for wire_id in wire_ids {
            let key = (caller_origin.to_owned(), wire_id.clone());
            if matches!(self.records.get(&key).map(|e| &e.state), Some(RecordState::Done(_))) {
                self.change(&key, RecordState::Acked, now);
            }
        }
        self.prune(now);
    }

    /// Applies the limits of §8: results older than `result_kept_ms` are dropped (their ids read as expired), and
    /// so are the oldest results of a caller origin that holds more than `held_result_bytes_per_origin_max`;
    /// records older than `ran_id_max_age_ms` are dropped; beyond `ran_ids_kept` the oldest are dropped and the
    /// horizon moves. Done on every write; call it now and then as well.
    pub fn prune(&mut self, now: u64) {
        let expired: Vec<Key> = self
            .done_order
            .iter()
            .take_while(|(at, _)| now.saturating_sub(*at) > self.config.result_kept_ms)
            .map(|(_, key)| key.clone())
            .collect();
        for key in expired {
            self.change(&key, RecordState::Expired, now);
        }
        self.hold_within_budget(now);
        while let Some((at, key)) = self.kept_order.first().cloned() {
            if now.saturating_sub(at) <= self.config.ran_id_max_age_ms {
                break;
            }
            self.forget(&key);
        }
        // Beyond the limit, a tenth more goes at once: one note of the horizon per many calls, not one per call.
        let excess = match self.kept_order.len().checked_sub(self.config.ran_ids_kept) {
            Some(over) if over > 0 => over + self.config.ran_ids_kept / 10,
            _ => 0,
        };
        if excess > 0 {
            let evicted: Vec<(u64, Key)> = self.kept_order.iter().take(excess).cloned().collect();
            let horizon = evicted.iter().map(|(at, _)| *at).max();
            self.horizon = self.horizon.max(horizon);
            self.save_meta(now);
            for (_, key) in evicted {
                self.forget(&key);
            }
        }
    }

    /// The own record of a call, if the journal holds one.
    pub fn record(&self, caller_origin: &str, wire_id: &RequestId) -> Option<&ProviderEntry> {
        self.records.get(&(caller_origin.to_owned(), wire_id.clone()))
    }

    /// The calls running in this page.
    pub fn running(&self) -> impl Iterator<Item = &ProviderEntry> {
        self.records.values().filter(|entry| entry.state == RecordState::Running)
    }

    /// The bridge's own write of this journal's records failed (such as a batched flush of its store): the
    /// journal notes its horizon and stops writing, as when a `put` fails (see the type's documentation).
    /// Nothing happens if it already stopped.
    pub fn storage_failed(&mut self, error: StoreError, now: u64) {
        if self.persist.is_writing() {
            self.stop_writing(error, now);
        }
    }

    /// Warnings for the console since the last call (entries discarded by `open`, storage lost).
    pub fn take_warnings(&mut self) -> Vec<JournalWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// Whether the records survive a reload of the page (false in memory, or after storage failed).
    pub fn is_durable(&self) -> bool {
        self.persist.is_durable()
    }

    /// The page that owns this journal.
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// The store, as written so far.
    pub fn store(&self) -> &S {
        self.persist.store()
    }

    /// Gives the store back (a page that goes away), with every pending write done.
    pub fn into_store(mut self) -> S {
        self.write_pending();
        self.persist.into_store()
    }

    /// From now on, a change to a record is written by the next flush instead of at once (see `Persist`): each
    /// record once, in its latest state. The store then holds what immediate writes would have left there. (Notes
    /// of the horizon are still written at once.)
    pub fn defer_writes(&mut self) {
        self.persist.batch();
    }

    /// Writes the records changed since the last call (see [`Self::defer_writes`]).
    fn write_pending(&mut self) {
        for (key, at) in self.persist.take_changed() {
            if self.persist.is_writing() && self.records.contains_key(&key) {
                self.write(&key, at);
            }
        }
    }

    /// Storage failed and not even the note of the horizon could be written: new calls are refused.
    fn is_unnoted(&self) -> bool {
        !self.persist.is_writing() && !self.noted
    }

    /// How many cancels of calls it never received this page keeps for `origin`.
    fn early_cancels(&self, origin: &str) -> usize {
        let Ok(lowest) = RequestId::new("-") else { return 0 };
        self.records
            .range_from(&(origin.to_owned(), lowest))
            .take_while(|((o, _), _)| o == origin)
            .filter(|(_, e)| e.tool.is_none() && e.state == RecordState::Cancelled)
            .count()
    }

    fn is_foreign(&self, key: &Key) -> bool {
        self.siblings.contains(key) || self.orphans.contains_key(key)
    }

    fn unknown_is_durable(&self, now: u64) -> bool {
        self.is_durable() && self.horizon.is_none_or(|h| now.saturating_sub(h) > self.config.ran_id_max_age_ms)
    }

    /// Puts `entry` under `key` in memory, keeping the indexes right. A record that is already there is replaced
    /// where it stands: a record changes state a few times per call, and taking it out of the map and putting it
    /// back moved its neighbours in their B-tree node each time (7.5 µs per call in a profile of 2000 calls).
    fn set(&mut self, key: Key, entry: ProviderEntry) {
        if let Some(old) = self.records.get(&key).map(Indexed::of) {
            self.unindex(&key, old);
        }
        self.index(&key, Indexed::of(&entry));
        self.records.insert(key, entry);
    }

    /// Removes `key` from memory, keeping the indexes right.
    fn unset(&mut self, key: &Key) -> Option<ProviderEntry> {
        let entry = self.records.remove(key)?;
        self.unindex(key, Indexed::of(&entry));
        Some(entry)
    }

    /// Counts a record that is in `records` under `key` in the indexes.
    fn index(&mut self, key: &Key, entry: Indexed) {
        match entry {
            Indexed::Running => *self.running_per_origin.entry(key.0.clone()).or_default() += 1,
            Indexed::Done { updated_at, held_bytes } => {
                *self.held_per_origin.entry(key.0.clone()).or_default() += held_bytes;
                self.done_order.insert((updated_at, key.clone()));
                self.kept_order.insert((updated_at, key.clone()));
            }
            Indexed::Kept { updated_at } => {
                self.kept_order.insert((updated_at, key.clone()));
            }
        }
    }

    /// Takes a record out of the indexes (before it leaves `records` or changes).
    fn unindex(&mut self, key: &Key, entry: Indexed) {
        match entry {
            Indexed::Running => {
                if let Some(count) = self.running_per_origin.get_mut(&key.0) {
                    *count -= 1;
                    if *count == 0 {
                        self.running_per_origin.remove(&key.0);
                    }
                }
            }
            Indexed::Done { updated_at, held_bytes } => {
                if let Some(bytes) = self.held_per_origin.get_mut(&key.0) {
                    *bytes = bytes.saturating_sub(held_bytes);
                    if *bytes == 0 {
                        self.held_per_origin.remove(&key.0);
                    }
                }
                let at = (updated_at, key.clone());
                self.done_order.remove(&at);
                self.kept_order.remove(&at);
            }
            Indexed::Kept { updated_at } => {
                self.kept_order.remove(&(updated_at, key.clone()));
            }
        }
    }

    /// Moves the record of `key` to `state` as of `now`, in place, and writes it.
    fn change(&mut self, key: &Key, state: RecordState, now: u64) {
        let Some(old) = self.records.get(key).map(Indexed::of) else { return };
        self.unindex(key, old);
        let Some(entry) = self.records.get_mut(key) else { return };
        entry.state = state;
        entry.updated_at = entry.updated_at.max(now);
        let new = Indexed::of(entry);
        self.index(key, new);
        self.save(key, now);
    }

    /// Drops a record (own or orphan) from memory and from the store.
    fn forget(&mut self, key: &Key) {
        let known = match self.unset(key) {
            Some(_) => true,
            None => match self.orphans.remove(key) {
                Some(at) => self.kept_order.remove(&(at, key.clone())),
                None => false,
            },
        };
        if known {
            self.persist.remove(key, &record_key(&key.0, &key.1));
        }
    }

    /// Drops every orphan record, noting the horizon first.
    fn drop_orphans(&mut self, now: u64) {
        let Some(newest) = self.orphans.values().max().copied() else { return };
        self.horizon = self.horizon.max(Some(newest));
        let orphans: Vec<Key> = self.orphans.keys().cloned().collect();
        for key in orphans {
            self.forget(&key);
        }
        self.save_meta(now);
    }

    /// Writes the record of `key`, now or at the next flush.
    fn save(&mut self, key: &Key, now: u64) {
        if self.persist.note(key, now) {
            self.write(key, now);
        }
    }

    /// Writes the record of `key`. On a full store: drops every other kept result (their ids read as expired)
    /// and the orphan records, and retries once; if that fails too, stops writing (see [`Self::stop_writing`]).
    fn write(&mut self, key: &Key, now: u64) {
        let Some(entry) = self.records.get(key) else {
            return;
        };
        let (store_key, value) = (entry.key(), entry.encode());
        let error = match self.persist.store_mut().put(&store_key, &value) {
            Ok(()) => return,
            Err(StoreError::Full) => {
                self.expire_results_except(key, now);
                self.drop_orphans(now);
                if !self.persist.is_writing() {
                    return;
                }
                match self.persist.store_mut().put(&store_key, &value) {
                    Ok(()) => return,
                    Err(error) => error,
                }
            }
            Err(error) => error,
        };
        self.stop_writing(error, now);
    }

    fn expire_results_except(&mut self, keep: &Key, now: u64) {
        let results: Vec<Key> = self.done_order.iter().map(|(_, key)| key.clone()).filter(|key| key != keep).collect();
        for key in results {
            if let Some(mut entry) = self.unset(&key) {
                entry.state = RecordState::Expired;
                entry.updated_at = entry.updated_at.max(now);
                // A smaller value replaces a larger one; if even that fails, the stored result stays, and is the
                // real one.
                let _ = self.persist.store_mut().put(&entry.key(), &entry.encode());
                self.set(key, entry);
            }
        }
    }

    /// The page before this one in the slot ended without going away cleanly (a crash): it may not have written
    /// its last changes, so records up to `now` may be missing. Like a dropped record, this leaves a note: for
    /// `ran_id_max_age_ms`, "unknown" no longer proves that a call never ran here (§7).
    pub fn previous_page_crashed(&mut self, now: u64) {
        self.horizon = self.horizon.max(Some(now));
        self.save_meta(now);
    }

    /// Writes the note of the horizon; a failure stops writing.
    fn save_meta(&mut self, now: u64) {
        let Some(horizon) = self.horizon else { return };
        if !self.persist.is_writing() {
            return;
        }
        let meta = ProviderMeta { owner: self.owner.clone(), horizon };
        if let Err(error) = self.persist.store_mut().put(&meta.key(), &meta.encode()) {
            self.stop_writing(error, now);
        }
    }

    /// Storage failed: note in the store that records up to now may be missing (removing this page's records to
    /// make room if needed), and keep the journal in memory only. Without a note, new calls are refused until a
    /// note can be written.
    fn stop_writing(&mut self, error: StoreError, now: u64) {
        self.horizon = self.horizon.max(Some(now));
        self.persist.stop();
        self.noted = false;
        let mut noted = self.try_note(now);
        if !noted {
            let own: Vec<String> = self.records.values().map(ProviderEntry::key).collect();
            for key in own {
                self.persist.store_mut().remove(&key);
            }
            noted = self.try_note(now);
        }
        self.warnings.push(JournalWarning::StorageLost { error, noted });
    }

    /// Tries to write the note of the horizon (now); true when it is written (or the store never survived reloads,
    /// so no later page relies on it). A store that was durable and is no longer (a batched store whose flush
    /// failed) cannot take the note.
    fn try_note(&mut self, now: u64) -> bool {
        let horizon = self.horizon.map_or(now, |h| h.max(now));
        self.horizon = Some(horizon);
        let meta = ProviderMeta { owner: self.owner.clone(), horizon };
        let store = self.persist.store_mut();
        if !self.durable_store || (store.is_durable() && store.put(&meta.key(), &meta.encode()).is_ok()) {
            self.noted = true;
            return true;
        }
        false
    }
}

fn failed(kind: ErrorKind, message: &str) -> ToolOutcome {
    ToolOutcome::Failed(ToolError::new(kind, message))
}

/// The answer kept for a call in `state`; `None` while it runs.
fn answer_of(state: &RecordState) -> Option<ToolOutcome> {
    Some(match state {
        RecordState::Running => return None,
        RecordState::Done(outcome) => outcome.clone(),
        RecordState::Interrupted => failed(ErrorKind::Interrupted, INTERRUPTED_MESSAGE),
        RecordState::Cancelled => failed(ErrorKind::Cancelled, CANCELLED_MESSAGE),
        RecordState::Acked => failed(ErrorKind::Refused, DELIVERED_MESSAGE),
        RecordState::Expired => failed(ErrorKind::Refused, EXPIRED_MESSAGE),
    })
}
