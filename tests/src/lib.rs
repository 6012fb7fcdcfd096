//! End-to-end harness for interpane: the demo server in-process, an engine's WebDriver servers, browser sessions in
//! Chromium, Firefox or WebKit ([`engine`]).
//!
//! ```no_run
//! use interpane_e2e::{E2eResult, Ctx, case, run_cases};
//! use interpane_demo_sites::Site;
//!
//! async fn shop_has_its_origin(t: Ctx) -> E2eResult<()> {
//!     t.open(Site::Shop, "/").await?;
//!     let origin = t.session.execute("return location.origin;", vec![]).await?;
//!     interpane_e2e::check_eq(origin.as_str(), Some(t.origin(Site::Shop)), "the shop's origin")
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     run_cases(vec![case!("origins::shop_has_its_origin", shop_has_its_origin)])
//! }
//! ```
//!
//! `E2E_ENGINE` picks the engine (`chromium`, the default, `firefox`, `webkit`) and `E2E_NATIVE=1` Chromium's native
//! WebMCP; `CHROMEDRIVER`/`CHROMIUM`, `GECKODRIVER`/`FIREFOX` and `WEBKIT_WEBDRIVER`/`MINIBROWSER` name the
//! binaries (Debian's paths by default); `E2E_DRIVER_LOG` names a file for the WebDriver servers' output;
//! `E2E_PKG_DIR` serves another bridge package folder at `/pkg/` (default `bridge/pkg`).

#![deny(missing_docs)]

pub mod browser;
pub mod devtools;
pub mod driver;
pub mod engine;
mod error;
pub mod session;
pub mod spy;
mod suite;

pub use engine::Engine;
pub use error::{Doing, E2eError, E2eResult, check, check_eq};
pub use session::Session;
pub use suite::{Case, CaseFuture, Ctx, MAX_SESSIONS, run_cases};
