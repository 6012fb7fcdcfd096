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
/// registered it with native only); a name native lists twice for one window is kept once. The result is in the
/// order of names, as every listing of the bridge is (`getTools()` in both APIs): among equal names, the
/// bridge's entries first in their order, then native's in theirs.
///
/// ```
/// use interpane_policy::call_path::{Merged, merge_listings};
///
/// let bridge = [(1, "add"), (0, "own")];
/// let native = [(0, "own"), (1, "add"), (2, "book")];
/// assert_eq!(merge_listings(&bridge, &native), [Merged::Bridge(0), Merged::Native(2), Merged::Bridge(1)]);
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
    let name = |entry: &Merged| match *entry {
        Merged::Bridge(i) => bridge[i].1,
        Merged::Native(i) => native[i].1,
    };
    sort_listing(&mut merged, |a, b| name(a) > name(b));
    merged
}

/// Puts a listing in the order of names, the order of every listing (the spec's): `after(a, b)` says whether `a`'s
/// name sorts after `b`'s. Stable, so that tools of one name keep the order they came in. An insertion sort:
/// listings are short, and a library sort's code would be one more copy in the wasm.
pub(crate) fn sort_listing<T>(items: &mut [T], after: impl Fn(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && after(&items[j - 1], &items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// What to ask native's `getTools` for, in order, when the page lists tools `fromOrigins` where the browser has
/// native WebMCP: the next ask is made only when native refused the one before it (it rejects a whole list for one
/// origin it does not take).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeAsk {
    /// `getTools({ fromOrigins })` with these exact origins (native takes no wildcard).
    FromOrigins(Vec<String>),
    /// `getTools()`: the tools native lists by default (the page's own origin's).
    OwnOrigin,
}

/// The asks of a native listing for `from_origins` (see [`NativeAsk`]): with exact origins, those first, then the
/// page's own origin's tools rather than none when native refuses them; without any (no list, or wildcards only),
/// the page's own origin's. When native refuses every ask, the listing has no native tools.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::call_path::{NativeAsk, native_asks};
/// use interpane_policy::OriginList;
///
/// let list = OriginList::parse("https://a.example")?;
/// assert_eq!(native_asks(&list), [NativeAsk::FromOrigins(vec!["https://a.example".into()]), NativeAsk::OwnOrigin]);
/// assert_eq!(native_asks(&OriginList::empty()), [NativeAsk::OwnOrigin]);
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
pub fn native_asks(from_origins: &crate::OriginList) -> Vec<NativeAsk> {
    let exact: Vec<String> = from_origins.iter().filter(|p| !p.is_wildcard()).map(|p| p.as_str().to_owned()).collect();
    if exact.is_empty() {
        return vec![NativeAsk::OwnOrigin];
    }
    vec![NativeAsk::FromOrigins(exact), NativeAsk::OwnOrigin]
}

#[cfg(all(test, feature = "url"))]
mod tests {
    use super::*;
    use crate::{OriginList, ParseOptions};

    #[test]
    fn native_is_asked_for_exact_origins_then_the_pages_own() {
        let options = ParseOptions::default().allow_wildcards(true);
        let mixed = OriginList::parse_with("https://*.a.example, https://b.example", options).unwrap();
        assert_eq!(
            native_asks(&mixed),
            [NativeAsk::FromOrigins(vec!["https://b.example".into()]), NativeAsk::OwnOrigin]
        );
        let wildcards = OriginList::parse_with("https://*.a.example", options).unwrap();
        assert_eq!(native_asks(&wildcards), [NativeAsk::OwnOrigin]);
    }
}
