//! [`WindowOrigin`]: the origin of a window as the browser reports it (`event.origin`, `window.origin`, a native
//! tool's `origin`), opaque or a tuple; [`TupleOrigin`]: the kind a message can be addressed to.

use std::fmt;
use std::sync::Arc;

use super::{Origin, OriginList};

/// How the browser serializes every opaque origin (a sandboxed frame, a `data:` URL...).
pub(crate) const OPAQUE_SERIALIZATION: &str = "null";

/// The origin of a window, as the browser reports it: opaque, or a tuple (scheme, host, port) in the browser's
/// serialization. Modelled on rust-url's `url::Origin` (`Opaque` / `Tuple`).
///
/// This is not [`Origin`], which is an entry someone wrote in a list, parsed with the list's rules (https, or
/// http on a trustworthy host; never opaque). A window can be at any origin — `http://shop.example`, a browser
/// extension's, an opaque one — and the session must still hear of it to refuse it, so this type takes whatever
/// the browser says. The browser's serialization is canonical already: it is checked for its shape, not parsed
/// again (this runs for every message).
///
/// An opaque origin has no text to address a message to (a post to it would need `'*'`), is in no list, and sees
/// no tool: [`WindowOrigin::allowed_by`] is always false for it, and only a [`TupleOrigin`] can be the address of
/// a post. Two opaque origins compare equal as values (the session never takes that to mean "same origin": it
/// refuses every opaque sender before looking further).
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::{OriginList, WindowOrigin};
///
/// let list = OriginList::parse("https://shop.example")?;
/// let shop = WindowOrigin::from_browser("https://shop.example");
/// assert!(shop.allowed_by(&list));
/// assert_eq!(shop.tuple().map(|t| t.as_str()), Some("https://shop.example"));
///
/// let sandboxed = WindowOrigin::from_browser("null");
/// assert!(sandboxed.is_opaque() && !sandboxed.allowed_by(&list));
/// assert_eq!(sandboxed.to_string(), "null");
/// # }
/// # Ok::<(), interpane_policy::OriginListError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WindowOrigin {
    /// An opaque origin, which the browser reports as `"null"`.
    Opaque,
    /// A tuple origin: a message can be addressed to it.
    Tuple(TupleOrigin),
}

impl WindowOrigin {
    /// The origin the browser's text stands for: `"null"` is opaque, a serialized tuple origin
    /// (`scheme://host[:port]`) is that tuple. Text no browser gives for a window (empty, with a path, with
    /// spaces...) is taken as opaque too: it can be neither allowed nor addressed.
    pub fn from_browser(text: &str) -> Self {
        TupleOrigin::from_browser(text).map_or(Self::Opaque, Self::Tuple)
    }

    /// Whether the origin is opaque.
    pub fn is_opaque(&self) -> bool {
        matches!(self, Self::Opaque)
    }

    /// The tuple origin, if it is one.
    pub fn tuple(&self) -> Option<&TupleOrigin> {
        match self {
            Self::Opaque => None,
            Self::Tuple(tuple) => Some(tuple),
        }
    }

    /// The browser's serialization: `"null"` for an opaque origin. For messages to the console and text that
    /// leaves the session (a tool's `origin`, journal keys); never for deciding.
    pub fn serialization(&self) -> &str {
        match self {
            Self::Opaque => OPAQUE_SERIALIZATION,
            Self::Tuple(tuple) => tuple.as_str(),
        }
    }

    /// Whether `list` allows this origin. An opaque origin never is allowed.
    pub fn allowed_by(&self, list: &OriginList) -> bool {
        self.tuple().is_some_and(|tuple| list.allows(tuple.as_str()))
    }
}

impl From<TupleOrigin> for WindowOrigin {
    fn from(tuple: TupleOrigin) -> Self {
        Self::Tuple(tuple)
    }
}

impl fmt::Display for WindowOrigin {
    /// The browser's serialization (`"null"` when opaque).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.serialization())
    }
}

impl fmt::Debug for WindowOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Opaque => f.write_str("Opaque"),
            Self::Tuple(tuple) => write!(f, "Tuple({:?})", tuple.as_str()),
        }
    }
}

/// A tuple origin in the browser's serialization (`https://shop.example`, `http://localhost:8080`): what a
/// message is addressed to (`postMessage(message, origin)`), so never `'*'` and never opaque.
///
/// Cheap to clone (the text is shared). Built from the browser's text ([`TupleOrigin::from_browser`],
/// [`WindowOrigin::from_browser`]) or from a list's exact entry (`From<&Origin>`, sharing its text).
///
/// A post carries one, so it cannot be addressed to an opaque origin:
///
/// ```
/// use interpane_policy::envelope::Message;
/// use interpane_policy::session::{Effect, WindowId};
/// use interpane_policy::TupleOrigin;
///
/// let origin = TupleOrigin::from_browser("https://shop.example").expect("a tuple origin");
/// let post = Effect::Post { window: WindowId(1), origin, message: Message::ToolsChanged, open_port: None };
/// assert!(TupleOrigin::from_browser("null").is_none());
/// # drop(post);
/// ```
///
/// ```compile_fail
/// use interpane_policy::envelope::Message;
/// use interpane_policy::session::{Effect, WindowId};
/// use interpane_policy::WindowOrigin;
///
/// let origin = WindowOrigin::Opaque;
/// let post = Effect::Post { window: WindowId(1), origin, message: Message::ToolsChanged, open_port: None };
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TupleOrigin(Arc<str>);

impl TupleOrigin {
    /// The tuple origin of the browser's text, or `None` when the text is not the serialization of one: `"null"`
    /// (opaque), or text without the shape `scheme://host[:port]` (a scheme of letters, digits, `+`, `-`, `.`
    /// starting with a letter; a host of printable ASCII without `/`, `?`, `#`, `@`, `\`, `*`). The browser's
    /// serialization is trusted to be canonical; only its shape is checked.
    pub fn from_browser(text: &str) -> Option<Self> {
        has_tuple_shape(text).then(|| Self(Arc::from(text)))
    }

    /// The serialization, as in `event.origin`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether `text` looks like a serialized tuple origin: `scheme://host[:port]`.
fn has_tuple_shape(text: &str) -> bool {
    let Some((scheme, host)) = text.split_once("://") else { return false };
    let mut scheme_bytes = scheme.bytes();
    let scheme_ok = scheme_bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && scheme_bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    scheme_ok
        && !host.is_empty()
        && host.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'/' | b'?' | b'#' | b'@' | b'\\' | b'*'))
}

impl From<&Origin> for TupleOrigin {
    /// An exact entry of a list, which is a tuple origin in the browser's serialization.
    fn from(origin: &Origin) -> Self {
        Self(Arc::clone(origin.shared()))
    }
}

impl AsRef<str> for TupleOrigin {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TupleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for TupleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TupleOrigin({:?})", &*self.0)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_browsers_text_is_opaque_or_a_tuple() {
        let cases: &[(&str, Option<&str>)] = &[
            ("null", None),
            ("https://shop.example", Some("https://shop.example")),
            ("http://localhost:8080", Some("http://localhost:8080")),
            ("http://[::1]:8080", Some("http://[::1]:8080")),
            ("https://xn--bcher-kva.example", Some("https://xn--bcher-kva.example")),
            ("chrome-extension://abcdefghijklmnop", Some("chrome-extension://abcdefghijklmnop")),
            // No browser reports these for a window: taken as opaque, never addressed.
            ("", None),
            ("*", None),
            ("NULL", None),
            ("file://", None),
            ("https://", None),
            ("https://shop.example/", None),
            ("https://shop.example/path", None),
            ("https://shop .example", None),
            ("https://user@shop.example", None),
            ("https://*.example", None),
            ("://shop.example", None),
            ("1https://shop.example", None),
        ];
        for (text, tuple) in cases {
            let origin = WindowOrigin::from_browser(text);
            assert_eq!(origin.tuple().map(TupleOrigin::as_str), *tuple, "{text:?}");
            assert_eq!(origin.is_opaque(), tuple.is_none(), "{text:?}");
            assert_eq!(TupleOrigin::from_browser(text).as_ref().map(TupleOrigin::as_str), *tuple, "{text:?}");
        }
    }

    #[test]
    #[cfg(feature = "url")]
    fn an_opaque_origin_serializes_as_null_and_is_never_allowed() {
        let opaque = WindowOrigin::from_browser("null");
        assert_eq!(opaque, WindowOrigin::Opaque);
        assert_eq!(opaque.serialization(), "null");
        assert_eq!(opaque.to_string(), "null");
        // Not even by a list that could name it (none can: "null" is refused as an entry).
        assert!(!opaque.allowed_by(&OriginList::empty()));
        let list = OriginList::parse("https://shop.example").expect("a valid list");
        assert!(!opaque.allowed_by(&list));
        assert!(WindowOrigin::from_browser("https://shop.example").allowed_by(&list));
        assert!(!WindowOrigin::from_browser("https://pay.example").allowed_by(&list));
    }

    #[test]
    #[cfg(feature = "url")]
    fn a_lists_exact_entry_is_a_tuple_with_the_same_text() {
        let entry = Origin::parse_entry("HTTPS://Shop.Example:443").expect("a valid entry");
        let tuple = TupleOrigin::from(&entry);
        assert_eq!(tuple.as_str(), "https://shop.example");
        assert_eq!(Some(tuple), TupleOrigin::from_browser("https://shop.example"));
    }
}
