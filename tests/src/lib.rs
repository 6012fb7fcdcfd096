//! End-to-end harness for interpane: the demo server in-process, one chromedriver, Chromium sessions.
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
//! `CHROMEDRIVER` and `CHROMIUM` name the binaries (default `/usr/bin/chromedriver`, `/usr/bin/chromium`);
//! `E2E_CHROMEDRIVER_LOG` names a file for chromedriver's verbose log; `E2E_PKG_DIR` serves another bridge
//! package folder at `/pkg/` (default `bridge/pkg`).

#![deny(missing_docs)]

pub mod browser;
pub mod chromedriver;
pub mod devtools;
mod error;
pub mod session;
pub mod spy;
mod suite;

pub use error::{Doing, E2eError, E2eResult, check, check_eq};
pub use session::Session;
pub use suite::{Case, CaseFuture, Ctx, MAX_SESSIONS, run_cases};
