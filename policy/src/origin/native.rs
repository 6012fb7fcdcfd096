//! What a tool's visibility becomes in the browser's own WebMCP registry.

use super::{OriginList, OriginPattern};

/// The `exposedTo` list to pass to the browser's native `registerTool` for one tool, and the entries it cannot
/// carry.
///
/// Native WebMCP takes only an array of exact secure origins: a string is a `TypeError`, `"*"` (and any origin it
/// does not consider secure) a `SecurityError`, and it has no subdomain wildcards. The list given to native is
/// therefore the exact origins of the tool's own `exposedTo` when it has one, otherwise of the page's
/// `expose-tools-to` (the same list [`tool_visible_to`](super::tool_visible_to) applies). Every exact entry of an
/// [`OriginList`] is already secure (`https`, or `http` on loopback or `localhost` only), so all of them pass. A
/// wildcard entry is left out and reported in `left_out`: native never sees the tool more widely than the page
/// allowed, only possibly more narrowly (those origins still reach the tool through the bridge).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NativeExposure {
    /// Exact origins, in list order, for native `registerTool(tool, { exposedTo })`.
    pub exposed_to: Vec<String>,
    /// Entries native cannot express (subdomain wildcards), in list order.
    pub left_out: Vec<String>,
}

/// The [`NativeExposure`] of a tool with `tool_exposed_to` (its own list, if any) on a page whose
/// `expose-tools-to` is `page_expose_tools_to`.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::{OriginList, ParseOptions, native_exposure};
///
/// let page = OriginList::parse_with("https://a.example, https://*.b.example", ParseOptions::default().allow_wildcards(true))?;
/// let exposure = native_exposure(None, &page);
/// assert_eq!(exposure.exposed_to, ["https://a.example"]);
/// assert_eq!(exposure.left_out, ["https://*.b.example"]);
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
pub fn native_exposure(tool_exposed_to: Option<&OriginList>, page_expose_tools_to: &OriginList) -> NativeExposure {
    let list = tool_exposed_to.unwrap_or(page_expose_tools_to);
    let mut exposure = NativeExposure::default();
    for entry in list.iter() {
        match entry {
            OriginPattern::Exact(origin) => exposure.exposed_to.push(origin.as_str().to_owned()),
            OriginPattern::Wildcard(wildcard) => exposure.left_out.push(wildcard.as_str().to_owned()),
        }
    }
    exposure
}
