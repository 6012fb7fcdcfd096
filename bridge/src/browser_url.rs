//! The browser's URL parser as the one origin lists are parsed with (issue 24): `new URL()` through `js/url.js`,
//! behind interpane-policy's [`UrlParser`]. The policy crate applies every rule to the parts it returns, as it does
//! to the url crate's natively, so the url crate (and its IDNA code) is not in the download. A browser test
//! (`tests/url_parsers.rs`) compares the two on a corpus of entries.

use interpane_policy::origin::{UrlParseError, UrlParser, UrlParts};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/url.js")]
extern "C" {
    /// The parts of an absolute URL, one a line, or `None` when it is not one.
    #[wasm_bindgen(js_name = urlParts)]
    fn url_parts(text: &str) -> Option<String>;
}

/// The browser's `new URL()` as a [`UrlParser`]: what this crate parses every origin list with (`install()`'s
/// `exposeToolsTo`, a tool's `exposedTo`, `getTools`' `fromOrigins`).
///
/// A Rust app can build its lists with it too; `OriginList::parse` (this crate's default feature `url`) works as
/// well, and brings the url crate into the app's wasm when the app calls it:
///
/// ```no_run
/// use interpane::{BrowserUrl, OriginList, ParseOptions};
///
/// let list = OriginList::parse_using("https://widget.example", ParseOptions::default(), &BrowserUrl)?;
/// # Ok::<(), interpane::OriginListError>(())
/// ```
///
/// `new URL()` says nothing about why it failed: the entry's error is then found by asking it about the entry's
/// host and port alone, and is the same as the url crate's. Hosts written in Unicode are converted by the browser
/// (`https://bücher.example` is `https://xn--bcher-kva.example`), including the forms UTS 46 maps, such as
/// full-width letters, which the url crate's path refuses with advice to write the `xn--` form.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserUrl;

impl UrlParser for BrowserUrl {
    fn parse_url(&self, text: &str) -> Result<UrlParts, UrlParseError> {
        let parts = url_parts(text).ok_or(UrlParseError::Unexplained)?;
        let mut fields = parts.splitn(7, '\n');
        let mut next = || fields.next().unwrap_or_default();
        let (protocol, host, port) = (next(), next(), next());
        let (credentials, query, fragment, path) = (next() == "1", next() == "1", next() == "1", next());
        let scheme = protocol.strip_suffix(':').unwrap_or(protocol);
        let mut url = UrlParts::new(scheme, (!host.is_empty()).then(|| host.to_owned()), path);
        url.port = match port {
            "" => None,
            // The browser never serializes a port it could not parse.
            port => Some(port.parse().map_err(|_| UrlParseError::InvalidPort)?),
        };
        url.credentials = credentials;
        url.query = query;
        url.fragment = fragment;
        Ok(url)
    }

    /// The browser converts Unicode hosts itself, with the full mapping of UTS 46, to the ASCII form it reports
    /// as `event.origin`; this crate's own conversion (lowercase NFC names only) is not in the download.
    fn maps_unicode_hosts(&self) -> bool {
        true
    }
}
