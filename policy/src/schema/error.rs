//! The two errors of this module: a schema that cannot be compiled, and arguments that do not match one.

use std::fmt;

use serde_json::Number;
use thiserror::Error;

use crate::outcome::{ErrorKind, ToolError};

/// Why a tool's `inputSchema` was refused at `registerTool`. Every message starts with the path of the faulty
/// part, such as `inputSchema.properties.size.enum`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A keyword's value has the wrong JSON type, such as `"minimum": "1"`.
    #[error("{path}: must be {expected}; got {got}")]
    WrongShape {
        /// Where, such as `inputSchema.properties.size.enum`.
        path: String,
        /// What the keyword takes, such as `an array`.
        expected: &'static str,
        /// The value found, as shortened JSON.
        got: String,
    },
    /// `type` names a type that JSON Schema does not have, such as `"int"`.
    #[error("{path}: must be one of object, string, number, integer, boolean, array, null; got {got}")]
    UnknownType {
        /// Where, such as `inputSchema.properties.quantity.type`.
        path: String,
        /// The name found, as shortened JSON.
        got: String,
    },
    /// `enum` or a list of types is empty, so no value could ever match.
    #[error("{path}: must not be empty, or no value could match")]
    Empty {
        /// Where, such as `inputSchema.properties.size.enum`.
        path: String,
    },
    /// `required` is a boolean inside a property (the draft-3 form).
    #[error(
        "{path}: must be an array of property names; to require this property, list its name in the `required` array of the object that holds it"
    )]
    RequiredFlag {
        /// Where, such as `inputSchema.properties.sku.required`.
        path: String,
    },
    /// A keyword that WebMCP's schema subset leaves out (only [`ArgSchema::compile_registered`] refuses it).
    ///
    /// [`ArgSchema::compile_registered`]: super::ArgSchema::compile_registered
    #[error("{path}: {keyword} is outside WebMCP's schema subset")]
    OutsideSubset {
        /// Where, such as `inputSchema.properties.email.format`.
        path: String,
        /// The keyword, such as `format` or `additionalProperties other than false`.
        keyword: &'static str,
    },
    /// A `pattern` that is not a regular expression.
    #[error("{path}: {pattern} is not a regular expression: {reason}")]
    BadPattern {
        /// Where, such as `inputSchema.properties.code.pattern`.
        path: String,
        /// The pattern, shortened.
        pattern: String,
        /// Why, in the engine's words.
        reason: String,
    },
    /// Subschemas nest deeper than the checker follows.
    #[error("{path}: schemas nest more than {max} levels deep here; flatten the schema")]
    TooDeep {
        /// The first subschema past the limit.
        path: String,
        /// The deepest nesting accepted.
        max: usize,
    },
}

/// Arguments that do not match a tool's `inputSchema`: every problem found, up to a bound. The tool did not run.
///
/// Its text lists the problems joined with `; `, each naming where it is and what is allowed, such as
/// `size must be one of small, medium, large; got "huge"; quantity must be an integer; got 2.5`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct ArgsError {
    pub(crate) problems: Vec<ArgProblem>,
    pub(crate) more: bool,
}

impl ArgsError {
    /// The problems found, in the order the checker met them (never empty).
    pub fn problems(&self) -> &[ArgProblem] {
        &self.problems
    }

    /// Whether the checker stopped at the bound with more problems left unreported.
    pub fn has_more(&self) -> bool {
        self.more
    }

    /// The kind a caller sees: always [`ErrorKind::InvalidArgs`].
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidArgs
    }
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        if self.more {
            f.write_str("; more problems were not listed")?;
        }
        Ok(())
    }
}

impl ArgsError {
    /// The refusal as the message of the call's error: JSON text of an object with the first problem's `path` (a
    /// JSON Pointer into the arguments, such as `/age`), `reason` (the keyword it breaks, such as `type`),
    /// `schemaPath` (that keyword as a pointer, such as `/type`), and `message`, the text of every problem
    /// (this error's `Display`) after `lead`. Native WebMCP's `DataError` messages have the first three, and the
    /// platform tests read them; `message` keeps the words an agent corrects itself by.
    pub fn to_message(&self, lead: &str) -> String {
        let first = &self.problems[0];
        let keyword = first.kind.keyword();
        let mut out = String::new();
        let mut object = crate::envelope::encode::Object::open(&mut out);
        (object.string("message", &format!("{lead}{self}")).string("path", &first.pointer))
            .string("reason", keyword)
            .string("schemaPath", &format!("/{keyword}"))
            .close();
        out
    }
}

impl From<ArgsError> for ToolError {
    fn from(error: ArgsError) -> Self {
        ToolError::new(ErrorKind::InvalidArgs, error.to_message(""))
    }
}

/// One thing wrong with the arguments, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgProblem {
    /// Where, such as `items[2].sku`; empty for the arguments object itself.
    pub path: String,
    /// The same place as a JSON Pointer, such as `/items/2/sku`; empty for the arguments object itself.
    pub pointer: String,
    /// What is wrong.
    pub kind: ProblemKind,
}

/// What is wrong with one value. Values and lists in the fields are already shortened for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The value has the wrong JSON type.
    WrongType {
        /// The allowed types in words, such as `an integer` or `a string or null`.
        expected: String,
        /// The value found, as shortened JSON.
        got: String,
    },
    /// The value is not one of `enum`, or not the `const`.
    WrongValue {
        /// The allowed values in words, such as `one of small, medium, large`.
        expected: String,
        /// The value found, as shortened JSON.
        got: String,
        /// `enum` or `const`.
        keyword: &'static str,
    },
    /// A required property is absent (the path names it).
    Missing,
    /// A property that the schema does not allow (`additionalProperties: false`).
    Unexpected {
        /// The property's name as a shortened JSON string, quotes included.
        name: String,
        /// The allowed names, such as `color, size`; empty when none are.
        allowed: String,
    },
    /// A string shorter than `minLength`, counted in Unicode code points.
    TooShort {
        /// The least length allowed.
        min: u64,
        /// The length found.
        got: u64,
    },
    /// A string longer than `maxLength`, counted in Unicode code points.
    TooLong {
        /// The greatest length allowed.
        max: u64,
        /// The length found.
        got: u64,
    },
    /// A number below `minimum` (or not above `exclusiveMinimum`).
    TooSmall {
        /// The bound.
        bound: Number,
        /// Whether the bound itself is refused too.
        exclusive: bool,
        /// The number found.
        got: Number,
    },
    /// A number above `maximum` (or not below `exclusiveMaximum`).
    TooLarge {
        /// The bound.
        bound: Number,
        /// Whether the bound itself is refused too.
        exclusive: bool,
        /// The number found.
        got: Number,
    },
    /// An array with fewer items than `minItems`.
    TooFewItems {
        /// The least count allowed.
        min: u64,
        /// The count found.
        got: u64,
    },
    /// An array with more items than `maxItems`.
    TooManyItems {
        /// The greatest count allowed.
        max: u64,
        /// The count found.
        got: u64,
    },
    /// The schema at this place is `false`: no value is allowed here.
    NotAllowed,
    /// A string that `pattern` does not match.
    NoMatch {
        /// The pattern, as a shortened JSON string.
        pattern: String,
    },
}

impl ProblemKind {
    /// The schema keyword the value breaks, such as `type`, `required` or `maxLength`.
    pub fn keyword(&self) -> &'static str {
        match self {
            ProblemKind::WrongType { .. } => "type",
            ProblemKind::WrongValue { keyword, .. } => keyword,
            ProblemKind::Missing => "required",
            ProblemKind::Unexpected { .. } => "additionalProperties",
            ProblemKind::TooShort { .. } => "minLength",
            ProblemKind::TooLong { .. } => "maxLength",
            ProblemKind::TooSmall { exclusive: false, .. } => "minimum",
            ProblemKind::TooSmall { exclusive: true, .. } => "exclusiveMinimum",
            ProblemKind::TooLarge { exclusive: false, .. } => "maximum",
            ProblemKind::TooLarge { exclusive: true, .. } => "exclusiveMaximum",
            ProblemKind::TooFewItems { .. } => "minItems",
            ProblemKind::TooManyItems { .. } => "maxItems",
            ProblemKind::NotAllowed => "false",
            ProblemKind::NoMatch { .. } => "pattern",
        }
    }
}

impl fmt::Display for ArgProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = if self.path.is_empty() { "arguments" } else { self.path.as_str() };
        match &self.kind {
            ProblemKind::WrongType { expected, got } | ProblemKind::WrongValue { expected, got, .. } => {
                write!(f, "{subject} must be {expected}; got {got}")
            }
            ProblemKind::Missing => write!(f, "{subject} is required"),
            ProblemKind::Unexpected { name, allowed } => {
                write!(f, "unexpected property {name}")?;
                if !self.path.is_empty() {
                    write!(f, " in {}", self.path)?;
                }
                if allowed.is_empty() {
                    f.write_str(" (no properties are allowed)")
                } else {
                    write!(f, " (allowed: {allowed})")
                }
            }
            ProblemKind::TooShort { min, got } => {
                write!(f, "{subject} must be at least {min} {}; got {got}", plural(*min, "character", "characters"))
            }
            ProblemKind::TooLong { max, got } => {
                write!(f, "{subject} must be at most {max} {}; got {got}", plural(*max, "character", "characters"))
            }
            ProblemKind::TooSmall { bound, exclusive: false, got } => {
                write!(f, "{subject} must be at least {bound}; got {got}")
            }
            ProblemKind::TooSmall { bound, exclusive: true, got } => {
                write!(f, "{subject} must be greater than {bound}; got {got}")
            }
            ProblemKind::TooLarge { bound, exclusive: false, got } => {
                write!(f, "{subject} must be at most {bound}; got {got}")
            }
            ProblemKind::TooLarge { bound, exclusive: true, got } => {
                write!(f, "{subject} must be less than {bound}; got {got}")
            }
            ProblemKind::TooFewItems { min, got } => {
                write!(f, "{subject} must have at least {min} {}; got {got}", plural(*min, "item", "items"))
            }
            ProblemKind::TooManyItems { max, got } => {
                write!(f, "{subject} must have at most {max} {}; got {got}", plural(*max, "item", "items"))
            }
            ProblemKind::NotAllowed => write!(f, "{subject} is not allowed"),
            ProblemKind::NoMatch { pattern } => write!(f, "{subject} must match the pattern {pattern}"),
        }
    }
}

fn plural(count: u64, one: &'static str, many: &'static str) -> &'static str {
    if count == 1 { one } else { many }
}
