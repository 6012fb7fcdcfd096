//! Checks a tool call's arguments against the tool's `inputSchema` before the tool runs.
//!
//! A provider compiles each tool's schema once, when the page registers the tool, and checks every call's
//! arguments against it. A call whose arguments do not match is refused with an [`ArgsError`] that says what is
//! wrong and what is allowed, so that an agent can correct itself; the tool never runs.
//!
//! ```
//! use serde_json::json;
//! use interpane_policy::schema::ArgSchema;
//!
//! let schema = ArgSchema::compile(&json!({
//!     "type": "object",
//!     "properties": {
//!         "sku": { "type": "string" },
//!         "size": { "enum": ["small", "medium", "large"] },
//!         "quantity": { "type": "integer", "minimum": 1 }
//!     },
//!     "required": ["sku"],
//!     "additionalProperties": false
//! }))?;
//!
//! assert!(schema.check(&json!({ "sku": "margherita", "size": "large", "quantity": 2 })).is_ok());
//!
//! let refused = schema.check(&json!({ "size": "huge", "quantity": 2.5 })).unwrap_err();
//! assert_eq!(
//!     refused.to_string(),
//!     "sku is required; quantity must be an integer; got 2.5; size must be one of small, medium, large; got \"huge\""
//! );
//! # Ok::<(), interpane_policy::schema::SchemaError>(())
//! ```
//!
//! The subset of JSON Schema that tool schemas use is checked: `type` (one name or several), `enum`, `const`,
//! `properties`, `required`, `additionalProperties` (`false` or a schema), `items` (a schema), `minItems`,
//! `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength` and `maxLength`
//! (counted in Unicode code points). Every other keyword is ignored, never an error. See `docs/schema.md`.

mod check;
mod compile;
mod error;
mod node;
mod number;
mod pattern;
mod render;
mod subset;

pub use error::{ArgProblem, ArgsError, ProblemKind, SchemaError};
pub use pattern::{Pattern, PatternEngine};

use serde_json::Value;

use check::Checker;
use node::Node;

/// How deeply subschemas may nest (a property of an item of a property is 3 levels). Deeper schemas are refused
/// at compile time, which also bounds how deep a check goes into the arguments.
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// The most problems one [`ArgsError`] lists; the checker stops looking after that.
pub const MAX_REPORTED_PROBLEMS: usize = 10;

/// A tool's `inputSchema`, compiled once and ready to check any number of calls.
#[derive(Debug, Clone)]
pub struct ArgSchema {
    root: Node,
    /// The schema it was compiled from, for a session's tape (feature `record`), which writes the schema and
    /// compiles it again on replay.
    #[cfg(feature = "record")]
    source: Value,
}

impl ArgSchema {
    /// Compiles `schema`, refusing one that is itself invalid: a schema that is not an object, or a supported
    /// keyword with a value of the wrong kind (such as `"enum": "small"` or `"minimum": "1"`). The error names
    /// the faulty place, such as `inputSchema.properties.size.enum`.
    ///
    /// The top-level schema is usually `{"type": "object", ...}`, but that is not required.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        Self::compile_with(schema, None)
    }

    /// Compiles the `inputSchema` a page registers a tool with, held to WebMCP's schema subset first, as the
    /// platform tests hold `registerTool` to it: `$ref`, `$defs`, `format`, `contentEncoding`,
    /// `unevaluatedProperties` and `dependentRequired` are refused anywhere in it, and so is an
    /// `additionalProperties` other than `false` ([`SchemaError::OutsideSubset`]). The JavaScript and Rust APIs'
    /// `registerTool` compile with this; the schemas the bridge builds for declarative forms (which say `format`
    /// for an email field) with [`ArgSchema::compile`].
    ///
    /// `patterns` compiles each `pattern` (a [`SchemaError::BadPattern`] for one that is not a regular expression),
    /// and the check then holds strings to it; without an engine `pattern` is not enforced, as [`ArgSchema::compile`]
    /// does not enforce it.
    pub fn compile_registered(schema: &Value, patterns: Option<&dyn PatternEngine>) -> Result<Self, SchemaError> {
        Self::check_subset(schema)?;
        Self::compile_with(schema, patterns)
    }

    fn compile_with(schema: &Value, patterns: Option<&dyn PatternEngine>) -> Result<Self, SchemaError> {
        Ok(Self {
            root: compile::compile_root(schema, patterns)?,
            #[cfg(feature = "record")]
            source: schema.clone(),
        })
    }

    /// Only the subset check of [`ArgSchema::compile_registered`], for a tool registered without argument checks.
    pub fn check_subset(schema: &Value) -> Result<(), SchemaError> {
        subset::check(schema)
    }

    /// The schema it was compiled from (feature `record`).
    #[cfg(feature = "record")]
    pub fn source(&self) -> &Value {
        &self.source
    }

    /// Checks a call's arguments, reporting every problem found, up to [`MAX_REPORTED_PROBLEMS`].
    ///
    /// Never panics, whatever `args` holds; the time it takes grows with the size of `args`.
    pub fn check(&self, args: &Value) -> Result<(), ArgsError> {
        let mut checker = Checker::new(MAX_REPORTED_PROBLEMS);
        checker.check(&self.root, args);
        checker.finish()
    }
}
