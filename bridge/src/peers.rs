//! The windows this page talks to, and how: window messages addressed to the window's exact origin, or a private
//! `MessagePort` set up between two bridges (docs/protocol.md, `WEBMCP_CONNECT`).

use gloo_events::EventListener;
use wasm_bindgen::{JsCast, JsValue};
use webmcp_policy::envelope::ToolDescriptor;
use webmcp_policy::{Message, RequestId};

/// A window this page knows, at one origin. The same window at another origin (after it navigated) is another
/// peer: nothing learned from one origin ever applies to the other.
pub(crate) type PeerId = u32;

/// This page itself, for calls to its own tools.
pub(crate) const SELF_PEER: PeerId = 0;

/// The locator of a window the bridge cannot find again after a reload (one that is not a frame, the parent or
/// the opener of this page, such as a popup it opened).
pub(crate) const UNKNOWN_LOCATOR: &str = "unknown";

/// Where `window` sits around this page (see `candidateWindows` in glue.js), if it is one of those windows.
pub(crate) fn locate(window: &JsValue) -> Option<String> {
    crate::js::candidate_windows().iter().find_map(|candidate| {
        let found = js_sys::Reflect::get(&candidate, &JsValue::from_str("window")).ok()?;
        if !js_sys::Object::is(&found, window) {
            return None;
        }
        js_sys::Reflect::get(&candidate, &JsValue::from_str("locator")).ok()?.as_string()
    })
}

pub(crate) struct Peer {
    pub id: PeerId,
    /// The WindowProxy (possibly of another origin: only `postMessage`, `closed`, frames are used).
    pub window: JsValue,
    /// The origin the browser reported for this window's messages, or the exact origin our request was
    /// addressed to and answered from.
    pub origin: String,
    /// How to find the window again after a reload (see `candidateWindows` in glue.js), when known.
    pub locator: Option<String>,
    /// The peer said `"bridge": 1`: it speaks the extensions.
    pub bridge: bool,
    /// Its tools, as last listed.
    pub tools: Vec<ToolDescriptor>,
    /// It listed our tools: tell it when they change.
    pub listed_ours: bool,
    /// Its origin could see at least one of our tools when it last listed them or was last told of a change.
    /// Notices about our tools go only to peers that see one before or after the change.
    pub sees_ours: bool,
    /// The private port this page set up to call the peer's tools, once the peer accepted it: our requests go
    /// out on it and the peer's answers to them come back on it.
    pub ours: Option<PortLink>,
    /// The private port the peer set up to call this page's tools: its requests come in on it and our answers
    /// (and our notices to it as a consumer of our tools) go back on it. Two bridges that call each other hold
    /// both, so two handshakes that cross never replace each other's port.
    pub theirs: Option<PortLink>,
    /// Our `WEBMCP_CONNECT` waiting for its `WEBMCP_CONNECTED`.
    pub connecting: Option<(RequestId, PortLink)>,
    /// When a message from it last arrived (ms since the epoch; 0 for never).
    pub last_heard: u64,
    /// The peer went away (GOING_AWAY, closed, navigated): it gets nothing more.
    pub gone: bool,
    /// For a frame of this page: hears the frame load another document, which ends the peer's page.
    pub frame_load: Option<EventListener>,
}

/// Which private port of a peer (see [`Peer::ours`] and [`Peer::theirs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PortSide {
    /// Set up by this page, to call the peer's tools.
    Ours,
    /// Set up by the peer, to call this page's tools.
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

/// A private port, with the envelopes waiting to be sent as one batch at the end of the task.
pub(crate) struct PortLink {
    pub port: web_sys::MessagePort,
    pub outbox: Vec<String>,
    _listener: EventListener,
}

impl PortLink {
    /// Listens on `port`: its batches go to `on_port_message`, tagged with the peer and the side. (Browsers fire
    /// no event when the other end of a port dies; a call waiting on a dead port is found by its silence, see
    /// `check_liveness`.)
    pub fn listen(port: web_sys::MessagePort, peer: PeerId, side: PortSide) -> Self {
        let listener = EventListener::new(&port, "message", move |event| {
            if let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() {
                crate::core::on_port_message(peer, side, event);
            }
        });
        port.start();
        Self { port, outbox: Vec::new(), _listener: listener }
    }
}

impl Drop for PortLink {
    fn drop(&mut self) {
        self.port.close();
    }
}

#[derive(Default)]
pub(crate) struct Peers {
    list: Vec<Peer>,
    next_id: PeerId,
}

impl Peers {
    pub fn new(own_window: JsValue, own_origin: &str) -> Self {
        let me = Peer {
            id: SELF_PEER,
            window: own_window,
            origin: own_origin.to_owned(),
            locator: Some("self".to_owned()),
            bridge: true,
            tools: Vec::new(),
            listed_ours: false,
            sees_ours: false,
            ours: None,
            theirs: None,
            connecting: None,
            last_heard: 0,
            gone: false,
            frame_load: None,
        };
        Self { list: vec![me], next_id: SELF_PEER + 1 }
    }

    pub fn get(&self, id: PeerId) -> Option<&Peer> {
        self.list.iter().find(|p| p.id == id)
    }

    pub fn get_mut(&mut self, id: PeerId) -> Option<&mut Peer> {
        self.list.iter_mut().find(|p| p.id == id)
    }

    /// The live peer for `window` at `origin`.
    pub fn find(&self, window: &JsValue, origin: &str) -> Option<PeerId> {
        self.list.iter().find(|p| !p.gone && p.origin == origin && js_sys::Object::is(&p.window, window)).map(|p| p.id)
    }

    /// The live peer for `window` at `origin`, created when new. A known locator replaces an old one; `"unknown"`
    /// never replaces anything.
    pub fn upsert(&mut self, window: &JsValue, origin: &str, locator: Option<&str>) -> PeerId {
        let locator = locator.filter(|l| *l != UNKNOWN_LOCATOR);
        if let Some(id) = self.find(window, origin) {
            if let (Some(peer), Some(locator)) = (self.get_mut(id), locator) {
                peer.locator = Some(locator.to_owned());
            }
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.list.push(Peer {
            id,
            window: window.clone(),
            origin: origin.to_owned(),
            locator: locator.map(str::to_owned),
            bridge: false,
            tools: Vec::new(),
            listed_ours: false,
            sees_ours: false,
            ours: None,
            theirs: None,
            connecting: None,
            last_heard: 0,
            gone: false,
            frame_load: None,
        });
        id
    }

    /// Marks a peer gone: its port closes, its tools are forgotten.
    pub fn forget(&mut self, id: PeerId) {
        if id == SELF_PEER {
            return;
        }
        if let Some(peer) = self.get_mut(id) {
            peer.gone = true;
            peer.ours = None;
            peer.theirs = None;
            peer.connecting = None;
            peer.frame_load = None;
            peer.tools.clear();
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Peer> {
        self.list.iter().filter(|p| !p.gone)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Peer> {
        self.list.iter_mut().filter(|p| !p.gone)
    }
}

impl Peer {
    /// The peer's port on `side`, when connected.
    pub fn link_mut(&mut self, side: PortSide) -> Option<&mut PortLink> {
        match side {
            PortSide::Ours => self.ours.as_mut(),
            PortSide::Theirs => self.theirs.as_mut(),
        }
    }
}
