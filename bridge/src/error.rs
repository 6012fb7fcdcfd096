//! The bridge's errors: what went wrong in words a page author can act on, and a category code can branch on.

use interpane_policy::{ErrorKind, IdError, OriginListError, ToolError};
use thiserror::Error;

/// An error from installing the bridge or registering a tool. In JavaScript it is thrown as an `Error` (a
/// `TypeError` for bad arguments) with the same message.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BridgeError {
    /// `exposeToolsTo`, `exposedTo` or `fromOrigins` is not a valid origin list.
    #[error("{field}: {source}")]
    Origins {
        /// The option that holds the list.
        field: &'static str,
        /// What is wrong with it.
        source: OriginListError,
    },
    /// A tool definition or an option is missing a field or has a field of the wrong kind.
    #[error("{0}")]
    InvalidArgument(String),
    /// A tool name does not follow the WebMCP rule.
    #[error("invalid tool name: {0}")]
    ToolName(#[from] IdError),
    /// A tool's `inputSchema` is not a schema the bridge can check arguments against.
    #[error("tool {}: {source}", interpane_policy::quote::quoted(.tool))]
    Schema {
        /// The tool's name.
        tool: String,
        /// What is wrong with its schema.
        source: interpane_policy::schema::SchemaError,
    },
    /// A tool of that name is already registered in this page.
    #[error("a tool named {} is already registered in this page; unregister it first", interpane_policy::quote::quoted(.0))]
    DuplicateTool(String),
    /// The tool breaks a rule the session holds every tool to, whichever API registers it: an empty description, a
    /// schema or annotations that are not a JSON object within the page's limits.
    #[error("{0}")]
    Register(interpane_policy::session::RegisterError),
    /// The page lacks a browser feature the bridge needs.
    #[error("this page has no {0}, which the bridge needs")]
    Unsupported(&'static str),
    /// The browser's random numbers failed (`crypto.getRandomValues` threw): the bridge makes its ids and the tab's
    /// secret only from them, never from the clock.
    #[error("the bridge cannot install: {0}")]
    Randomness(#[from] interpane_policy::session::EntropyError),
    /// A tool was registered from page code that the bridge ran while its state was in use (a built-in the page
    /// replaced, such as `RegExp.prototype.exec` or `Storage.prototype.setItem`): nothing was registered.
    #[error("the bridge is busy (it called the page): register the tool later")]
    Busy,
}

impl BridgeError {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidArgument(message.into())
    }
}

/// Why a call to another window's tool did not return a result.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CallError {
    /// The provider answered with an error (the tool threw, or refused the call), or the call was stopped,
    /// interrupted or timed out. `kind()` tells which.
    #[error("{0}")]
    Tool(ToolError),
    /// The call could not be made: bad arguments, an unknown tool handle, a reused `callId`.
    #[error("{0}")]
    Invalid(String),
    /// The arguments were refused before the call was made (too large or too deep for the page's limits, not an
    /// object, a `__proto__` key): nothing was sent and nothing ran.
    #[error("{0}")]
    Arguments(#[from] interpane_policy::call_args::CallArgsError),
}

impl CallError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Tool(error) => error.kind,
            Self::Invalid(_) => ErrorKind::Refused,
            Self::Arguments(_) => ErrorKind::InvalidArgs,
        }
    }

    /// The provider's error with its `status` and `retryAfter`, when there is one.
    pub fn tool_error(&self) -> Option<&ToolError> {
        match self {
            Self::Tool(error) => Some(error),
            Self::Invalid(_) | Self::Arguments(_) => None,
        }
    }
}
