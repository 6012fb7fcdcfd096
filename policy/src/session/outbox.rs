//! Where every message goes: to this page itself (delivered at the end of the task), on the private port that
//! carries its kind of message, or as a window message addressed to the peer's exact origin; and what waits for
//! the end of the task (call requests, port batches, acknowledgements, announcements).

use crate::calls_channel::ObservedCall;
use crate::calls_channel::{self, ChannelMessage};
use crate::envelope::{Message, take_batch};
use crate::ids::RequestId;
use crate::session::Session;
use crate::session::ids::PeerId;
use crate::session::io::Effect;
use crate::session::journals::Journals;
use crate::session::peers::{PortSide, Sender, Via};
use crate::session::timers::{ACK_BATCH, ACK_DELAY_MS, Timer};

/// Port messages a link gathers before it posts them without waiting for the end of the task. A page that sends
/// hundreds of calls (or answers) in one task lets the other side start on the first ones while it goes on: with
/// every batch held to the end of the task, 2000 calls at once ran one side after the other (docs/measurements/history.md).
pub(crate) const EARLY_BATCH_LEN: usize = 16;

impl Session {
    /// Sends `message` to a peer: to this page through the loopback, on the peer's port that carries this kind
    /// of message when it is connected, else by window at the peer's origin.
    pub(crate) fn send(&mut self, peer: PeerId, message: &Message) {
        self.send_by(peer, Some(PortSide::for_message(message)), message);
    }

    /// Sends `message` by window even when a port is connected: for a question that must reach the peer whether
    /// or not the port still works.
    pub(crate) fn send_by_window(&mut self, peer: PeerId, message: &Message) {
        self.send_by(peer, None, message);
    }

    fn send_by(&mut self, peer_id: PeerId, side: Option<PortSide>, message: &Message) {
        if peer_id == PeerId::SELF {
            self.outbox.loopback.push(message.clone());
            return self.ask_end_of_task();
        }
        let early = EARLY_BATCH_LEN.min(self.config.limits.max_batch_len.max(1));
        let max_bytes = self.config.limits.max_batch_bytes;
        // A native peer is reached through native's `executeTool` only (see `calls.rs`), never by message.
        let Some(peer) = self.peers.get_mut(peer_id).filter(|p| !p.gone && !p.native) else { return };
        if let Some(link) = side.and_then(|side| peer.link_mut(side)) {
            link.outbox.push(message.encode());
            while link.outbox.len() >= early {
                let batch = take_batch(&mut link.outbox, early, max_bytes);
                self.effects.push_back(Effect::PostBatch { port: link.port, batch, utf8: link.utf8 });
            }
            return self.ask_end_of_task();
        }
        // Only this page and native peers can be at an opaque origin: a peer reached by message is at a tuple one.
        let Some(origin) = peer.origin.tuple().cloned() else { return };
        let window = peer.window;
        self.effects.push_back(Effect::Post { window, origin, message: message.clone(), open_port: None });
    }

    /// Holds a call's request to another window until the end of the task, or sends the held ones now that
    /// [`EARLY_BATCH_LEN`] gathered (the provider starts on them while this page goes on).
    pub(crate) fn hold_request(&mut self, message: Message) {
        self.outbox.requests.push(message);
        if self.outbox.requests.len() >= EARLY_BATCH_LEN {
            self.release_requests();
        } else {
            self.ask_end_of_task();
        }
    }

    /// Whether the request of call `wire_id` is held still: the call ends before it left, and it never leaves.
    pub(crate) fn request_held(&self, wire_id: &RequestId) -> bool {
        self.outbox.requests.iter().any(|m| matches!(m, Message::ExecuteRequest(r) if r.request_id == *wire_id))
    }

    /// Sends the held requests of the calls that still wait (a call that ended meanwhile is no longer pending).
    fn release_requests(&mut self) {
        for message in std::mem::take(&mut self.outbox.requests) {
            let Message::ExecuteRequest(request) = &message else { continue };
            let Some(peer) = self.outgoing.calls.get(&request.request_id).map(|call| call.peer) else { continue };
            self.send(peer, &message);
        }
    }

    /// Replies to the sender of a request by the path the request came: on the same port (or by window when that
    /// port has closed since), to its window at the origin it came from, or to this page itself.
    pub(crate) fn reply(&mut self, to: &Sender, message: &Message) {
        match to.via {
            Via::Loopback => self.send(PeerId::SELF, message),
            Via::Port(side) => self.send_by(to.peer, Some(side), message),
            Via::Window => {
                // By window even when a port exists, so that the reply takes the request's path. A window message
                // from an opaque origin is refused before it gets here.
                let Some(peer) = self.peers.get(to.peer) else { return };
                let Some(origin) = to.origin.tuple().cloned() else { return };
                let window = peer.window;
                self.effects.push_back(Effect::Post { window, origin, message: message.clone(), open_port: None });
            }
        }
    }

    /// Tells the other pages of this origin, at the end of the task, how a call of this page stands: the
    /// announcement `make` builds from the journals. Nothing while no other page listens, and then `make` is not
    /// even called: this runs for every call, and an announcement copies four strings.
    pub(crate) fn announce(&mut self, make: impl FnOnce(&Journals) -> Option<ObservedCall>) {
        if !self.outbox.watched {
            return;
        }
        let Some(call) = self.journals.as_ref().and_then(make) else { return };
        self.outbox.announcements.push(call);
        self.ask_end_of_task();
    }

    /// Another page of the origin listens: from now on calls are announced, and those in flight at once (that
    /// page may have started listening after they were sent).
    /// A message on the calls channel: another page's statuses become `toolstatus` events; a hello is answered;
    /// either handshake message turns this page's announcements on.
    pub(crate) fn on_calls_channel(&mut self, text: &str) {
        match calls_channel::decode(text) {
            ChannelMessage::Hello => {
                self.effects.push_back(Effect::PostCalls(calls_channel::ANSWER.to_owned()));
                self.call_watcher();
            }
            ChannelMessage::Answer => self.call_watcher(),
            ChannelMessage::Statuses(calls) => self.effects.extend(calls.into_iter().map(Effect::ToolStatus)),
            ChannelMessage::Other => {}
        }
    }

    fn call_watcher(&mut self) {
        if self.outbox.watched {
            return;
        }
        self.outbox.watched = true;
        let in_flight: Vec<_> = self.outgoing.calls.keys().cloned().collect();
        for wire_id in in_flight {
            self.announce_running(&wire_id);
        }
    }

    /// Queues an acknowledgement of `wire_ids` to `peer`.
    pub(crate) fn acknowledge(&mut self, peer: PeerId, wire_ids: impl IntoIterator<Item = RequestId>) {
        self.outbox.acks.entry(peer).or_default().extend(wire_ids);
        self.ask_end_of_task();
    }

    /// Sends what waited for the end of the task: call requests, announcements, acknowledgements, port batches,
    /// then delivers the messages of this page to itself.
    ///
    /// Acknowledgements ride with other messages to the same peer, or wait up to [`ACK_DELAY_MS`] (or until
    /// [`ACK_BATCH`] gather): a provider keeps a result a little longer, and a call costs one message each way.
    pub(crate) fn end_of_task(&mut self) {
        self.outbox.end_of_task_asked = false;
        self.release_requests();
        if !self.outbox.announcements.is_empty() {
            let calls = std::mem::take(&mut self.outbox.announcements);
            self.effects.push_back(Effect::PostCalls(calls_channel::encode_statuses(&calls)));
        }
        let acks: Vec<(PeerId, Vec<RequestId>)> = std::mem::take(&mut self.outbox.acks).into_iter().collect();
        for (peer, ids) in acks {
            let has_company =
                self.peers.get(peer).and_then(|p| p.ours.as_ref()).is_some_and(|link| !link.outbox.is_empty());
            if has_company || self.outbox.acks_due || ids.len() >= ACK_BATCH {
                for chunk in ids.chunks(self.config.limits.max_ack_ids.max(1)) {
                    self.send(peer, &Message::CallAck { request_ids: chunk.to_vec() });
                }
            } else {
                self.outbox.acks.insert(peer, ids);
            }
        }
        self.outbox.acks_due = false;
        // The timer is left to run out when the acknowledgements found company: one timer that finds nothing to
        // send costs less than a timer per call.
        if !self.outbox.acks.is_empty() {
            self.timers.set_once(Timer::Acks, self.now + ACK_DELAY_MS);
        }
        let (max_len, max_bytes) = (self.config.limits.max_batch_len, self.config.limits.max_batch_bytes);
        let mut batches = Vec::new();
        for peer in self.peers.iter_mut() {
            for link in [peer.ours.as_mut(), peer.theirs.as_mut()].into_iter().flatten() {
                while !link.outbox.is_empty() {
                    let batch = take_batch(&mut link.outbox, max_len, max_bytes);
                    batches.push(Effect::PostBatch { port: link.port, batch, utf8: link.utf8 });
                }
            }
        }
        self.effects.extend(batches);
        let own = self.config.own_origin.clone();
        for message in std::mem::take(&mut self.outbox.loopback) {
            let from = Sender { peer: PeerId::SELF, origin: own.clone(), via: Via::Loopback };
            self.on_message(from, message, None);
        }
    }
}
