//! The caller's journal: every call this page made, written before the message that it describes is posted.

mod flush;
mod types;

use crate::index_map::{IndexMap, IndexSet};

pub use types::{
    ExecuteRequest, Followup, MAX_ACK_BATCH, NewCall, OUTCOME_NOT_KEPT, PLAIN_PEER_UNANSWERED, PROVIDER_GONE,
    PROVIDER_GONE_BEFORE_SEND, PROVIDER_NOT_DURABLE, ProviderStatus, Recovery, Settled, Start, StartError,
    StatusDecision, TIMED_OUT, TOO_OLD_RECORDED, TOO_OLD_SENT,
};

use super::config::JournalConfig;
use super::entry::consumer::{check_call_id, consumer_key};
use super::entry::{AckState, CONSUMER_PREFIX, CallPhase, ConsumerEntry, EntryError, ProviderWindow};
use super::outcome::{CallOutcome, ToolOutcome};
use super::owner::Owner;
use super::persist::Persist;
use super::store::{JournalStore, StoreError};
use super::warning::JournalWarning;
use crate::envelope::JsonText;
use crate::ids::RequestId;
use crate::outcome::{ErrorKind, ToolError};

/// A call as the journal holds it: its entry, and what only this page knows.
#[derive(Debug)]
struct Call {
    entry: ConsumerEntry,
    /// Loaded by `open`: an earlier page started it.
    recovered: bool,
    /// This page posted it (first send, or a re-send after a status answer). A status answer may predate a post
    /// of this page, so "unknown" re-sends only a call that no post of this page can still be delivering.
    posted_here: bool,
    /// "Unknown" answers since this page last posted it. A post that a durable provider still does not know after
    /// [`UNKNOWNS_BEFORE_RESEND`] answers was lost (its page was replaced before it arrived): it is sent again,
    /// marked as a re-send, which the provider runs only if its journal proves it never received the call.
    unknowns: u8,
}

/// How many "unknown" answers of a durable provider a call this page posted waits through before it is sent again.
const UNKNOWNS_BEFORE_RESEND: u8 = 2;

/// The consumer journal of one page (docs/once-only.md §1, §2, §4, §7, §8).
///
/// It decides; the bridge posts messages and settles promises. Each method that changes a call writes the
/// entry to the store before it returns, so a decision such as "post it now" is durable before it is acted on.
/// When writing fails even after pruning, the journal removes its entries from the store and lives in memory
/// for the rest of the page ([`JournalWarning::StorageLost`]); it never panics and never loses its state.
#[derive(Debug)]
pub struct ConsumerJournal<S> {
    persist: Persist<S, RequestId>,
    owner: Owner,
    config: JournalConfig,
    calls: IndexMap<RequestId, Call>,
    by_call_id: IndexMap<String, RequestId>,
    settled_order: IndexSet<(u64, RequestId)>,
    unsettled_order: IndexSet<(u64, RequestId)>,
    /// The bytes of the settled entries' outcomes ([`JournalConfig::settled_outcome_bytes_max`]).
    settled_bytes: usize,
    /// Keys of entries of another tab id, inherited when this tab was copied from it: never resumed, dropped
    /// when the store is full.
    orphans: Vec<String>,
    warnings: Vec<JournalWarning>,
}

impl<S: JournalStore> ConsumerJournal<S> {
    /// Loads the journal of `owner` from `store` and decides what becomes of the calls an earlier page left.
    ///
    /// Entries of other owners stay invisible and are never resumed. Those of another frame of this tab are left
    /// alone; those of another tab id (inherited by a copied tab) are removed once older than this journal would
    /// keep its own, or when the store is full. Entries that do not decode are removed, and
    /// entries of another format version are left alone; both are reported by [`Self::take_warnings`]. Own calls:
    /// recorded → [`Recovery::Send`]; sent to a bridge provider → [`Recovery::AskStatus`]; sent to a plain peer →
    /// settled as interrupted ([`Recovery::Settled`]); unsettled for longer than `unsettled_call_max_age_ms` →
    /// settled as interrupted; settled with an acknowledgement due → [`Recovery::Ack`].
    pub fn open(store: S, owner: Owner, config: JournalConfig, now: u64) -> (Self, Vec<Recovery>) {
        let mut journal = Self {
            persist: Persist::new(store),
            owner,
            config,
            calls: IndexMap::new(),
            by_call_id: IndexMap::new(),
            settled_order: IndexSet::new(),
            unsettled_order: IndexSet::new(),
            settled_bytes: 0,
            orphans: Vec::new(),
            warnings: Vec::new(),
        };
        journal.load(now);
        let recoveries = journal.recover(now);
        (journal, recoveries)
    }

    fn load(&mut self, now: u64) {
        for (key, value) in self.persist.store().entries(CONSUMER_PREFIX) {
            match ConsumerEntry::decode(&value) {
                Err(EntryError::OtherVersion { found }) => {
                    self.warnings.push(JournalWarning::OtherVersion { key, found });
                }
                Err(error) => self.discard(key, error),
                Ok(entry) if entry.owner.tab() != self.owner.tab() => {
                    if self.is_past_limits(&entry, now) {
                        self.persist.store_mut().remove(&key);
                    } else {
                        self.orphans.push(key);
                    }
                }
                Ok(entry) if entry.owner != self.owner => {}
                Ok(entry) if entry.key() != key => self.discard(key, EntryError::KeyMismatch),
                Ok(entry) => self.insert(Call { entry, recovered: true, posted_here: false, unknowns: 0 }),
            }
        }
    }

    /// Whether an entry of another tab is older than this journal would keep one of its own.
    fn is_past_limits(&self, entry: &ConsumerEntry, now: u64) -> bool {
        match &entry.phase {
            CallPhase::Settled { settled_at, .. } => {
                now.saturating_sub(*settled_at) > self.config.settled_call_max_age_ms
            }
            _ => now.saturating_sub(entry.created_at) > self.config.unsettled_call_max_age_ms,
        }
    }

    fn discard(&mut self, key: String, error: EntryError) {
        self.persist.store_mut().remove(&key);
        self.warnings.push(JournalWarning::Discarded { key, error });
    }

    fn recover(&mut self, now: u64) -> Vec<Recovery> {
        let mut recoveries = Vec::new();
        let unsettled: Vec<RequestId> = self.unsettled_order.iter().map(|(_, wire)| wire.clone()).collect();
        for wire in unsettled {
            let Some(call) = self.calls.get(&wire) else {
                continue;
            };
            let entry = &call.entry;
            let too_old = now.saturating_sub(entry.created_at) > self.config.unsettled_call_max_age_ms;
            let settle_as = match (&entry.phase, too_old) {
                (CallPhase::Recorded, true) => Some(TOO_OLD_RECORDED),
                (CallPhase::Sent { .. }, true) => Some(TOO_OLD_SENT),
                (CallPhase::Sent { .. }, false) if !entry.provider.bridge => Some(PLAIN_PEER_UNANSWERED),
                (CallPhase::Recorded, false) => {
                    recoveries.push(Recovery::Send(request_of(entry, false)));
                    None
                }
                (CallPhase::Sent { .. }, false) => {
                    recoveries.push(Recovery::AskStatus { wire_id: wire.clone(), provider: entry.provider.clone() });
                    None
                }
                (CallPhase::Settled { .. }, _) => None,
            };
            if let Some(message) = settle_as {
                let outcome = CallOutcome::Interrupted { message: message.to_owned() };
                if let Some(settled) = self.settle(&wire, outcome, AckState::NotNeeded, Followup::Nothing, now) {
                    recoveries.push(Recovery::Settled(settled));
                }
            }
        }
        self.prune_settled(now);
        recoveries.extend(self.acks_due());
        recoveries
    }

    /// Outcomes this journal recorded from bridge providers and has not yet acknowledged, grouped by window in
    /// batches of at most [`MAX_ACK_BATCH`].
    fn acks_due(&self) -> Vec<Recovery> {
        // By window in the windows' order (a few windows: a sorted vector, not a map of its own).
        let mut by_window: Vec<(&ProviderWindow, Vec<RequestId>)> = Vec::new();
        for (_, wire) in self.settled_order.iter() {
            if let Some(call) = self.calls.get(wire)
                && let CallPhase::Settled { ack: AckState::Due, .. } = call.entry.phase
            {
                let provider = &call.entry.provider;
                match by_window.binary_search_by(|(window, _)| (*window).cmp(provider)) {
                    Ok(at) => by_window[at].1.push(wire.clone()),
                    Err(at) => by_window.insert(at, (provider, vec![wire.clone()])),
                }
            }
        }
        let mut acks = Vec::new();
        for (provider, wires) in by_window {
            for batch in wires.chunks(MAX_ACK_BATCH) {
                acks.push(Recovery::Ack { provider: provider.clone(), wire_ids: batch.to_vec() });
            }
        }
        acks
    }

    /// Records a new call, or finds the earlier call of its `callId` (§1).
    ///
    /// A `callId` already used for this tool and window replays the recorded outcome or joins the call in
    /// flight, whatever the arguments. Errors: the `callId` was used for another tool or window; the page has
    /// `unsettled_calls_max` unsettled calls; the wire id is already recorded; the `callId` or the window cannot
    /// be stored (a `callId` has 1 to 256 characters).
    pub fn start(&mut self, call: NewCall, now: u64) -> Result<Start, StartError> {
        let NewCall { call_id, wire_id, tool, provider, args } = call;
        if let Some(call_id) = &call_id {
            check_call_id(call_id).map_err(|e| StartError::Invalid(e.to_string()))?;
        }
        provider.check().map_err(|e| StartError::Invalid(e.to_string()))?;
        if self.calls.contains_key(&wire_id) {
            return Err(StartError::WireIdInUse(wire_id));
        }
        let call_id = call_id.unwrap_or_else(|| wire_id.as_str().to_owned());
        if let Some(first) = self.by_call_id.get(&call_id).and_then(|wire| self.calls.get(wire)) {
            let first = &first.entry;
            if first.tool != tool
                || first.provider.origin != provider.origin
                || first.provider.locator != provider.locator
            {
                return Err(StartError::CallIdReused {
                    call_id,
                    first_tool: first.tool.clone(),
                    first_origin: first.provider.origin.clone(),
                    first_locator: first.provider.locator.clone(),
                });
            }
            return Ok(match &first.phase {
                CallPhase::Settled { outcome, .. } => {
                    Start::Replay { wire_id: first.wire_id.clone(), outcome: outcome.clone() }
                }
                _ => Start::Join { wire_id: first.wire_id.clone() },
            });
        }
        if self.unsettled_order.len() >= self.config.unsettled_calls_max {
            return Err(StartError::TooManyUnsettled { limit: self.config.unsettled_calls_max });
        }
        let entry = ConsumerEntry {
            owner: self.owner.clone(),
            wire_id: wire_id.clone(),
            call_id,
            tool,
            provider,
            args: Some(args),
            created_at: now,
            phase: CallPhase::Recorded,
        };
        self.insert(Call { entry, recovered: false, posted_here: false, unknowns: 0 });
        self.save(&wire_id);
        self.prune_settled(now);
        Ok(Start::New)
    }

    /// Records that the request is about to be posted. Returns true when the bridge must post it now; false when
    /// the call is unknown, already sent or settled (a stopped call is never sent).
    #[must_use = "post the request only when this returns true"]
    pub fn mark_sent(&mut self, wire_id: &RequestId, now: u64) -> bool {
        let Some(call) = self.calls.get_mut(wire_id) else {
            return false;
        };
        if call.entry.phase != CallPhase::Recorded {
            return false;
        }
        call.entry.phase = CallPhase::Sent { sent_at: now };
        call.posted_here = true;
        self.save(wire_id);
        true
    }

    /// A response came for a sent call: settles it. `None` for an unknown, unsent or already settled call, so a
    /// duplicate response never settles twice.
    ///
    /// An error of kind `interrupted` settles the call as interrupted. A result longer than `result_cap_chars` is
    /// kept truncated (the returned `Settled` has it whole).
    pub fn on_response(&mut self, wire_id: &RequestId, outcome: ToolOutcome, now: u64) -> Option<Settled> {
        let call = self.calls.get(wire_id)?;
        if !matches!(call.entry.phase, CallPhase::Sent { .. }) {
            return None;
        }
        let (ack, followup) = if call.entry.provider.bridge {
            (AckState::Due, Followup::Ack)
        } else {
            (AckState::NotNeeded, Followup::Nothing)
        };
        let outcome = CallOutcome::from_response(outcome);
        let whole = match &outcome {
            CallOutcome::Completed { .. } => Some(outcome.clone()),
            _ => None,
        };
        let mut settled = self.settle(wire_id, outcome, ack, followup, now)?;
        if let Some(whole) = whole {
            settled.outcome = whole;
        }
        Some(settled)
    }

    /// A status answer came for a sent call (§2).
    ///
    /// Running → [`StatusDecision::Wait`]. Unknown and not durable → settled as interrupted. Unknown and durable →
    /// [`StatusDecision::Resend`] for a call that an earlier page posted and this page has not (yet) posted:
    /// then every earlier post was lost, since a page receives messages in the order they were posted. A call
    /// this page posted gets [`StatusDecision::Wait`] instead, since the answer may predate the post (a lost post
    /// of this page is reported by `WEBMCP_GOING_AWAY`). A call older than `unsettled_call_max_age_ms` is never
    /// re-sent: it settles as interrupted (the provider may have forgotten it).
    pub fn on_status(&mut self, wire_id: &RequestId, status: ProviderStatus, now: u64) -> StatusDecision {
        let Some(call) = self.calls.get_mut(wire_id) else {
            return StatusDecision::Ignored;
        };
        if !matches!(call.entry.phase, CallPhase::Sent { .. }) {
            return StatusDecision::Ignored;
        }
        let too_old = now.saturating_sub(call.entry.created_at) > self.config.unsettled_call_max_age_ms;
        let message = match status {
            ProviderStatus::Running => return StatusDecision::Wait,
            ProviderStatus::Unknown { durable: false } => PROVIDER_NOT_DURABLE,
            ProviderStatus::Unknown { durable: true } if too_old => TOO_OLD_SENT,
            ProviderStatus::Unknown { durable: true }
                if call.posted_here && call.unknowns + 1 < UNKNOWNS_BEFORE_RESEND =>
            {
                call.unknowns += 1;
                return StatusDecision::Wait;
            }
            ProviderStatus::Unknown { durable: true } => {
                call.posted_here = true;
                call.unknowns = 0;
                return StatusDecision::Resend(request_of(&call.entry, true));
            }
        };
        let outcome = CallOutcome::Interrupted { message: message.to_owned() };
        match self.settle(wire_id, outcome, AckState::NotNeeded, Followup::Nothing, now) {
            Some(settled) => StatusDecision::Settled(settled),
            None => StatusDecision::Ignored,
        }
    }

    /// The caller aborted the call (§4): records `stopped` before the bridge sends `WEBMCP_CANCEL_TOOL`
    /// ([`Followup::Cancel`] when the call was sent to a bridge provider). `None` when it was not in flight.
    pub fn stop(&mut self, wire_id: &RequestId, now: u64) -> Option<Settled> {
        let followup = self.cancel_followup(wire_id)?;
        self.settle(wire_id, CallOutcome::Stopped, AckState::NotNeeded, followup, now)
    }

    /// The caller's time limit passed: settles the call as failed (`timeout`), with [`Followup::Cancel`] when it
    /// was sent to a bridge provider. `None` when it was not in flight.
    pub fn timed_out(&mut self, wire_id: &RequestId, now: u64) -> Option<Settled> {
        let followup = self.cancel_followup(wire_id)?;
        let outcome = CallOutcome::Failed(ToolError::new(ErrorKind::Timeout, TIMED_OUT));
        self.settle(wire_id, outcome, AckState::NotNeeded, followup, now)
    }

    /// The provider window went away (`WEBMCP_GOING_AWAY`, or it can no longer be found): settles the call as
    /// interrupted. `None` when it was not in flight.
    pub fn peer_gone(&mut self, wire_id: &RequestId, now: u64) -> Option<Settled> {
        let message = match self.calls.get(wire_id)?.entry.phase {
            CallPhase::Recorded => PROVIDER_GONE_BEFORE_SEND,
            CallPhase::Sent { .. } => PROVIDER_GONE,
            CallPhase::Settled { .. } => return None,
        };
        let outcome = CallOutcome::Interrupted { message: message.to_owned() };
        self.settle(wire_id, outcome, AckState::NotNeeded, Followup::Nothing, now)
    }

    fn cancel_followup(&self, wire_id: &RequestId) -> Option<Followup> {
        let entry = &self.calls.get(wire_id)?.entry;
        match entry.phase {
            CallPhase::Recorded => Some(Followup::Nothing),
            CallPhase::Sent { .. } if entry.provider.bridge => Some(Followup::Cancel),
            CallPhase::Sent { .. } => Some(Followup::Nothing),
            CallPhase::Settled { .. } => None,
        }
    }

    /// The bridge posted `WEBMCP_CALL_ACK` for these calls: they need no acknowledgement after a reload.
    pub fn mark_acked(&mut self, wire_ids: &[RequestId]) {
        for wire_id in wire_ids {
            if let Some(call) = self.calls.get_mut(wire_id)
                && let CallPhase::Settled { ack: ack @ AckState::Due, .. } = &mut call.entry.phase
            {
                *ack = AckState::Sent;
                self.save(wire_id);
            }
        }
    }

    /// The own call recorded under `call_id`, if the journal still holds it.
    pub fn lookup_call_id(&self, call_id: &str) -> Option<&ConsumerEntry> {
        self.by_call_id.get(call_id).and_then(|wire| self.calls.get(wire)).map(|call| &call.entry)
    }

    /// The own call of `wire_id`, if the journal still holds it.
    pub fn get(&self, wire_id: &RequestId) -> Option<&ConsumerEntry> {
        self.calls.get(wire_id).map(|call| &call.entry)
    }

    /// The calls not yet settled, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &ConsumerEntry> {
        self.unsettled_order.iter().filter_map(|(_, wire)| self.calls.get(wire)).map(|call| &call.entry)
    }

    /// Applies the limits of §8: unsettled calls older than `unsettled_call_max_age_ms` settle as interrupted
    /// (and are returned), settled calls beyond `settled_calls_kept` or older than `settled_call_max_age_ms`
    /// are dropped. Settled calls are also pruned on every write; call this now and then for the rest.
    pub fn prune(&mut self, now: u64) -> Vec<Settled> {
        let max_age = self.config.unsettled_call_max_age_ms;
        let old: Vec<(RequestId, &'static str)> = self
            .unsettled_order
            .iter()
            .take_while(|(created_at, _)| now.saturating_sub(*created_at) > max_age)
            .filter_map(|(_, wire)| {
                let message = match self.calls.get(wire)?.entry.phase {
                    CallPhase::Recorded => TOO_OLD_RECORDED,
                    _ => TOO_OLD_SENT,
                };
                Some((wire.clone(), message))
            })
            .collect();
        let mut settled = Vec::new();
        for (wire, message) in old {
            let outcome = CallOutcome::Interrupted { message: message.to_owned() };
            settled.extend(self.settle(&wire, outcome, AckState::NotNeeded, Followup::Nothing, now));
        }
        self.prune_settled(now);
        settled
    }

    /// The bridge's own write of this journal's entries failed (such as a batched flush of its store): the
    /// journal stops writing, as when a `put` fails (see the type's documentation). Nothing happens if it
    /// already stopped.
    pub fn storage_failed(&mut self, error: StoreError) {
        if self.persist.is_writing() {
            self.stop_writing(error);
        }
    }

    /// Warnings for the console since the last call (entries discarded by `open`, storage lost).
    pub fn take_warnings(&mut self) -> Vec<JournalWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// Whether the journal's entries survive a reload of the page (false in memory, or after storage failed).
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

    /// From now on, a change is written by the next flush instead of at once (see `Persist`): each entry once,
    /// in its latest state, however often it changed. The store then holds what immediate writes would have left
    /// there; only the intermediate states of a call that settled in between are never encoded.
    pub fn defer_writes(&mut self) {
        self.persist.batch();
    }

    /// Writes the entries changed since the last call (see [`Self::defer_writes`]).
    pub(super) fn write_pending(&mut self) {
        for (wire, _) in self.persist.take_changed() {
            if self.persist.is_writing() {
                self.write(&wire);
            }
        }
    }

    fn insert(&mut self, call: Call) {
        let entry = &call.entry;
        let wire = entry.wire_id.clone();
        match &entry.phase {
            CallPhase::Settled { settled_at, outcome, .. } => {
                self.settled_bytes += kept_bytes(outcome);
                self.settled_order.insert((*settled_at, wire.clone()))
            }
            _ => self.unsettled_order.insert((entry.created_at, wire.clone())),
        };
        let newer = match self.by_call_id.get(&entry.call_id).and_then(|w| self.calls.get(w)) {
            Some(other) => (entry.created_at, &entry.wire_id) > (other.entry.created_at, &other.entry.wire_id),
            None => true,
        };
        if newer {
            self.by_call_id.insert(entry.call_id.clone(), wire.clone());
        }
        self.calls.insert(wire, call);
    }

    fn remove(&mut self, wire_id: &RequestId) {
        let Some(call) = self.calls.remove(wire_id) else {
            return;
        };
        let entry = &call.entry;
        match &entry.phase {
            CallPhase::Settled { settled_at, outcome, .. } => {
                self.settled_bytes = self.settled_bytes.saturating_sub(kept_bytes(outcome));
                self.settled_order.remove(&(*settled_at, wire_id.clone()))
            }
            _ => self.unsettled_order.remove(&(entry.created_at, wire_id.clone())),
        };
        if self.by_call_id.get(&entry.call_id) == Some(wire_id) {
            self.by_call_id.remove(&entry.call_id);
        }
        self.persist.remove(wire_id, &entry.key());
    }

    /// Settles an unsettled call with its outcome capped, writes it, prunes, and returns its report. `None` when
    /// the call is unknown or already settled.
    fn settle(
        &mut self,
        wire_id: &RequestId,
        outcome: CallOutcome,
        ack: AckState,
        followup: Followup,
        now: u64,
    ) -> Option<Settled> {
        let cap = self.config.result_cap_chars;
        let call = self.calls.get_mut(wire_id)?;
        let sent_at = match call.entry.phase {
            CallPhase::Recorded => None,
            CallPhase::Sent { sent_at } => Some(sent_at),
            CallPhase::Settled { .. } => return None,
        };
        let outcome = outcome.capped(cap);
        self.settled_bytes += kept_bytes(&outcome);
        let entry = &mut call.entry;
        entry.phase = CallPhase::Settled { sent_at, settled_at: now, outcome: outcome.clone(), ack };
        entry.args = None;
        let settled = Settled {
            call_id: entry.call_id.clone(),
            wire_id: wire_id.clone(),
            tool: entry.tool.clone(),
            provider: entry.provider.clone(),
            outcome,
            duration_ms: now.saturating_sub(entry.created_at),
            recovered: call.recovered,
            followup,
        };
        self.unsettled_order.remove(&(call.entry.created_at, wire_id.clone()));
        self.settled_order.insert((now, wire_id.clone()));
        self.save(wire_id);
        self.prune_settled(now);
        Some(settled)
    }

    /// Drops settled calls beyond the count and age limits, oldest first. Then, while the outcomes kept are over
    /// their byte budget, replaces the oldest ones' outcomes (never the newest's) with [`OUTCOME_NOT_KEPT`]: the
    /// entry stays, so that its `callId` still replays instead of running the tool again (§1, §8).
    fn prune_settled(&mut self, now: u64) {
        while let Some((settled_at, wire)) = self.settled_order.first().cloned() {
            let over = self.settled_order.len() > self.config.settled_calls_kept;
            if !over && now.saturating_sub(settled_at) <= self.config.settled_call_max_age_ms {
                break;
            }
            self.remove(&wire);
        }
        // Only the outcomes to drop are collected (a settle of a large result comes here every time once the
        // budget is full): oldest first, the placeholders already there passed over, until the rest fits.
        let mut over = self.settled_bytes.saturating_sub(self.config.settled_outcome_bytes_max);
        let newest = self.settled_order.len().saturating_sub(1);
        let mut dropping = Vec::new();
        for (_, wire) in self.settled_order.iter().take(newest) {
            if over == 0 {
                break;
            }
            let bytes = match self.calls.get(wire).map(|call| &call.entry.phase) {
                Some(CallPhase::Settled { outcome, .. }) => kept_bytes(outcome),
                _ => 0,
            };
            if bytes > 0 {
                over = over.saturating_sub(bytes);
                dropping.push(wire.clone());
            }
        }
        for wire in dropping {
            self.drop_outcome(&wire);
        }
    }

    /// Replaces the outcome of the settled call `wire_id` with [`OUTCOME_NOT_KEPT`] (see [`Self::prune_settled`]).
    fn drop_outcome(&mut self, wire_id: &RequestId) {
        let Some(call) = self.calls.get_mut(wire_id) else { return };
        let CallPhase::Settled { outcome, .. } = &mut call.entry.phase else { return };
        if kept_bytes(outcome) == 0 {
            return;
        }
        self.settled_bytes = self.settled_bytes.saturating_sub(kept_bytes(outcome));
        *outcome = CallOutcome::Failed(ToolError::new(ErrorKind::Refused, OUTCOME_NOT_KEPT));
        self.save(wire_id);
    }

    /// Writes the entry of `wire_id`, now or at the next flush.
    fn save(&mut self, wire_id: &RequestId) {
        if self.persist.note(wire_id, 0) {
            self.write(wire_id);
        }
    }

    /// Writes the entry of `wire_id`. On a full store: drops the entries inherited from another tab and the
    /// older half of the settled calls, and retries once; if that fails too, the journal stops writing (see the type's documentation).
    fn write(&mut self, wire_id: &RequestId) {
        let Some(call) = self.calls.get(wire_id) else {
            return;
        };
        let (key, value) = (call.entry.key(), call.entry.encode());
        let error = match self.persist.store_mut().put(&key, &value) {
            Ok(()) => return,
            Err(StoreError::Full) => {
                for orphan in std::mem::take(&mut self.orphans) {
                    self.persist.store_mut().remove(&orphan);
                }
                self.drop_older_settled_half(wire_id);
                match self.persist.store_mut().put(&key, &value) {
                    Ok(()) => return,
                    Err(error) => error,
                }
            }
            Err(error) => error,
        };
        self.stop_writing(error);
    }

    fn drop_older_settled_half(&mut self, keep: &RequestId) {
        let count = self.settled_order.len().div_ceil(2);
        let older: Vec<RequestId> =
            self.settled_order.iter().map(|(_, wire)| wire.clone()).filter(|wire| wire != keep).take(count).collect();
        for wire in older {
            self.remove(&wire);
        }
    }

    /// Removes this journal's entries from the store (so that a later page does not resume calls from a stale
    /// state) and keeps the journal in memory only.
    fn stop_writing(&mut self, error: StoreError) {
        for wire in self.calls.keys() {
            self.persist.store_mut().remove(&consumer_key(wire));
        }
        self.persist.stop();
        self.warnings.push(JournalWarning::StorageLost { error, noted: true });
    }
}

/// The bytes of `outcome` that count against [`JournalConfig::settled_outcome_bytes_max`]: none for
/// [`OUTCOME_NOT_KEPT`], which stands in for an outcome dropped (bounded by the count of settled entries instead).
fn kept_bytes(outcome: &CallOutcome) -> usize {
    match outcome {
        CallOutcome::Failed(error) if error.kind == ErrorKind::Refused && error.message == OUTCOME_NOT_KEPT => 0,
        _ => outcome.stored_bytes(),
    }
}

fn request_of(entry: &ConsumerEntry, resend: bool) -> ExecuteRequest {
    ExecuteRequest {
        wire_id: entry.wire_id.clone(),
        tool: entry.tool.clone(),
        provider: entry.provider.clone(),
        // An unsettled entry keeps its arguments; only a settled one (never sent) has none.
        args: entry.args.clone().unwrap_or_else(JsonText::empty_object),
        resend,
    }
}
