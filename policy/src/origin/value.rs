//! [`Origin`]: one web origin, canonical, as a browser reports it in `event.origin`.

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::entry::parse_exact;
use super::{OriginError, UrlParser};

/// A web origin: scheme (`https`, or `http` on a potentially trustworthy host), host and port, canonical.
///
/// The host is lowercase, internationalized names are in their ASCII (punycode) form, IPv6 addresses are in
/// brackets, and the scheme's default port is left out, so the text is exactly what a browser puts in
/// `event.origin` for a page of that origin, and two equal origins have equal text. Opaque origins (`null`)
/// cannot be represented: they can never be named in a list.
///
/// ```
/// # #[cfg(feature = "url")] {
/// use interpane_policy::Origin;
///
/// let origin = Origin::parse_entry("HTTPS://Bücher.example:443/")?;
/// assert_eq!(origin.as_str(), "https://xn--bcher-kva.example");
/// assert_eq!((origin.scheme(), origin.host(), origin.port()), ("https", "xn--bcher-kva.example", None));
/// # }
/// # Ok::<(), interpane_policy::OriginError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The canonical text, shared with the lists that hold this origin.
    serialized: Arc<str>,
    /// Where the host ends in `serialized`.
    host_end: usize,
    /// The port, when it is not the scheme's default.
    port: Option<u16>,
}

impl Origin {
    /// Builds an origin from canonical parts (checked by the caller).
    pub(crate) fn from_parts(scheme: &str, host: &str, port: Option<u16>) -> Self {
        let mut text = format!("{scheme}://{host}");
        let host_end = text.len();
        if let Some(port) = port {
            text.push(':');
            text.push_str(&port.to_string());
        }
        Self { serialized: Arc::from(text), host_end, port }
    }

    /// Parses one entry of an origin list, with the same rules as [`OriginList::parse`](super::OriginList::parse)
    /// and without wildcards (an `https://*.…` entry is refused with [`OriginError::WildcardsDisabled`]), with the
    /// `url` crate as the URL parser.
    #[cfg(feature = "url")]
    pub fn parse_entry(entry: &str) -> Result<Self, OriginError> {
        Self::parse_entry_using(entry, &super::UrlCrate)
    }

    /// `parse_entry` (feature `url`) with `parser` as the URL parser (the browser's, in the `interpane` crate).
    pub fn parse_entry_using(entry: &str, parser: &dyn UrlParser) -> Result<Self, OriginError> {
        parse_exact(entry.trim(), parser)
    }

    /// The canonical text, as in `event.origin`: `https://shop.example`, `http://localhost:8080`.
    pub fn as_str(&self) -> &str {
        &self.serialized
    }

    /// The shared canonical text.
    pub(crate) fn shared(&self) -> &Arc<str> {
        &self.serialized
    }

    /// `"https"` or `"http"`.
    pub fn scheme(&self) -> &str {
        let end = self.serialized.find(':').unwrap_or(0);
        &self.serialized[..end]
    }

    /// The host: a domain name (lowercase, punycode), an IPv4 address, or an IPv6 address in brackets.
    pub fn host(&self) -> &str {
        let start = self.scheme().len() + "://".len();
        self.serialized.get(start..self.host_end).unwrap_or_default()
    }

    /// The port, or `None` when it is the scheme's default (443 for https, 80 for http).
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The port, with the scheme's default filled in.
    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(if self.scheme() == "https" { 443 } else { 80 })
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.serialized)
    }
}

impl fmt::Debug for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Origin({:?})", &*self.serialized)
    }
}

#[cfg(feature = "url")]
impl std::str::FromStr for Origin {
    type Err = OriginError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse_entry(text)
    }
}

impl AsRef<str> for Origin {
    fn as_ref(&self) -> &str {
        &self.serialized
    }
}

/// Serializes as the canonical text, like `event.origin`.
impl Serialize for Origin {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.serialized)
    }
}

/// Deserializes from a string with [`Origin::parse_entry`].
#[cfg(feature = "url")]
impl<'de> serde::Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        Self::parse_entry(&text).map_err(serde::de::Error::custom)
    }
}
