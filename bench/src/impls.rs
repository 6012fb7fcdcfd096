//! The implementations compared, as the pages name them (`pages/lib/impls.js` holds the same list).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One way for a page to call a function in a cross-origin iframe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impl {
    /// Hand-written ping-pong on a transferred `MessagePort`: the floor every figure is compared to.
    Port,
    /// Hand-written ping-pong with window messages.
    Window,
    /// penpal 7 (window handshake, then a `MessagePort`).
    Penpal,
    /// comlink 4 over window messages.
    Comlink,
    /// interpane: `getTools`, then `executeTool` (on the private port the two bridges set up).
    Bridge,
    /// interpane kept on window messages (the iframe never answers the port offer).
    BridgeWindow,
    /// Diagnostic: interpane on its port with both call journals in memory instead of sessionStorage.
    BridgeMemory,
    /// Diagnostic: the floor plus the least journaling once-only with nothing lost needs (sessionStorage records
    /// with the payloads' text on both sides), in plain JavaScript (`pages/lib/journaled-port.js`).
    PortJournaled,
    /// Diagnostic: the floor plus only the two small records written before anything happens, one per side.
    PortWriteAhead,
}

impl Impl {
    /// Every implementation, the floor first.
    pub const ALL: [Impl; 9] = [
        Impl::Port,
        Impl::Window,
        Impl::Penpal,
        Impl::Comlink,
        Impl::Bridge,
        Impl::BridgeWindow,
        Impl::BridgeMemory,
        Impl::PortJournaled,
        Impl::PortWriteAhead,
    ];

    /// The floor the ratios are computed against.
    pub const FLOOR: Impl = Impl::Port;

    /// The name in URLs, options and results.json.
    pub fn name(self) -> &'static str {
        match self {
            Impl::Port => "port",
            Impl::Window => "window",
            Impl::Penpal => "penpal",
            Impl::Comlink => "comlink",
            Impl::Bridge => "bridge",
            Impl::BridgeWindow => "bridge-window",
            Impl::BridgeMemory => "bridge-memory",
            Impl::PortJournaled => "port-journaled",
            Impl::PortWriteAhead => "port-write-ahead",
        }
    }

    /// A description for the report's first column.
    pub fn label(self) -> &'static str {
        match self {
            Impl::Port => "hand-written MessagePort ping-pong (floor)",
            Impl::Window => "hand-written window.postMessage ping-pong",
            Impl::Penpal => "penpal 7.0.6 (port after handshake)",
            Impl::Comlink => "comlink 4.4.2 (window messages)",
            Impl::Bridge => "interpane executeTool (private port)",
            Impl::BridgeWindow => "interpane executeTool (window messages)",
            Impl::BridgeMemory => "diagnostic: interpane, port, journals in memory",
            Impl::PortJournaled => "diagnostic: the floor + the least journaling (plain JS)",
            Impl::PortWriteAhead => "diagnostic: the floor + two small records written ahead",
        }
    }

    /// Every name, in the order of [`Impl::ALL`], joined by commas.
    pub fn names() -> String {
        Impl::ALL.map(Impl::name).join(", ")
    }

    /// Whether the cold-start page measures this implementation (the hand-written ones have nothing to load).
    pub fn has_cold_start(self) -> bool {
        matches!(self, Impl::Penpal | Impl::Comlink | Impl::Bridge)
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Impl::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown implementation {0:?}: use one of {names}", names = Impl::names())]
pub struct UnknownImpl(pub String);

impl FromStr for Impl {
    type Err = UnknownImpl;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Impl::ALL.into_iter().find(|i| i.name() == name).ok_or_else(|| UnknownImpl(name.to_owned()))
    }
}

/// The order of round `round`: `impls` rotated by the round number, so that no implementation always runs first
/// (right after a page load) or last.
pub fn round_order(impls: &[Impl], round: usize) -> Vec<Impl> {
    if impls.is_empty() {
        return Vec::new();
    }
    let shift = round % impls.len();
    impls[shift..].iter().chain(&impls[..shift]).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for i in Impl::ALL {
            assert_eq!(i.name().parse::<Impl>(), Ok(i));
        }
        assert_eq!("Port".parse::<Impl>(), Err(UnknownImpl("Port".into())));
        assert_eq!(serde_json::to_string(&Impl::BridgeWindow).unwrap(), "\"bridge-window\"");
    }

    #[test]
    fn rounds_rotate_the_order() {
        let impls = [Impl::Port, Impl::Window, Impl::Bridge];
        let cases: [(usize, [Impl; 3]); 4] = [
            (0, [Impl::Port, Impl::Window, Impl::Bridge]),
            (1, [Impl::Window, Impl::Bridge, Impl::Port]),
            (2, [Impl::Bridge, Impl::Port, Impl::Window]),
            (3, [Impl::Port, Impl::Window, Impl::Bridge]),
        ];
        for (round, expected) in cases {
            assert_eq!(round_order(&impls, round), expected, "round {round}");
        }
        assert_eq!(round_order(&[], 2), Vec::<Impl>::new());
    }

    #[test]
    fn the_page_list_matches() {
        let js = include_str!("../pages/lib/impls.js");
        let names: Vec<String> = Impl::ALL.iter().map(|i| format!("\"{}\"", i.name())).collect();
        assert!(js.contains(&format!("[{}]", names.join(", "))), "pages/lib/impls.js lists other implementations");
    }
}
