//! WebMCP's schema subset, as its platform tests hold `registerTool` to it: a schema a page registers a tool with
//! may not use the keywords the subset leaves out, and its `additionalProperties` may only be `false`.

use serde_json::Value;

use super::MAX_SCHEMA_DEPTH;
use super::error::SchemaError;
use super::render::{Step, push_step};

/// Keywords outside the subset, wherever they appear in a schema.
const EXCLUDED: [&str; 6] =
    ["$ref", "$defs", "format", "contentEncoding", "unevaluatedProperties", "dependentRequired"];

/// The first place where `schema` leaves the subset, walking it in document order. Only schema objects are looked
/// at: the values of `enum`, `const` and `default` are data, whatever keys they hold.
pub(crate) fn check(schema: &Value) -> Result<(), SchemaError> {
    walk(schema, "inputSchema", 0)
}

/// `path` with `steps` appended.
fn at(path: &str, steps: &[Step<'_>]) -> String {
    let mut path = path.to_owned();
    for step in steps {
        push_step(&mut path, *step);
    }
    path
}

fn walk(schema: &Value, path: &str, depth: usize) -> Result<(), SchemaError> {
    let Value::Object(keywords) = schema else { return Ok(()) };
    if depth > MAX_SCHEMA_DEPTH {
        return Err(SchemaError::TooDeep { path: path.to_owned(), max: MAX_SCHEMA_DEPTH });
    }
    if let Some(keyword) = EXCLUDED.iter().find(|keyword| keywords.contains_key(**keyword)) {
        return Err(SchemaError::OutsideSubset { path: at(path, &[Step::Key(keyword)]), keyword });
    }
    if keywords.get("additionalProperties").is_some_and(|additional| *additional != Value::Bool(false)) {
        return Err(SchemaError::OutsideSubset {
            path: at(path, &[Step::Key("additionalProperties")]),
            keyword: "additionalProperties other than false",
        });
    }
    // The keywords whose values are subschemas, or maps and lists of them.
    for (keyword, value) in keywords {
        let key = Step::Key(keyword);
        match (keyword.as_str(), value) {
            ("properties" | "patternProperties" | "dependentSchemas", Value::Object(map)) => {
                for (name, child) in map {
                    walk(child, &at(path, &[key, Step::Key(name)]), depth + 1)?;
                }
            }
            ("items" | "prefixItems" | "anyOf" | "oneOf" | "allOf", Value::Array(list)) => {
                for (index, child) in list.iter().enumerate() {
                    walk(child, &at(path, &[key, Step::Index(index)]), depth + 1)?;
                }
            }
            ("items" | "contains" | "not" | "if" | "then" | "else" | "propertyNames", child) => {
                walk(child, &at(path, &[key]), depth + 1)?;
            }
            _ => {}
        }
    }
    Ok(())
}
