//! Which callers see a tool.

use super::{OriginList, WindowOrigin};

/// Whether a tool is visible to (listed for, and callable by) the window at origin `caller`.
///
/// Visible when `caller` is the tool owner's own origin (`owner_origin`), or is allowed by the tool's own list
/// (`exposedTo`) when it has one, otherwise by the page's list (`expose-tools-to`). A tool's own list replaces
/// the page's list rather than adding to it. An opaque caller never sees a tool, not even when the owner is
/// opaque too.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::{OriginList, WindowOrigin, tool_visible_to};
///
/// let page = OriginList::parse("https://shop.example, https://pay.example")?;
/// let tool = OriginList::parse("https://pay.example")?;
/// let owner = WindowOrigin::from_browser("https://store.example");
/// let shop = WindowOrigin::from_browser("https://shop.example");
/// assert!(tool_visible_to(&shop, &owner, None, &page));
/// assert!(!tool_visible_to(&shop, &owner, Some(&tool), &page));
/// assert!(tool_visible_to(&owner, &owner, Some(&OriginList::empty()), &page));
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
pub fn tool_visible_to(
    caller: &WindowOrigin,
    owner_origin: &WindowOrigin,
    tool_exposed_to: Option<&OriginList>,
    page_expose_tools_to: &OriginList,
) -> bool {
    let WindowOrigin::Tuple(tuple) = caller else { return false };
    owner_origin.tuple() == Some(tuple) || caller.allowed_by(tool_exposed_to.unwrap_or(page_expose_tools_to))
}
