//! Origin lists and tool visibility: who may see and call which tool.
//!
//! An [`OriginList`] is the parsed form of the page's `expose-tools-to` attribute, a consumer's `fromOrigins`
//! and a tool's `exposedTo`. Each entry is parsed as a URL and kept in canonical form (the text a browser puts in
//! `event.origin`), so [`OriginList::allows`] is an exact, allocation-free lookup. Entries that cannot be an
//! origin (`*`, `null`, a path, `http` on a public host...) are refused with an [`OriginListError`] that names
//! the entry, its position and what to write instead. The rules in plain words are in `docs/origins.md`.
//!
//! [`tool_visible_to`] applies the lists to one tool and one caller; [`native_exposure`] turns them into what the
//! browser's own WebMCP registry can take.
//!
//! A window's origin as the browser reports it is a [`WindowOrigin`]: opaque, or a [`TupleOrigin`], the only kind
//! a message can be addressed to.

mod entry;
mod error;
mod host;
#[cfg(feature = "url")]
mod idn;
mod list;
mod native;
mod pattern;
mod url_parser;
mod value;
mod visibility;
mod window;

pub use error::{OriginError, OriginErrorKind, OriginListError, OriginListWarning};
pub use list::OriginList;
pub use native::{NativeExposure, native_exposure};
pub use pattern::{OriginPattern, ParseOptions, WildcardOrigin};
#[cfg(feature = "url")]
pub use url_parser::UrlCrate;
pub use url_parser::{UrlParseError, UrlParser, UrlParts};
pub use value::Origin;
pub use visibility::tool_visible_to;
pub(crate) use window::OPAQUE_SERIALIZATION;
pub use window::{TupleOrigin, WindowOrigin};
