#![cfg(not(target_arch = "wasm32"))]
//! Properties of the argument checker on arbitrary JSON: it never panics, it stays within its bound, and
//! arguments built to match a schema always pass.

use interpane_policy::schema::{ArgSchema, MAX_REPORTED_PROBLEMS};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Arbitrary JSON whose object keys and strings are often drawn from `words`, so that generated values hit the
/// names a schema cares about.
fn json_over(words: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let word = move || prop::sample::select(words).prop_map(str::to_owned);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (-3i64..12).prop_map(Value::from),
        word().prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(prop_oneof![3 => word(), 1 => "[a-z]{1,4}"], inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

const ARG_WORDS: &[&str] = &["sku", "size", "quantity", "items", "kind", "a", "b", "small", "medium", "large"];

const SCHEMA_WORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "enum",
    "const",
    "items",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "additionalProperties",
    "object",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "null",
    "a",
    "b",
];

fn schemas() -> Result<Vec<ArgSchema>, TestCaseError> {
    [
        json!({
            "type": "object",
            "properties": {
                "sku": { "type": "string", "minLength": 1, "maxLength": 8 },
                "size": { "enum": ["small", "medium", "large", 1, null] },
                "quantity": { "type": "integer", "minimum": 1, "exclusiveMaximum": 100 },
                "items": { "type": "array", "maxItems": 3, "items": { "type": "object", "required": ["sku"], "additionalProperties": { "type": ["string", "number"] } } },
                "kind": { "const": { "a": [1, 2] } }
            },
            "required": ["sku"],
            "additionalProperties": false
        }),
        json!({ "type": ["object", "array", "null"], "items": { "$ref": "#" }, "additionalProperties": false }),
        json!({}),
        json!({ "properties": { "a": false, "b": true }, "items": { "type": "integer", "maximum": -1 } }),
    ]
    .iter()
    .map(|schema| ArgSchema::compile(schema).map_err(|error| TestCaseError::fail(error.to_string())))
    .collect()
}

proptest! {
    #[test]
    fn check_never_panics_and_stays_bounded(args in json_over(ARG_WORDS)) {
        for schema in schemas()? {
            if let Err(error) = schema.check(&args) {
                prop_assert!(!error.problems().is_empty());
                prop_assert!(error.problems().len() <= MAX_REPORTED_PROBLEMS);
                prop_assert!(!error.to_string().is_empty());
            }
        }
    }

    #[test]
    fn arbitrary_schemas_never_panic(schema in json_over(SCHEMA_WORDS), args in json_over(SCHEMA_WORDS)) {
        if let Ok(compiled) = ArgSchema::compile(&schema) {
            for value in [&args, &schema] {
                if let Err(error) = compiled.check(value) {
                    prop_assert!(error.problems().len() <= MAX_REPORTED_PROBLEMS);
                }
            }
        }
    }

    #[test]
    fn matching_arguments_pass(
        sku in "[a-z]{1,8}",
        size in prop_oneof![Just(json!("small")), Just(json!("large")), Just(json!(1)), Just(json!(null))],
        quantity in 1i64..100,
        skus in prop::collection::vec("[a-z]{0,5}", 0..4),
    ) {
        let items: Vec<Value> = skus.iter().take(3).map(|s| json!({ "sku": s, "extra": 1.5 })).collect();
        let args = json!({ "sku": sku, "size": size, "quantity": quantity, "items": items, "kind": { "a": [1.0, 2] } });
        prop_assert_eq!(schemas()?[0].check(&args), Ok(()));
    }
}
