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

/// What a page registers a tool with is held to WebMCP's schema subset (as the platform tests hold
/// `registerTool`): excluded keywords anywhere in the schema, and an `additionalProperties` other than `false`,
/// are refused with where they are; data inside `enum` and `const` is not looked at, and `compile` (the forms'
/// schemas) still ignores these keywords.
#[test]
fn registered_schemas_are_held_to_the_webmcp_subset() {
    let refused = [
        (json!({"type": "object", "properties": {"x": {"$ref": "#/foo"}}}), "inputSchema.properties.x.$ref: $ref"),
        (
            json!({"properties": {"x": {"type": "string", "format": "email"}}}),
            "inputSchema.properties.x.format: format",
        ),
        (
            json!({"properties": {"x": {}}, "additionalProperties": true}),
            "inputSchema.additionalProperties: additionalProperties other than false",
        ),
        (
            json!({"additionalProperties": {"type": "string"}}),
            "inputSchema.additionalProperties: additionalProperties other than false",
        ),
        (json!({"unevaluatedProperties": false}), "inputSchema.unevaluatedProperties: unevaluatedProperties"),
        (json!({"dependentRequired": {"x": ["y"]}}), "inputSchema.dependentRequired: dependentRequired"),
        (json!({"properties": {"x": {"$defs": {}}}}), "inputSchema.properties.x.$defs: $defs"),
        (json!({"items": [{"contentEncoding": "base64"}]}), "inputSchema.items[0].contentEncoding: contentEncoding"),
        (
            json!({"type": "array", "items": {"anyOf": [{}, {"format": "date"}]}}),
            "inputSchema.items.anyOf[1].format: format",
        ),
    ];
    for (schema, expected) in refused {
        let error = ArgSchema::compile_registered(&schema, None).unwrap_err();
        assert!(matches!(error, SchemaError::OutsideSubset { .. }), "{schema}: {error:?}");
        assert_eq!(error.to_string(), format!("{expected} is outside WebMCP's schema subset"), "{schema}");
        assert_eq!(ArgSchema::check_subset(&schema).unwrap_err(), error, "{schema}");
        assert!(ArgSchema::compile(&schema).is_ok(), "compile ignores these keywords: {schema}");
    }
    let accepted = [
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": false}),
        json!({"properties": {"x": {"enum": [{"$ref": "#/x", "format": "data"}]}}}),
        json!({"const": {"additionalProperties": true}}),
    ];
    for schema in accepted {
        assert!(ArgSchema::compile_registered(&schema, None).is_ok(), "{schema}");
    }
}

/// A stand-in engine for the policy's own tests (the bridge's is the browser's `RegExp`, tested in Chromium by
/// bridge/tests/conformance.rs): a literal, optionally anchored with `^` and `$`; a `[` is not a regular expression.
struct LiteralPatterns;

#[derive(Debug)]
struct Literal {
    text: String,
    start: bool,
    end: bool,
}

impl interpane_policy::schema::Pattern for Literal {
    fn is_match(&self, text: &str) -> bool {
        match (self.start, self.end) {
            (true, true) => text == self.text,
            (true, false) => text.starts_with(&self.text),
            (false, true) => text.ends_with(&self.text),
            (false, false) => text.contains(&self.text),
        }
    }
}

impl interpane_policy::schema::PatternEngine for LiteralPatterns {
    fn compile(&self, source: &str) -> Result<std::rc::Rc<dyn interpane_policy::schema::Pattern>, String> {
        if source.contains('[') {
            return Err("missing /".into());
        }
        let start = source.starts_with('^');
        let end = source.ends_with('$');
        let text = source.trim_start_matches('^').trim_end_matches('$').to_owned();
        Ok(std::rc::Rc::new(Literal { text, start, end }))
    }
}

/// With an engine, `pattern` is compiled when the tool is registered (a bad one refused with where it is and the
/// engine's words) and holds every string it applies to; without one, and with `compile`, it is not enforced.
#[test]
fn patterns_are_compiled_by_the_engine_given_and_enforced() {
    let schema = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^ab"}}});
    let checked = ArgSchema::compile_registered(&schema, Some(&LiteralPatterns)).unwrap();
    assert!(checked.check(&json!({"code": "abc"})).is_ok());
    let refused = checked.check(&json!({"code": "xab"})).unwrap_err();
    assert_eq!(refused.to_string(), r#"code must match the pattern "^ab""#);
    let message: Value = serde_json::from_str(&refused.to_message("")).unwrap();
    assert_eq!(
        (&message["path"], &message["reason"], &message["schemaPath"]),
        (&json!("/code"), &json!("pattern"), &json!("/pattern"))
    );
    for unchecked in [ArgSchema::compile_registered(&schema, None).unwrap(), ArgSchema::compile(&schema).unwrap()] {
        assert!(unchecked.check(&json!({"code": "xab"})).is_ok());
    }
    let bad = json!({"type": "string", "pattern": "["});
    assert_eq!(
        ArgSchema::compile_registered(&bad, Some(&LiteralPatterns)).unwrap_err().to_string(),
        "inputSchema.pattern: [ is not a regular expression: missing /"
    );
    let not_text = json!({"pattern": 5});
    assert!(matches!(
        ArgSchema::compile_registered(&not_text, Some(&LiteralPatterns)),
        Err(SchemaError::WrongShape { .. })
    ));
}
