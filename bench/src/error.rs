//! Errors of the benchmark.

use std::io;
use std::path::PathBuf;

use crate::impls::Impl;

/// What stopped the benchmark.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// The command line is wrong.
    #[error("{0} (see interpane-bench --help)")]
    Usage(String),
    /// A folder the server must serve is missing.
    #[error("{what} not found at {path}: {hint}")]
    MissingDir {
        /// What the folder holds.
        what: &'static str,
        /// Where it was looked for.
        path: PathBuf,
        /// How to make it.
        hint: &'static str,
    },
    /// A loopback port could not be bound.
    #[error("cannot listen on {address}: {source} (is another benchmark running? choose other ports)")]
    Bind {
        /// The address asked for.
        address: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// The browser, chromedriver or a page command failed.
    #[error(transparent)]
    Browser(#[from] interpane_e2e::E2eError),
    /// A benchmark page reported an error.
    #[error("the {implementation} page failed while {doing}: {message}")]
    Page {
        /// The implementation measured.
        implementation: Impl,
        /// What the runner was doing.
        doing: String,
        /// What the page said.
        message: String,
    },
    /// A page answered something the runner cannot read.
    #[error("the {implementation} page answered {what} with unexpected JSON ({source}): {json}")]
    PageJson {
        /// The implementation measured.
        implementation: Impl,
        /// Which answer.
        what: String,
        /// Why it could not be read.
        source: serde_json::Error,
        /// The answer, shortened.
        json: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// An external tool (gzip, node, terser) failed.
    #[error("{tool} failed: {message}")]
    Tool {
        /// The tool and how to get it.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The async runtime could not be built.
    #[error("cannot build the tokio runtime: {0}")]
    Runtime(io::Error),
}
