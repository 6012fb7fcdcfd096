//! Schemas that are themselves invalid are refused at `registerTool`, with the path of the fault; schemas with
//! keywords outside the subset compile.
#![cfg_attr(
    target_arch = "wasm32",
    allow(clippy::unwrap_used, clippy::panic, reason = "clippy does not see wasm_bindgen_test functions as tests")
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::schema::{ArgSchema, MAX_SCHEMA_DEPTH, SchemaError};
use serde_json::{Value, json};

const TYPES: &str = "object, string, number, integer, boolean, array, null";

fn refused() -> Vec<(Value, String)> {
    let required_flag = "inputSchema.properties.sku.required: must be an array of property names; to require this \
                         property, list its name in the `required` array of the object that holds it";
    vec![
        (json!("object"), r#"inputSchema: must be an object; got "object""#.into()),
        (json!(null), "inputSchema: must be an object; got null".into()),
        (json!([{"type": "object"}]), r#"inputSchema: must be an object; got [{"type":"object"}]"#.into()),
        (json!(true), "inputSchema: must be an object; got true".into()),
        (json!({"type": "int"}), format!(r#"inputSchema.type: must be one of {TYPES}; got "int""#)),
        (json!({"type": "Object"}), format!(r#"inputSchema.type: must be one of {TYPES}; got "Object""#)),
        (json!({"type": []}), "inputSchema.type: must not be empty, or no value could match".into()),
        (json!({"type": ["string", 3]}), "inputSchema.type[1]: must be a type name; got 3".into()),
        (json!({"type": 3}), "inputSchema.type: must be a type name or an array of type names; got 3".into()),
        (
            json!({"properties": {"size": {"enum": "small"}}}),
            r#"inputSchema.properties.size.enum: must be an array; got "small""#.into(),
        ),
        (
            json!({"properties": {"size": {"enum": []}}}),
            "inputSchema.properties.size.enum: must not be empty, or no value could match".into(),
        ),
        (json!({"minimum": "1"}), r#"inputSchema.minimum: must be a number; got "1""#.into()),
        (json!({"maximum": null}), "inputSchema.maximum: must be a number; got null".into()),
        (json!({"exclusiveMinimum": "0"}), r#"inputSchema.exclusiveMinimum: must be a number; got "0""#.into()),
        (json!({"properties": []}), "inputSchema.properties: must be an object; got []".into()),
        (
            json!({"properties": {"a": 3}}),
            "inputSchema.properties.a: must be a schema object (or true or false); got 3".into(),
        ),
        (json!({"required": "sku"}), r#"inputSchema.required: must be an array of property names; got "sku""#.into()),
        (json!({"required": ["sku", 3]}), "inputSchema.required[1]: must be a string; got 3".into()),
        (json!({"properties": {"sku": {"type": "string", "required": true}}}), required_flag.into()),
        (
            json!({"additionalProperties": "no"}),
            r#"inputSchema.additionalProperties: must be a boolean or a schema object; got "no""#.into(),
        ),
        (
            json!({"properties": {"tags": {"type": "array", "items": 3}}}),
            "inputSchema.properties.tags.items: must be a schema object (or true or false); got 3".into(),
        ),
        (json!({"maxLength": -1}), "inputSchema.maxLength: must be a non-negative integer; got -1".into()),
        (json!({"minLength": 1.5}), "inputSchema.minLength: must be a non-negative integer; got 1.5".into()),
        (json!({"maxItems": "3"}), r#"inputSchema.maxItems: must be a non-negative integer; got "3""#.into()),
        (
            json!({"properties": {"a b": {"type": "x"}}}),
            format!(r#"inputSchema.properties["a b"].type: must be one of {TYPES}; got "x""#),
        ),
        (
            json!({"items": {"additionalProperties": {"properties": {"n": {"minimum": false}}}}}),
            "inputSchema.items.additionalProperties.properties.n.minimum: must be a number; got false".into(),
        ),
    ]
}

#[test]
fn invalid_schemas_are_refused_with_their_path() {
    let mut failures = Vec::new();
    for (schema, expected) in refused() {
        match ArgSchema::compile(&schema) {
            Ok(_) => failures.push(format!("{schema}: compiled, want {expected:?}")),
            Err(error) if error.to_string() != expected => {
                failures.push(format!("{schema}:\n   got {:?}\n  want {expected:?}", error.to_string()))
            }
            Err(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_carry_their_path() {
    assert_eq!(
        ArgSchema::compile(&json!({"properties": {"size": {"enum": "small"}}})).unwrap_err(),
        SchemaError::WrongShape {
            path: "inputSchema.properties.size.enum".into(),
            expected: "an array",
            got: r#""small""#.into()
        }
    );
}

#[test]
fn schemas_outside_the_subset_compile() {
    let accepted = [
        json!({}),
        json!({"type": "object"}),
        json!({"type": ["object", "null"], "properties": {}}),
        json!({"type": "object", "anyOf": [1, 2], "pattern": 5, "format": "x", "$ref": 3, "x-custom": {}}),
        json!({"items": [{"type": "string"}], "prefixItems": "x"}),
        json!({"additionalProperties": true, "properties": {"a": true, "b": false}}),
        json!({"minLength": 5.0, "maxLength": 0, "minItems": 18_446_744_073_709_551_615_u64}),
        json!({"maxLength": 1e30}),
        json!({"exclusiveMinimum": true, "exclusiveMaximum": false}),
        json!({"type": ["string", "string"]}),
        json!({"required": ["a", "a"], "enum": [1, 1], "const": null}),
        json!({"required": ["not_in_properties"], "additionalProperties": false}),
        json!({"minimum": 10, "maximum": 1}),
    ];
    for schema in accepted {
        if let Err(error) = ArgSchema::compile(&schema) {
            panic!("{schema} was refused: {error}");
        }
    }
}

/// A schema whose properties nest `levels` deep: `{"properties": {"a": {"properties": {"a": ...}}}}`.
fn nested(levels: usize) -> Value {
    (0..levels).fold(json!({"type": "string"}), |inner, _| json!({"type": "object", "properties": {"a": inner}}))
}

#[test]
fn nesting_is_bounded() {
    assert!(ArgSchema::compile(&nested(MAX_SCHEMA_DEPTH)).is_ok());
    let path = format!("inputSchema{}", ".properties.a".repeat(MAX_SCHEMA_DEPTH + 1));
    assert_eq!(
        ArgSchema::compile(&nested(MAX_SCHEMA_DEPTH + 1)).unwrap_err().to_string(),
        format!("{path}: schemas nest more than {MAX_SCHEMA_DEPTH} levels deep here; flatten the schema")
    );
}

#[test]
fn the_deepest_schema_checks_the_deepest_value() {
    let schema = ArgSchema::compile(&nested(MAX_SCHEMA_DEPTH)).unwrap();
    let args = (0..MAX_SCHEMA_DEPTH).fold(json!(7), |inner, _| json!({"a": inner}));
    let path = vec!["a"; MAX_SCHEMA_DEPTH].join(".");
    assert_eq!(schema.check(&args).unwrap_err().to_string(), format!("{path} must be a string; got 7"));
}
