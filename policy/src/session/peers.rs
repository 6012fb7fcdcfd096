//! The windows this page talks to, each at one origin, and how: window messages addressed to the window's exact
//! origin, or private ports set up between two bridges (docs/protocol.md, `WEBMCP_CONNECT`), one per direction.

use crate::envelope::{Message, ToolDescriptor};
use crate::ids::RequestId;
use crate::origin::{TupleOrigin, WindowOrigin};
use crate::session::ids::{Locator, PeerId, PortId, WindowId};
use crate::sorted_map::SortedMap;

/// Which private port of a peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PortSide {
    /// Set up by this page, to call the peer's tools: our requests go out on it, the peer's answers come back.
    Ours,
    /// Set up by the peer, to call this page's tools: its requests come in, our answers and notices go back.
    Theirs,
}

impl PortSide {
    /// The port a message travels on: a consumer's messages (requests, cancels, acknowledgements, the handshake)
    /// on the port the consumer set up, a provider's (answers, notices) on the port its consumer set up.
    pub fn for_message(message: &Message) -> PortSide {
        match message {
            Message::GetToolsRequest { .. }
            | Message::ExecuteRequest(_)
            | Message::CancelTool { .. }
            | Message::CallStatusRequest { .. }
            | Message::CallAck { .. }
            | Message::Connect { .. } => PortSide::Ours,
            Message::GetToolsResponse(_)
            | Message::ExecuteResponse(_)
            | Message::CallStatusResponse(_)
            | Message::ToolsChanged
            | Message::GoingAway
            | Message::Connected { .. } => PortSide::Theirs,
        }
    }
}

/// The path a message came by; replies take the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// A window message (`event.source`, `event.origin`).
    Window,
    /// One of the peer's private ports.
    Port(PortSide),
    /// This page, to itself.
    Loopback,
}

/// Who sent a message: the peer, the origin the browser reported (or the port's verified origin), and the path.
#[derive(Clone, Debug)]
pub(crate) struct Sender {
    pub peer: PeerId,
    pub origin: WindowOrigin,
    pub via: Via,
}

/// A private port, with the envelopes that wait to leave as one batch at the end of the task.
#[derive(Debug)]
pub(crate) struct Link {
    pub port: PortId,
    pub outbox: Vec<String>,
    /// The bridge at the other end said it reads batches posted as UTF-8 bytes (`"utf8Batches": 1`).
    pub utf8: bool,
}

impl Link {
    pub fn new(port: PortId) -> Self {
        Self { port, outbox: Vec::new(), utf8: false }
    }
}

#[derive(Debug)]
pub(crate) struct Peer {
    pub id: PeerId,
    pub window: WindowId,
    /// The origin the browser reported for its messages, or the exact origin our request was addressed to and
    /// answered from: a tuple origin for a peer reached by message; this page's own (which may be opaque), or the
    /// origin native gave, for the others.
    pub origin: WindowOrigin,
    /// The browser's own WebMCP reaches this window's tools (a peer of the third kind, beside windows reached by
    /// message and this page itself): calls go through native `executeTool`, never as messages.
    pub native: bool,
    /// Where its window sits around this page.
    pub locator: Locator,
    /// It said `"bridge": 1`: it speaks the extensions.
    pub bridge: bool,
    /// Its tools, as last listed.
    pub tools: Vec<ToolDescriptor>,
    /// It listed our tools: tell it when they change.
    pub listed_ours: bool,
    /// Its origin could see one of our tools when it last listed them or was last told of a change.
    pub sees_ours: bool,
    /// The port of this page's calls to it, once it accepted it.
    pub ours: Option<Link>,
    /// The port of its calls to this page.
    pub theirs: Option<Link>,
    /// Our `WEBMCP_CONNECT` waiting for its `WEBMCP_CONNECTED`: its id, the port it set up, and when it left.
    pub connecting: Option<(RequestId, Link, u64)>,
    /// When a message from it last arrived (ms since the epoch; 0 for never).
    pub last_heard: u64,
    /// It went away (GOING_AWAY, closed, navigated): it gets nothing more.
    pub gone: bool,
}

impl Peer {
    pub fn link_mut(&mut self, side: PortSide) -> Option<&mut Link> {
        match side {
            PortSide::Ours => self.ours.as_mut(),
            PortSide::Theirs => self.theirs.as_mut(),
        }
    }

    fn ports(&self) -> impl Iterator<Item = PortId> + '_ {
        self.ours
            .iter()
            .chain(self.theirs.iter())
            .chain(self.connecting.iter().map(|(_, link, _)| link))
            .map(|link| link.port)
    }
}

/// Every peer, and which peer and side each private port belongs to.
#[derive(Debug)]
pub(crate) struct Peers {
    list: Vec<Peer>,
    next: u32,
    ports: SortedMap<PortId, (PeerId, PortSide)>,
}

impl Peers {
    pub fn new(own_origin: &WindowOrigin) -> Self {
        let me = Peer::new(PeerId::SELF, WindowId::SELF, own_origin.clone(), Locator::SelfPage);
        let mut peers = Self { list: vec![me], next: 1, ports: SortedMap::new() };
        if let Some(me) = peers.get_mut(PeerId::SELF) {
            me.bridge = true;
        }
        peers
    }

    pub fn get(&self, id: PeerId) -> Option<&Peer> {
        self.list.iter().find(|p| p.id == id)
    }

    pub fn get_mut(&mut self, id: PeerId) -> Option<&mut Peer> {
        self.list.iter_mut().find(|p| p.id == id)
    }

    /// The live peer for `window` at `origin`, reached by message.
    pub fn find(&self, window: WindowId, origin: &TupleOrigin) -> Option<PeerId> {
        self.list
            .iter()
            .find(|p| !p.gone && !p.native && p.window == window && p.origin.tuple() == Some(origin))
            .map(|p| p.id)
    }

    /// The live native peer for `window` at `origin`, created when new.
    pub fn native(&mut self, window: WindowId, origin: &WindowOrigin, locator: &Locator) -> PeerId {
        let found = self.list.iter().find(|p| !p.gone && p.native && p.window == window && p.origin == *origin);
        if let Some(peer) = found {
            return peer.id;
        }
        let id = PeerId(self.next);
        self.next += 1;
        let mut peer = Peer::new(id, window, origin.clone(), locator.clone());
        peer.native = true;
        self.list.push(peer);
        id
    }

    /// The live peer for `window` at `origin`, reached by message, created when new. A known locator replaces an
    /// old one; an unknown one never replaces anything.
    pub fn upsert(&mut self, window: WindowId, origin: &TupleOrigin, locator: &Locator) -> PeerId {
        if let Some(id) = self.find(window, origin) {
            if let Some(peer) = self.get_mut(id)
                && locator.is_known()
            {
                peer.locator = locator.clone();
            }
            return id;
        }
        let id = PeerId(self.next);
        self.next += 1;
        self.list.push(Peer::new(id, window, WindowOrigin::Tuple(origin.clone()), locator.clone()));
        id
    }

    /// Marks a peer gone: its tools are forgotten; returns its ports, to be closed.
    pub fn forget(&mut self, id: PeerId) -> Vec<PortId> {
        if id == PeerId::SELF {
            return Vec::new();
        }
        let Some(peer) = self.get_mut(id) else { return Vec::new() };
        let ports: Vec<PortId> = peer.ports().collect();
        peer.gone = true;
        peer.ours = None;
        peer.theirs = None;
        peer.connecting = None;
        peer.tools.clear();
        for port in &ports {
            self.ports.remove(port);
        }
        ports
    }

    /// Files `port` as the peer's port on `side`.
    pub fn note_port(&mut self, port: PortId, peer: PeerId, side: PortSide) {
        self.ports.insert(port, (peer, side));
    }

    /// Forgets `port` (replaced or closed).
    pub fn drop_port(&mut self, port: PortId) {
        self.ports.remove(&port);
    }

    /// Which peer and side `port` belongs to.
    pub fn port_owner(&self, port: PortId) -> Option<(PeerId, PortSide)> {
        self.ports.get(&port).copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Peer> {
        self.list.iter().filter(|p| !p.gone)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Peer> {
        self.list.iter_mut().filter(|p| !p.gone)
    }

    /// The live peers of `window`, at any origin.
    pub fn of_window(&self, window: WindowId) -> Vec<PeerId> {
        self.iter().filter(|p| p.window == window).map(|p| p.id).collect()
    }
}

impl Peer {
    fn new(id: PeerId, window: WindowId, origin: WindowOrigin, locator: Locator) -> Self {
        Self {
            id,
            window,
            origin,
            native: false,
            locator,
            bridge: false,
            tools: Vec::new(),
            listed_ours: false,
            sees_ours: false,
            ours: None,
            theirs: None,
            connecting: None,
            last_heard: 0,
            gone: false,
        }
    }
}
