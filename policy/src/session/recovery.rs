//! When windows go away, fall silent or reload: settling the calls that wait on them, asking silent providers how
//! a call stands, resuming what the previous page of this frame left unfinished, and saying goodbye.

use crate::envelope::Message;
use crate::ids::RequestId;
use crate::journal::Recovery;
use crate::session::ids::{PeerId, WindowId};
use crate::session::io::{Departure, Effect};
use crate::session::peers::Sender;
use crate::session::timers::{LIVENESS_MS, SILENT_PROVIDER_MS, STATUS_RETRY_MS, Timer};
use crate::session::{RunKey, Session};

impl Session {
    /// Every half second while calls wait, or other windows' calls run here: asks the driver which of the
    /// windows involved closed (the providers of this page's calls, the callers of the runs).
    pub(crate) fn probe_liveness(&mut self) {
        let callers = self.remote_callers();
        if self.outgoing.calls.is_empty() && callers.is_empty() {
            return;
        }
        let mut windows: Vec<WindowId> = Vec::new();
        let providers = self.outgoing.calls.values().map(|call| call.peer);
        for peer in providers.chain(callers) {
            if let Some(peer) = self.peers.get(peer).filter(|p| p.id != PeerId::SELF)
                && !windows.contains(&peer.window)
            {
                windows.push(peer.window);
            }
        }
        self.effects.push_back(Effect::ProbeWindows(windows));
    }

    /// The peers whose calls run one of this page's tools, reached by message (not this page, not native).
    fn remote_callers(&self) -> Vec<PeerId> {
        let mut callers: Vec<PeerId> = Vec::new();
        for running in self.incoming.running.values() {
            let peer = running.reply_to.peer;
            if peer != PeerId::SELF && self.peers.get(peer).is_some_and(|p| !p.native) && !callers.contains(&peer) {
                callers.push(peer);
            }
        }
        callers
    }

    /// The driver's answer: a call whose provider window closed or went away is settled; a call to a bridge that
    /// said nothing for [`SILENT_PROVIDER_MS`] is asked about by window (its port may have died with no event to
    /// say so, or its page may have crashed): the answer settles it or says it runs, and no answer after the
    /// retries settles it as interrupted. A run whose caller's window closed (a removed frame, a closed popup: no
    /// later page can ask for its outcome) stops, as a cancel would stop it.
    pub(crate) fn check_liveness(&mut self, closed: &[WindowId]) {
        let left: Vec<RunKey> = self
            .incoming
            .running
            .iter()
            .filter(|(_, running)| {
                running.reply_to.peer != PeerId::SELF
                    && self.peers.get(running.reply_to.peer).is_some_and(|p| !p.native && closed.contains(&p.window))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in left {
            self.stop_run(&key);
        }
        let now = self.now;
        let mut gone = Vec::new();
        let mut silent = Vec::new();
        for (wire, call) in &self.outgoing.calls {
            if call.peer == PeerId::SELF {
                continue;
            }
            match self.peers.get(call.peer) {
                Some(p) if !p.gone && !closed.contains(&p.window) => {
                    let quiet_since = p.last_heard.max(call.since);
                    if p.bridge
                        && now.saturating_sub(quiet_since) >= SILENT_PROVIDER_MS
                        && !self.outgoing.status_retries.contains_key(wire)
                    {
                        silent.push((call.peer, wire.clone()));
                    }
                }
                _ => gone.push(wire.clone()),
            }
        }
        for wire in gone {
            self.provider_gone(&wire);
        }
        for (peer, wire) in silent {
            if let Some(call) = self.outgoing.calls.get_mut(&wire) {
                call.since = now;
            }
            self.ask_status(peer, wire);
        }
        if !self.outgoing.calls.is_empty() || !self.remote_callers().is_empty() {
            self.timers.set_once(Timer::Liveness, now + LIVENESS_MS);
        }
    }

    /// A frame of this page loaded another document: its pages are gone, and every call waiting on them is
    /// interrupted (a plain peer cannot say so itself; a bridge says so too, from `pagehide`).
    pub(crate) fn frame_loaded(&mut self, window: WindowId) {
        for peer in self.peers.of_window(window) {
            self.peer_went_away(peer);
        }
    }

    /// `WEBMCP_GOING_AWAY` from a peer. From an ancestor, this page goes away with it: its calls stay unsettled in
    /// the journal for the next page of this frame, which learns from the provider how they ended.
    pub(crate) fn on_going_away(&mut self, from: &Sender) {
        let window = self.peers.get(from.peer).map(|p| p.window);
        if window.and_then(|w| self.windows.get(&w)).is_some_and(|facts| facts.ancestor) {
            return self.flush_journals();
        }
        let affected: Vec<RequestId> = self
            .journals
            .as_ref()
            .map(|j| j.consumer.pending().map(|e| e.wire_id().clone()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|wire| self.sent_by_provider_of(from, wire))
            .collect();
        for wire in affected {
            self.provider_gone(&wire);
        }
        self.peer_went_away(from.peer);
    }

    fn peer_went_away(&mut self, peer: PeerId) {
        let waiting: Vec<RequestId> =
            self.outgoing.calls.iter().filter(|(_, call)| call.peer == peer).map(|(wire, _)| wire.clone()).collect();
        for wire in waiting {
            self.provider_gone(&wire);
        }
        let had_tools = self.peers.get(peer).is_some_and(|p| !p.tools.is_empty());
        for port in self.peers.forget(peer) {
            self.effects.push_back(Effect::ClosePort(port));
        }
        if had_tools {
            self.effects.push_back(Effect::ToolChange);
        }
    }

    /// This page is going away: when it leaves for another document (not a reload), its calls stop first; then
    /// it tells every window that waits for one of our calls or listed our tools and could see one of them, and
    /// writes the journals.
    pub(crate) fn going_away(&mut self) {
        if self.departure == Departure::Leaves {
            self.stop_calls_on_leaving();
        }
        let mut told: Vec<PeerId> = Vec::new();
        let waiting: Vec<PeerId> = self.incoming.running.values().map(|r| r.reply_to.peer).collect();
        let listed: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|p| p.listed_ours && (p.sees_ours || self.any_visible(&p.origin)))
            .map(|p| p.id)
            .collect();
        for peer in waiting.into_iter().chain(listed) {
            if peer != PeerId::SELF && !told.contains(&peer) {
                told.push(peer);
                self.send(peer, &Message::GoingAway);
            }
        }
        self.outbox.acks_due = true;
        self.end_of_task();
        if let Some(journals) = self.journals.as_mut() {
            journals.gone = true;
        }
        self.flush_journals();
    }

    /// The page navigates to another document: no later page of its frame will resume its calls, so each one it
    /// waits on (and each its predecessor left it) stops as if its caller had aborted it: recorded `stopped`, then
    /// the provider is told to cancel, and the tool's signal aborts there (docs/once-only.md §2 and §4). A reload
    /// keeps them, for the next page.
    fn stop_calls_on_leaving(&mut self) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let pending: Vec<RequestId> = journals.consumer.pending().map(|e| e.wire_id().clone()).collect();
        let settled: Vec<_> = pending.iter().filter_map(|wire| journals.consumer.stop(wire, now)).collect();
        if settled.is_empty() {
            return;
        }
        self.flush_journals();
        for settled in settled {
            self.settle(settled);
        }
    }

    /// Resumes what the previous page of this frame left unfinished (docs/once-only.md §2).
    pub(crate) fn recover(&mut self, recoveries: Vec<Recovery>) {
        for recovery in recoveries {
            match recovery {
                Recovery::Settled(settled) => self.settle(settled),
                Recovery::Send(request) => match self.peer_at(&request.provider) {
                    Some(peer) => {
                        let (wire, bridge) = (request.wire_id.clone(), request.provider.bridge);
                        self.send_execute(peer, request);
                        if bridge {
                            self.ask_status(peer, wire);
                        }
                    }
                    None => self.provider_gone(&request.wire_id),
                },
                Recovery::AskStatus { wire_id, provider } => match self.peer_at(&provider) {
                    Some(peer) => self.ask_status(peer, wire_id),
                    None => self.provider_gone(&wire_id),
                },
                Recovery::Ack { provider, wire_ids } => {
                    if let Some(peer) = self.peer_at(&provider) {
                        if let Some(journals) = self.journals.as_mut() {
                            journals.consumer.mark_acked(&wire_ids);
                        }
                        self.acknowledge(peer, wire_ids);
                    }
                }
            }
        }
    }

    /// Asks a provider how a call stands, by window (the answer must come even when the port the call took has
    /// died), again and again until it answers (its page may still be loading); after the last try the provider
    /// counts as gone.
    pub(crate) fn ask_status(&mut self, peer: PeerId, wire_id: RequestId) {
        self.outgoing.status_retries.insert(wire_id.clone(), 0);
        self.outgoing.status_asker.insert(wire_id.clone(), peer);
        self.send_status_request(peer, wire_id, 0);
    }

    fn send_status_request(&mut self, peer: PeerId, wire_id: RequestId, attempt: usize) {
        self.send_by_window(peer, &Message::CallStatusRequest { request_id: wire_id.clone() });
        self.timers.set(Timer::StatusRetry(wire_id), self.now + STATUS_RETRY_MS[attempt]);
    }

    pub(crate) fn retry_status(&mut self, wire_id: RequestId) {
        let Some(attempt) = self.outgoing.status_retries.get(&wire_id).map(|a| a + 1) else { return };
        let Some(peer) = self.outgoing.status_asker.get(&wire_id).copied() else { return };
        if attempt >= STATUS_RETRY_MS.len() {
            self.stop_asking(&wire_id);
            return self.provider_gone(&wire_id);
        }
        self.outgoing.status_retries.insert(wire_id.clone(), attempt);
        self.send_status_request(peer, wire_id, attempt);
    }

    /// Stops asking how call `wire_id` stands (it answered, or settled).
    pub(crate) fn stop_asking(&mut self, wire_id: &RequestId) {
        self.outgoing.status_retries.remove(wire_id);
        self.outgoing.status_asker.remove(wire_id);
        self.timers.clear(&Timer::StatusRetry(wire_id.clone()));
    }
}
