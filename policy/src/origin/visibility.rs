//! Which callers see a tool.

use super::OriginList;

/// Whether a tool is visible to (listed for, and callable by) the window whose `event.origin` is `caller`.
///
/// Visible when `caller` is the tool owner's own origin (`owner_origin`), or is allowed by the tool's own list
/// (`exposedTo`) when it has one, otherwise by the page's list (`expose-tools-to`). A tool's own list replaces
/// the page's list rather than adding to it. An opaque caller (`"null"`) never sees a tool, not even when the
/// owner is opaque too.
///
/// ```
/// use interpane_policy::{OriginList, tool_visible_to};
///
/// let page = OriginList::parse("https://shop.example, https://pay.example")?;
/// let tool = OriginList::parse("https://pay.example")?;
/// let owner = "https://store.example";
/// assert!(tool_visible_to("https://shop.example", owner, None, &page));
/// assert!(!tool_visible_to("https://shop.example", owner, Some(&tool), &page));
/// assert!(tool_visible_to(owner, owner, Some(&OriginList::empty()), &page));
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
pub fn tool_visible_to(
    caller: &str,
    owner_origin: &str,
    tool_exposed_to: Option<&OriginList>,
    page_expose_tools_to: &OriginList,
) -> bool {
    if caller == "null" {
        return false;
    }
    if caller == owner_origin {
        return true;
    }
    tool_exposed_to.unwrap_or(page_expose_tools_to).allows(caller)
}
