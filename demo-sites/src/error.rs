//! Errors of the demo server.

use std::io;
use std::path::PathBuf;

use crate::site::Site;

/// Why the demo server could not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// Two sites were configured on the same port.
    #[error(
        "sites {first} and {second} are both configured on port {port}: give every site its own port \
         (or 0 for a free one)"
    )]
    DuplicatePort {
        /// The port given twice.
        port: u16,
        /// The first site on it.
        first: Site,
        /// The second site on it.
        second: Site,
    },
    /// The static folder of a site is missing.
    #[error("static folder {path} is missing: run from a checkout of interpane or pass the folder explicitly")]
    MissingStaticDir {
        /// The folder that was looked for.
        path: PathBuf,
    },
    /// A listening socket could not be opened.
    #[error(
        "cannot listen on {address} for the {site} site: {source} (is the port already taken? try another one, or 0)"
    )]
    Bind {
        /// The site that was being started.
        site: Site,
        /// The address, as `host:port`.
        address: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// A server task ended with an error.
    #[error("the {site} server stopped with an error: {source}")]
    Serve {
        /// The site whose server failed.
        site: Site,
        /// What went wrong.
        source: io::Error,
    },
    /// A server task panicked or was cancelled.
    #[error("the {site} server task ended abnormally: {message}")]
    Task {
        /// The site whose task ended.
        site: Site,
        /// What the runtime reported.
        message: String,
    },
}
