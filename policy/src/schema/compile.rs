//! Turns an `inputSchema` into a [`Node`], refusing schemas that are themselves invalid. Keywords outside the
//! supported subset are skipped without a look.

use serde_json::{Map, Number, Value};

use super::MAX_SCHEMA_DEPTH;
use super::error::SchemaError;
use super::node::{Additional, Bounds, Choices, JsonType, Node, ObjectRules, Types};
use super::number::is_integer;
use super::pattern::{CompiledPattern, PatternEngine};
use super::render::{Step, VALUE_CHARS, list, push_step, short_json, shorten};

/// The engine `pattern`s are compiled with, if any.
pub(crate) type Patterns<'e> = Option<&'e dyn PatternEngine>;

/// The path that every schema error starts with.
const ROOT: &str = "inputSchema";

/// Compiles a whole `inputSchema`, which must be an object.
pub(crate) fn compile_root(schema: &Value, patterns: Patterns<'_>) -> Result<Node, SchemaError> {
    match schema {
        Value::Object(keywords) => compile_object(keywords, ROOT, 0, patterns),
        other => Err(wrong_shape(ROOT, "an object", other)),
    }
}

/// Compiles a subschema: an object, or `true` (anything) or `false` (nothing).
fn compile_subschema(schema: &Value, path: &str, depth: usize, patterns: Patterns<'_>) -> Result<Node, SchemaError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(SchemaError::TooDeep { path: path.to_owned(), max: MAX_SCHEMA_DEPTH });
    }
    match schema {
        Value::Object(keywords) => compile_object(keywords, path, depth, patterns),
        Value::Bool(true) => Ok(Node::default()),
        Value::Bool(false) => Ok(Node { refuses_all: true, ..Node::default() }),
        other => Err(wrong_shape(path, "a schema object (or true or false)", other)),
    }
}

fn compile_object(
    keywords: &Map<String, Value>,
    path: &str,
    depth: usize,
    patterns: Patterns<'_>,
) -> Result<Node, SchemaError> {
    let at = |keyword: &str| child(path, Step::Key(keyword));
    let mut node = Node::default();
    if let Some(types) = keywords.get("type") {
        node.types = Some(compile_types(types, &at("type"))?);
    }
    if let Some(values) = keywords.get("enum") {
        node.enumeration = Some(match values {
            Value::Array(values) if values.is_empty() => {
                return Err(SchemaError::Empty { path: at("enum") });
            }
            Value::Array(values) => Choices::new(values),
            other => return Err(wrong_shape(&at("enum"), "an array", other)),
        });
    }
    if let Some(value) = keywords.get("const") {
        node.constant = Some(Choices::new(std::slice::from_ref(value)));
    }
    node.object = compile_object_rules(keywords, path, depth, patterns)?;
    match keywords.get("items") {
        // The tuple form (an array of schemas) of older drafts is outside the subset: ignored.
        None | Some(Value::Array(_)) => {}
        Some(items) => node.items = Some(Box::new(compile_subschema(items, &at("items"), depth + 1, patterns)?)),
    }
    node.min_items = count(keywords, "minItems", path)?;
    node.max_items = count(keywords, "maxItems", path)?;
    node.min_length = count(keywords, "minLength", path)?;
    node.max_length = count(keywords, "maxLength", path)?;
    node.bounds = compile_bounds(keywords, path)?;
    // Without an engine a `pattern` is skipped, as every keyword outside the subset the checker enforces.
    if let (Some(engine), Some(pattern)) = (patterns, keywords.get("pattern")) {
        let at = at("pattern");
        let Value::String(source) = pattern else { return Err(wrong_shape(&at, "a string", pattern)) };
        let matcher = engine.compile(source).map_err(|reason| SchemaError::BadPattern {
            path: at,
            pattern: shorten(source, VALUE_CHARS),
            reason,
        })?;
        node.pattern = Some(CompiledPattern { source: source.clone(), matcher });
    }
    Ok(node)
}

fn compile_types(types: &Value, path: &str) -> Result<Types, SchemaError> {
    let one = |name: &Value, path: &str| match name {
        Value::String(text) => JsonType::from_name(text)
            .ok_or_else(|| SchemaError::UnknownType { path: path.to_owned(), got: short_json(name) }),
        other => Err(wrong_shape(path, "a type name", other)),
    };
    match types {
        Value::Array(names) if names.is_empty() => Err(SchemaError::Empty { path: path.to_owned() }),
        Value::Array(names) => {
            let parsed = names
                .iter()
                .enumerate()
                .map(|(index, name)| one(name, &child(path, Step::Index(index))))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Types::new(&parsed))
        }
        Value::String(_) => Ok(Types::new(&[one(types, path)?])),
        other => Err(wrong_shape(path, "a type name or an array of type names", other)),
    }
}

/// `properties`, `required` and `additionalProperties`; `None` when the schema has none of them.
fn compile_object_rules(
    keywords: &Map<String, Value>,
    path: &str,
    depth: usize,
    patterns: Patterns<'_>,
) -> Result<Option<ObjectRules>, SchemaError> {
    let (properties, required, additional) =
        (keywords.get("properties"), keywords.get("required"), keywords.get("additionalProperties"));
    if properties.is_none() && required.is_none() && additional.is_none() {
        return Ok(None);
    }
    let mut rules = ObjectRules::default();
    match properties {
        None => {}
        Some(Value::Object(properties)) => {
            let base = child(path, Step::Key("properties"));
            for (name, schema) in properties {
                let node = compile_subschema(schema, &child(&base, Step::Key(name)), depth + 1, patterns)?;
                // Kept in name order by an ordered insert (the map usually iterates in that order already, so
                // each lands at the end), not a sort: each element type sorted is a copy of the sort's code.
                let at = rules.properties.partition_point(|(known, _)| known < name);
                rules.properties.insert(at, (name.clone(), node));
            }
        }
        Some(other) => {
            return Err(wrong_shape(&child(path, Step::Key("properties")), "an object", other));
        }
    }
    rules.allowed_names = list(rules.properties.iter().map(|(name, _)| shorten(name, VALUE_CHARS)));
    let at_required = child(path, Step::Key("required"));
    match required {
        None => {}
        Some(Value::Array(names)) => {
            for (index, name) in names.iter().enumerate() {
                match name {
                    Value::String(name) if rules.required.contains(name) => {}
                    Value::String(name) => rules.required.push(name.clone()),
                    other => {
                        return Err(wrong_shape(&child(&at_required, Step::Index(index)), "a string", other));
                    }
                }
            }
        }
        Some(Value::Bool(_)) => return Err(SchemaError::RequiredFlag { path: at_required }),
        Some(other) => {
            return Err(wrong_shape(&at_required, "an array of property names", other));
        }
    }
    let at_additional = child(path, Step::Key("additionalProperties"));
    rules.additional = match additional {
        None | Some(Value::Bool(true)) => Additional::Allowed,
        Some(Value::Bool(false)) => Additional::Refused,
        Some(schema @ Value::Object(_)) => {
            Additional::Checked(Box::new(compile_subschema(schema, &at_additional, depth + 1, patterns)?))
        }
        Some(other) => {
            return Err(wrong_shape(&at_additional, "a boolean or a schema object", other));
        }
    };
    Ok(Some(rules))
}

/// A keyword that takes a count: `minLength`, `maxLength`, `minItems`, `maxItems`.
fn count(keywords: &Map<String, Value>, keyword: &str, path: &str) -> Result<Option<u64>, SchemaError> {
    match keywords.get(keyword) {
        None => Ok(None),
        Some(Value::Number(n)) if is_integer(n) && n.as_f64().is_some_and(|f| f >= 0.0) => {
            // Whole floats such as `5.0` count too; past u64::MAX the bound means "no limit" anyway.
            Ok(Some(n.as_u64().unwrap_or_else(|| n.as_f64().map_or(u64::MAX, |f| f as u64))))
        }
        Some(other) => Err(wrong_shape(&child(path, Step::Key(keyword)), "a non-negative integer", other)),
    }
}

fn compile_bounds(keywords: &Map<String, Value>, path: &str) -> Result<Bounds, SchemaError> {
    let number = |keyword: &str| match keywords.get(keyword) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(other) => Err(wrong_shape(&child(path, Step::Key(keyword)), "a number", other)),
    };
    let mut bounds = Bounds { minimum: number("minimum")?, maximum: number("maximum")?, ..Bounds::default() };
    // `exclusiveMinimum` is a number since draft 6, and a flag on `minimum` in draft 4.
    let exclusive = |keyword: &str, plain: &mut Option<Number>| match keywords.get(keyword) {
        None | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(plain.take()),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(other) => Err(wrong_shape(&child(path, Step::Key(keyword)), "a number", other)),
    };
    bounds.exclusive_minimum = exclusive("exclusiveMinimum", &mut bounds.minimum)?;
    bounds.exclusive_maximum = exclusive("exclusiveMaximum", &mut bounds.maximum)?;
    Ok(bounds)
}

fn child(path: &str, step: Step<'_>) -> String {
    let mut path = path.to_owned();
    push_step(&mut path, step);
    path
}

fn wrong_shape(path: &str, expected: &'static str, got: &Value) -> SchemaError {
    SchemaError::WrongShape { path: path.to_owned(), expected, got: short_json(got) }
}
