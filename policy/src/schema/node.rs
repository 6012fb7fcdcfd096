//! The compiled form of a schema: what `check` needs, decided once at `registerTool`, with sorted lookups and
//! the phrases of its messages made ahead of time.

use serde_json::{Number, Value};

use super::number::{is_integer, json_equal};
use super::pattern::CompiledPattern;
use super::render::{allowed_value, list};

/// One compiled schema (the whole `inputSchema`, or a part of it such as one property).
#[derive(Debug, Clone, Default)]
pub(crate) struct Node {
    /// The schema is `false`: nothing matches.
    pub(crate) refuses_all: bool,
    pub(crate) types: Option<Types>,
    pub(crate) enumeration: Option<Choices>,
    pub(crate) constant: Option<Choices>,
    pub(crate) object: Option<ObjectRules>,
    pub(crate) items: Option<Box<Node>>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) bounds: Bounds,
    pub(crate) pattern: Option<CompiledPattern>,
}

/// The JSON types a value may have (`type`).
#[derive(Debug, Clone)]
pub(crate) struct Types {
    mask: u8,
    /// Such as `an integer` or `a string or null`.
    pub(crate) phrase: String,
}

/// A JSON Schema type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Object,
    String,
    Number,
    Integer,
    Boolean,
    Array,
    Null,
}

impl JsonType {
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "object" => Self::Object,
            "string" => Self::String,
            "number" => Self::Number,
            "integer" => Self::Integer,
            "boolean" => Self::Boolean,
            "array" => Self::Array,
            "null" => Self::Null,
            _ => return None,
        })
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn phrase(self) -> &'static str {
        match self {
            Self::Object => "an object",
            Self::String => "a string",
            Self::Number => "a number",
            Self::Integer => "an integer",
            Self::Boolean => "a boolean",
            Self::Array => "an array",
            Self::Null => "null",
        }
    }
}

impl Types {
    /// The union of `types`, in the order given, repeats dropped.
    pub(crate) fn new(types: &[JsonType]) -> Self {
        let mut mask = 0;
        let mut phrases = Vec::new();
        for t in types {
            if mask & t.bit() == 0 {
                mask |= t.bit();
                phrases.push(t.phrase());
            }
        }
        let phrase = match phrases.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => phrases.concat(),
        };
        Self { mask, phrase }
    }

    pub(crate) fn allows(&self, value: &Value) -> bool {
        let has = |t: JsonType| self.mask & t.bit() != 0;
        match value {
            Value::Null => has(JsonType::Null),
            Value::Bool(_) => has(JsonType::Boolean),
            Value::Number(n) => has(JsonType::Number) || (has(JsonType::Integer) && is_integer(n)),
            Value::String(_) => has(JsonType::String),
            Value::Array(_) => has(JsonType::Array),
            Value::Object(_) => has(JsonType::Object),
        }
    }
}

/// The values of an `enum` (or the one value of a `const`), strings sorted for a binary search.
#[derive(Debug, Clone)]
pub(crate) struct Choices {
    strings: Vec<String>,
    others: Vec<Value>,
    /// Such as `one of small, medium, large`, or `small` for a single value.
    pub(crate) phrase: String,
}

impl Choices {
    pub(crate) fn new(values: &[Value]) -> Self {
        let mut strings = Vec::new();
        let mut others = Vec::new();
        for value in values {
            match value {
                // An ordered insert without duplicates (not a sort: see compile.rs).
                Value::String(text) => {
                    if let Err(at) = strings.binary_search(text) {
                        strings.insert(at, text.clone());
                    }
                }
                other => others.push(other.clone()),
            }
        }
        let listed = list(values.iter().map(allowed_value));
        let phrase = if values.len() == 1 { listed } else { format!("one of {listed}") };
        Self { strings, others, phrase }
    }

    pub(crate) fn contains(&self, value: &Value) -> bool {
        match value {
            Value::String(text) => self.strings.binary_search_by(|s| s.as_str().cmp(text)).is_ok(),
            other => self.others.iter().any(|o| json_equal(o, other)),
        }
    }
}

/// What `properties`, `required` and `additionalProperties` ask of an object.
#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectRules {
    /// Sorted by name.
    pub(crate) properties: Vec<(String, Node)>,
    /// In the schema's order, repeats dropped.
    pub(crate) required: Vec<String>,
    pub(crate) additional: Additional,
    /// The property names for messages, such as `color, size`.
    pub(crate) allowed_names: String,
}

impl ObjectRules {
    pub(crate) fn property(&self, name: &str) -> Option<&Node> {
        self.properties.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok().map(|i| &self.properties[i].1)
    }
}

/// What `additionalProperties` says of properties that `properties` does not name.
#[derive(Debug, Clone, Default)]
pub(crate) enum Additional {
    /// Absent or `true`: anything.
    #[default]
    Allowed,
    /// `false`: none.
    Refused,
    /// A schema that each of them must match.
    Checked(Box<Node>),
}

/// `minimum`, `maximum` and their exclusive forms.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    pub(crate) minimum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
}

impl Bounds {
    pub(crate) fn is_empty(&self) -> bool {
        self.minimum.is_none()
            && self.exclusive_minimum.is_none()
            && self.maximum.is_none()
            && self.exclusive_maximum.is_none()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn type_phrases() {
        use JsonType as T;
        let cases: [(&[JsonType], &str); 4] = [
            (&[T::Integer], "an integer"),
            (&[T::String, T::Null], "a string or null"),
            (&[T::String, T::Number, T::Null], "a string, a number or null"),
            (&[T::Object, T::Object], "an object"),
        ];
        for (types, expected) in cases {
            assert_eq!(Types::new(types).phrase, expected);
        }
    }

    #[test]
    fn integers_are_numbers_and_whole_numbers_are_integers() {
        let number = Types::new(&[JsonType::Number]);
        let integer = Types::new(&[JsonType::Integer]);
        assert!(number.allows(&json!(3)));
        assert!(number.allows(&json!(2.5)));
        assert!(integer.allows(&json!(2.0)));
        assert!(!integer.allows(&json!(2.5)));
        assert!(!integer.allows(&json!("2")));
    }

    #[test]
    fn choices() {
        let sizes = Choices::new(&[json!("small"), json!("medium"), json!("large")]);
        assert_eq!(sizes.phrase, "one of small, medium, large");
        assert!(sizes.contains(&json!("medium")));
        assert!(!sizes.contains(&json!("huge")));
        let mixed = Choices::new(&[json!(1), json!(null), json!({"a": 1})]);
        assert!(mixed.contains(&json!(1.0)));
        assert!(mixed.contains(&json!(null)));
        assert!(mixed.contains(&json!({"a": 1})));
        assert!(!mixed.contains(&json!("1")));
        assert_eq!(Choices::new(&[json!("pizza")]).phrase, "pizza");
    }
}
