//! The names the session and its driver use for the things they share: windows and ports (handles the driver
//! holds), the page's callers (promises or futures the driver holds), declarative forms (named by the driver's form
//! watcher), tool runs and registrations (which the session gives out), and peers (a window at one origin).

use std::fmt;

/// A window the driver knows (a `WindowProxy`), named by the driver. [`WindowId::SELF`] is this page's own window.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowId(pub u32);

impl WindowId {
    /// This page's own window.
    pub const SELF: WindowId = WindowId(0);
}

/// A `MessagePort` the driver holds, named by the session (see [`crate::session::Input::NewPort`]).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortId(pub u32);

/// Someone in this page who waits for an answer (a JavaScript promise or a Rust future), named by the driver.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WaiterId(pub u64);

/// A `<form toolname>` of the page, named by the driver's form watcher (`js/forms/watch.js`) for as long as it is
/// in the page; ids grow in the order forms were found, so the first form found is the one with the lowest id.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormId(pub u32);

/// One run of one of this page's tools, named by the session.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(pub u32);

/// One registration of a tool of this page: a later registration of the same name is another, so that an old guard
/// cannot remove it.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Registration(pub u64);

/// A window this page talks to, at one origin. The same window at another origin (after it navigated) is another
/// peer: nothing learned from one origin ever applies to the other. [`PeerId::SELF`] is this page calling itself.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PeerId(pub u32);

impl PeerId {
    /// This page, for calls to its own tools.
    pub const SELF: PeerId = PeerId(0);
}

/// Where a window sits around this page, so that a page that reloads finds the window of its calls again. Stored in
/// the consumer journal as text (`"self"`, `"parent"`, `"parent/2"`, `"frame/0"`, `"opener"`, `"unknown"`).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Locator {
    /// This page.
    SelfPage,
    /// The parent window.
    Parent,
    /// The parent's frame at this index (this page's sibling, or this page itself).
    ParentFrame(u32),
    /// This page's frame at this index.
    Frame(u32),
    /// The window that opened this page.
    Opener,
    /// A window that cannot be found again after a reload (a popup this page opened, a window passed in).
    Unknown,
}

impl Locator {
    /// Reads the stored form; anything else is [`Locator::Unknown`].
    pub fn parse(text: &str) -> Self {
        let indexed = |rest: &str| rest.parse::<u32>().ok();
        match text {
            "self" => Self::SelfPage,
            "parent" => Self::Parent,
            "opener" => Self::Opener,
            _ => match text.split_once('/') {
                Some(("parent", rest)) => indexed(rest).map_or(Self::Unknown, Self::ParentFrame),
                Some(("frame", rest)) => indexed(rest).map_or(Self::Unknown, Self::Frame),
                _ => Self::Unknown,
            },
        }
    }

    /// Whether the window can be found again after a reload.
    pub fn is_known(&self) -> bool {
        *self != Self::Unknown
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SelfPage => f.write_str("self"),
            Self::Parent => f.write_str("parent"),
            Self::ParentFrame(i) => write!(f, "parent/{i}"),
            Self::Frame(i) => write!(f, "frame/{i}"),
            Self::Opener => f.write_str("opener"),
            Self::Unknown => f.write_str("unknown"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Locator;

    #[test]
    fn locators_read_back_what_they_write() {
        for text in ["self", "parent", "parent/2", "frame/0", "opener", "unknown"] {
            assert_eq!(Locator::parse(text).to_string(), text);
        }
        for bad in ["", "frame/", "frame/x", "top/1", "parent/-1", "frames/1"] {
            assert_eq!(Locator::parse(bad), Locator::Unknown, "{bad:?}");
        }
    }
}
