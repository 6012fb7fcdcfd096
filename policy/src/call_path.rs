//! Which way a call of a listed tool goes where the browser has native WebMCP: the bridge's protocol or the
//! browser's own `executeTool` (docs/native.md, "The path of a call").

/// The way a call of one listed tool takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallPath {
    /// The bridge's protocol: `status`/`retryAfter`, argument checks, `callId`, once-only and `toolresult`.
    Bridge,
    /// The browser's own `executeTool`: what native does, nothing more.
    Native,
}

impl CallPath {
    /// `"bridge"` or `"native"`, as the tool objects of `getTools` carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            CallPath::Bridge => "bridge",
            CallPath::Native => "native",
        }
    }
}

/// One entry of the merged list: which listing it comes from (its index there) and the path its calls take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merged {
    /// Entry `index` of the bridge's listing.
    Bridge(usize),
    /// Entry `index` of native's listing.
    Native(usize),
}

impl Merged {
    /// The path a call of this entry takes.
    pub fn path(self) -> CallPath {
        match self {
            Merged::Bridge(_) => CallPath::Bridge,
            Merged::Native(_) => CallPath::Native,
        }
    }
}

/// Merges what the bridge's protocol listed and what native `getTools` listed into one list in which each tool
/// (the same window and the same name) appears once.
///
/// Each listing names its tools as `(window, name)`, `window` being a number the caller gives each window (the
/// same number for the same window in both listings). The rule: a tool the bridge listed takes the bridge's path
/// (its page runs the bridge, which keeps `status`, `retryAfter`, argument checks, `callId` and once-only, none of
/// which native carries); a tool only native listed takes native's path (its page runs native WebMCP only, or
/// registered it with native only). The bridge's entries come first, in their order, then native's that are
/// left, in theirs; a name native lists twice for one window is kept once.
///
/// ```
/// use interpane_policy::call_path::{Merged, merge_listings};
///
/// let bridge = [(1, "add"), (0, "own")];
/// let native = [(0, "own"), (1, "add"), (2, "search")];
/// assert_eq!(merge_listings(&bridge, &native), [Merged::Bridge(0), Merged::Bridge(1), Merged::Native(2)]);
/// ```
pub fn merge_listings(bridge: &[(usize, &str)], native: &[(usize, &str)]) -> Vec<Merged> {
    let mut merged: Vec<Merged> = (0..bridge.len()).map(Merged::Bridge).collect();
    let mut seen: Vec<(usize, &str)> = bridge.to_vec();
    for (index, key) in native.iter().enumerate() {
        if !seen.contains(key) {
            seen.push(*key);
            merged.push(Merged::Native(index));
        }
    }
    merged
}
