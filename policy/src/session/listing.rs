//! Finding other windows' tools: asking the windows around the page, keeping the answers of the windows asked at
//! the origins allowed, setting up a private port to each bridge that answered, and listing again when a provider
//! says its tools changed.

use crate::envelope::{GetToolsResponse, Message};
use crate::guard::RefusalKind;
use crate::ids::RequestId;
use crate::origin::{Origin, OriginList, OriginPattern, TupleOrigin, WindowOrigin};
use crate::session::Session;
use crate::session::ids::{Locator, PeerId, WaiterId, WindowId};
use crate::session::io::{Asked, Effect, ListRequest, ListedTool};
use crate::session::peers::{Link, PortSide, Sender, Via};
use crate::session::timers::{HANDSHAKE_WAIT_MS, Timer};

/// Who waits for a listing.
#[derive(Debug)]
pub(crate) enum ListWaiter {
    Page(WaiterId),
    /// A re-list after a provider's `WEBMCP_TOOLS_CHANGED`: fire `toolchange` when done.
    Relist,
}

/// A listing in progress.
#[derive(Debug)]
pub(crate) struct Listing {
    /// The windows asked, with where they sit.
    targets: Vec<(WindowId, Locator)>,
    answered: Vec<bool>,
    /// For each target asked on a private port, the peer whose port it was.
    on_port: Vec<Option<PeerId>>,
    /// Which origins' tools are returned besides the page's own.
    from_origins: OriginList,
    waiters: Vec<ListWaiter>,
    /// Whether an answer changed what a window lists: a relist fires `toolchange` only then, so that a window hears
    /// of a change only when what it can list changed (a notice from a window whose list stayed the same, or from
    /// one that sends notices at will, fires nothing).
    changed: bool,
}

impl Session {
    /// `getTools`: asks the windows around this page (and those the page passed in).
    pub(crate) fn list_tools(&mut self, request: ListRequest) {
        let ListRequest { waiter, from_origins, windows, origin_hints, timeout_ms } = request;
        for pattern in &from_origins {
            if let OriginPattern::Exact(exact) = pattern
                && !self.listing.interest.iter().any(|(o, _)| o.as_str() == exact.as_str())
            {
                self.listing.interest.push((TupleOrigin::from(exact), Some(exact.clone())));
            }
        }
        let mut targets: Vec<(WindowId, Locator)> = Vec::new();
        for (window, locator) in windows {
            if window != WindowId::SELF && !targets.iter().any(|(w, _)| *w == window) {
                targets.push((window, locator));
            }
        }
        let timeout = timeout_ms.unwrap_or(self.config.discovery_timeout_ms);
        self.ask_for_tools(targets, from_origins, &origin_hints, timeout, ListWaiter::Page(waiter));
    }

    fn ask_for_tools(
        &mut self,
        targets: Vec<(WindowId, Locator)>,
        from_origins: OriginList,
        hints: &[WindowOrigin],
        timeout_ms: u32,
        waiter: ListWaiter,
    ) {
        let id = self.listing.next_listing;
        self.listing.next_listing = self.listing.next_listing.wrapping_add(1).max(1);
        // The origins to address requests to: never an opaque one (this page's own, when it is opaque, or a hint).
        let mut origins: Vec<TupleOrigin> = self.config.own_origin.tuple().cloned().into_iter().collect();
        for pattern in &from_origins {
            match pattern {
                OriginPattern::Wildcard(_) => origins.extend(
                    hints.iter().filter_map(WindowOrigin::tuple).filter(|h| pattern.matches(h.as_str())).cloned(),
                ),
                OriginPattern::Exact(exact) => origins.push(TupleOrigin::from(exact)),
            }
        }
        origins.dedup();
        let mut on_port = Vec::with_capacity(targets.len());
        // A window is asked only with an unguessable request id: when the page's random numbers fail, it is not
        // asked (the listing ends at its time limit) and the page is warned.
        let mut unasked = false;
        for (window, locator) in &targets {
            if let Some(facts) = self.windows.get_mut(window) {
                if locator.is_known() {
                    facts.locator = locator.clone();
                }
            } else {
                let facts =
                    crate::session::WindowFacts { locator: locator.clone(), ancestor: *locator == Locator::Parent };
                self.windows.insert(*window, facts);
            }
            // A window we have a port to is asked on the port, at its one known origin.
            let connected = self
                .peers
                .iter()
                .find(|p| p.ours.is_some() && p.window == *window)
                .and_then(|p| p.origin.tuple().filter(|o| origins.contains(o)).map(|o| (p.id, o.clone())));
            on_port.push(connected.as_ref().map(|(peer, _)| *peer));
            if let Some((peer, origin)) = connected {
                let Ok(request_id) = self.ids.request_id("g_") else {
                    unasked = true;
                    continue;
                };
                self.listing.asked.insert(request_id.clone(), Asked { listing: id, window: *window, origin });
                self.send(peer, &Message::GetToolsRequest { request_id, bridge: true });
                continue;
            }
            for origin in &origins {
                let Ok(request_id) = self.ids.request_id("g_") else {
                    unasked = true;
                    break;
                };
                self.listing
                    .asked
                    .insert(request_id.clone(), Asked { listing: id, window: *window, origin: origin.clone() });
                let message = Message::GetToolsRequest { request_id, bridge: true };
                self.effects.push_back(Effect::Post {
                    window: *window,
                    origin: origin.clone(),
                    message,
                    open_port: None,
                });
            }
        }
        if unasked {
            self.effects.push_back(Effect::Warn(NOT_ASKED.to_owned()));
        }
        let answered = vec![false; targets.len()];
        let empty = targets.is_empty();
        let waiters = vec![waiter];
        self.listing.listings.insert(id, Listing { targets, answered, on_port, from_origins, waiters, changed: false });
        if empty {
            self.finish_listing(id);
        } else {
            self.timers.set(Timer::Listing(id), self.now + u64::from(timeout_ms));
        }
    }

    /// `WEBMCP_GET_TOOLS_RESPONSE`: kept only from the window asked, at the origin it was asked at.
    pub(crate) fn on_tools_listed(&mut self, from: &Sender, response: GetToolsResponse) {
        let GetToolsResponse { request_id, tools, bridge } = response;
        let Some(asked) = self.listing.asked.get(&request_id).cloned() else {
            return self.refuse(RefusalKind::UnsolicitedResponse, &from.origin, "a tool list nobody asked for");
        };
        let from_window = self.peers.get(from.peer).map(|p| p.window);
        if from.origin.tuple() != Some(&asked.origin) || from_window != Some(asked.window) {
            return self.refuse(
                RefusalKind::UnsolicitedResponse,
                &from.origin,
                "a tool list from a window that was not asked",
            );
        }
        self.listing.asked.remove(&request_id);
        let locator = self
            .listing
            .listings
            .get(&asked.listing)
            .and_then(|l| l.targets.iter().find(|(w, _)| *w == asked.window).map(|(_, l)| l.clone()))
            .unwrap_or(Locator::Unknown);
        let peer_id = self.peers.upsert(asked.window, &asked.origin, &locator);
        let mut changed = false;
        if let Some(peer) = self.peers.get_mut(peer_id) {
            changed = peer.tools != tools;
            peer.tools = tools;
            peer.bridge |= bridge;
        }
        if bridge {
            self.connect(peer_id);
        }
        let done = match self.listing.listings.get_mut(&asked.listing) {
            Some(listing) => {
                listing.changed |= changed;
                if let Some(i) = listing.targets.iter().position(|(w, _)| *w == asked.window) {
                    listing.answered[i] = true;
                }
                listing.answered.iter().all(|a| *a)
            }
            None => false,
        };
        if done {
            self.finish_listing(asked.listing);
        }
    }

    /// Ends a listing: this page's tools, then the tools of every live peer that was asked and whose origin is
    /// this page's or allowed.
    pub(crate) fn finish_listing(&mut self, id: u32) {
        self.timers.clear(&Timer::Listing(id));
        let Some(listing) = self.listing.listings.remove(&id) else { return };
        self.listing.asked.retain(|_, asked| asked.listing != id);
        // A peer that said nothing on its port in a whole listing may have lost the document at the other end (a
        // frame that crashed and reloaded fires nothing here): the port is dropped, and the next listing asks by
        // window and sets up a new one.
        for (answered, peer) in listing.answered.iter().zip(&listing.on_port) {
            if let (false, Some(peer)) = (answered, peer) {
                self.drop_our_port(*peer);
            }
        }
        let own = self.config.own_origin.clone();
        let mut tools: Vec<ListedTool> = self
            .catalog
            .all()
            .iter()
            .map(|t| ListedTool {
                descriptor: t.descriptor(&own),
                origin: own.clone(),
                peer: PeerId::SELF,
                window: WindowId::SELF,
            })
            .collect();
        for peer in self.peers.iter() {
            let asked = listing.targets.iter().any(|(w, _)| *w == peer.window);
            let wanted = peer.origin == own || peer.origin.allowed_by(&listing.from_origins);
            if peer.id != PeerId::SELF && asked && wanted {
                tools.extend(peer.tools.iter().map(|t| ListedTool {
                    descriptor: t.clone(),
                    origin: peer.origin.clone(),
                    peer: peer.id,
                    window: peer.window,
                }));
            }
        }
        // In the order of names, for every API (tools of one name in the order the windows answered in).
        crate::call_path::sort_listing(&mut tools, |a, b| a.descriptor.name.as_str() > b.descriptor.name.as_str());
        for waiter in listing.waiters {
            match waiter {
                ListWaiter::Page(waiter) => self.effects.push_back(Effect::Listed { waiter, tools: tools.clone() }),
                ListWaiter::Relist if listing.changed => self.effects.push_back(Effect::ToolChange),
                ListWaiter::Relist => {}
            }
        }
    }

    /// Sets up a private port to a bridge peer (docs/protocol.md, `WEBMCP_CONNECT`): the port of this page's calls
    /// to it, once it listed a tool this page can call (a provider refuses a port from an origin that sees none of
    /// its tools). The peer's calls to this page, if it makes any, take a port of its own. A handshake that had no
    /// answer within [`HANDSHAKE_WAIT_MS`] (its answer lost, or refused because the peer's tools changed) is given
    /// up at the next listing, and a new one starts: until one completes, calls go by window messages.
    fn connect(&mut self, peer_id: PeerId) {
        let now = self.now;
        let stale = self.peers.get_mut(peer_id).and_then(|peer| {
            let (_, link, sent) = peer.connecting.as_ref()?;
            let port = link.port;
            (now >= sent.saturating_add(HANDSHAKE_WAIT_MS)).then(|| {
                peer.connecting = None;
                port
            })
        });
        if let Some(port) = stale {
            self.peers.drop_port(port);
            self.effects.push_back(Effect::ClosePort(port));
        }
        // A peer reached by message is at a tuple origin (only this page and a native peer can be opaque).
        let ready = self.peers.get(peer_id).filter(|peer| {
            peer_id != PeerId::SELF
                && peer.ours.is_none()
                && peer.connecting.is_none()
                && !peer.gone
                && !peer.tools.is_empty()
        });
        let Some((window, origin)) = ready.and_then(|peer| Some((peer.window, peer.origin.tuple()?.clone()))) else {
            return;
        };
        // Without random numbers for the handshake's id there is no port: the peer is reached by window messages.
        let Ok(request_id) = self.ids.request_id("p_") else { return };
        let port = self.new_port_id();
        let Some(peer) = self.peers.get_mut(peer_id) else { return };
        peer.connecting = Some((request_id.clone(), Link::new(port), now));
        self.peers.note_port(port, peer_id, PortSide::Ours);
        let message = Message::Connect { request_id, utf8_batches: true };
        self.effects.push_back(Effect::Post { window, origin, message, open_port: Some(port) });
    }

    fn drop_our_port(&mut self, peer: PeerId) {
        let Some(link) = self.peers.get_mut(peer).and_then(|p| p.ours.take()) else { return };
        self.peers.drop_port(link.port);
        self.effects.push_back(Effect::ClosePort(link.port));
    }

    /// `WEBMCP_CONNECTED` on the port we set up: from now on our calls to the peer take it.
    pub(crate) fn on_connected(&mut self, from: &Sender, request_id: &RequestId, utf8_batches: bool) {
        let Some(peer) = self.peers.get_mut(from.peer) else { return };
        if from.via != Via::Port(PortSide::Ours) || peer.connecting.as_ref().is_none_or(|(id, _, _)| id != request_id) {
            return;
        }
        if let Some((_, mut link, _)) = peer.connecting.take() {
            link.utf8 = utf8_batches;
            peer.ours = Some(link);
        }
    }

    /// `WEBMCP_TOOLS_CHANGED` from a window of an origin this page cares about: list its tools again, debounced.
    /// A window of an origin this page never asked about is one that registered a tool exposed to this page's
    /// origin (a provider tells the windows around it at the exact origins of a new tool's `exposedTo`): its
    /// origin becomes one this page cares about (at most [`MAX_INTEREST`] of them) when the window is in this page's
    /// frame tree (its parent, a sibling or a child frame), so that the page hears of a tool exposed to it without
    /// having named its origin first, as native's `toolchange` does.
    pub(crate) fn on_tools_changed(&mut self, from: &Sender) {
        let Some(tuple) = from.origin.tuple() else { return };
        if from.peer == PeerId::SELF {
            return;
        }
        if !self.listing.interest.iter().any(|(i, _)| i == tuple) {
            // Only a window of this page's frame tree, as the spec's `toolchange` reaches only those: an opener, a
            // popup or a window passed in is listed at the origins the page names, never on its own notice.
            let in_frame_tree = self.peers.get(from.peer).is_some_and(|peer| {
                matches!(peer.locator, Locator::Parent | Locator::ParentFrame(_) | Locator::Frame(_))
            });
            let Some(exact) =
                exact_origin(tuple).filter(|_| in_frame_tree && self.listing.interest.len() < MAX_INTEREST)
            else {
                return;
            };
            self.listing.interest.push((tuple.clone(), Some(exact)));
        }
        let at = self.now + u64::from(self.config.toolchange_debounce_ms);
        self.timers.set(Timer::Relist(from.peer), at);
    }

    pub(crate) fn relist(&mut self, peer_id: PeerId) {
        let Some(peer) = self.peers.get(peer_id).filter(|p| !p.gone) else { return };
        let target = (peer.window, peer.locator.clone());
        let Some(origin) = peer.origin.tuple() else { return };
        // Only that origin's tools besides the page's own: its list entry, or nothing more for the page's origin.
        let Some((_, entry)) = self.listing.interest.iter().find(|(o, _)| o == origin) else { return };
        let only = entry.clone().map_or_else(OriginList::empty, OriginList::from);
        let timeout = self.config.discovery_timeout_ms;
        self.ask_for_tools(vec![target], only, &[], timeout, ListWaiter::Relist);
    }
}

/// The warning of a listing that could not ask a window.
const NOT_ASKED: &str = "getTools left windows unasked: random numbers failed";

/// How many origins a page relists on their change notices (those it named in `fromOrigins` and those that told it
/// of a tool exposed to it), so that windows sending notices from many origins cannot grow the list without end.
const MAX_INTEREST: usize = 64;

/// The exact origin of a window's tuple origin, read from the browser's serialization (`scheme://host[:port]`, the
/// port only when it is not the scheme's default; an IPv6 host in brackets).
fn exact_origin(tuple: &TupleOrigin) -> Option<Origin> {
    let (scheme, rest) = tuple.as_str().split_once("://")?;
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port.parse::<u16>().ok()?)),
        _ => (rest, None),
    };
    (!host.is_empty()).then(|| Origin::from_parts(scheme, host, port))
}
