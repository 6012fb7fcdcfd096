//! Arguments checked against tool schemas: one table of (schema, arguments, exact outcome).
#![cfg_attr(
    target_arch = "wasm32",
    allow(clippy::unwrap_used, clippy::panic, reason = "clippy does not see wasm_bindgen_test functions as tests")
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::schema::{ArgProblem, ArgSchema, MAX_REPORTED_PROBLEMS, ProblemKind};
use interpane_policy::{ErrorKind, ToolError};
use serde_json::{Value, json};

/// A shop tool: five properties, an enum, required names, no extras.
fn order() -> Value {
    json!({
        "type": "object",
        "properties": {
            "sku": { "type": "string", "minLength": 1, "maxLength": 32 },
            "size": { "enum": ["small", "medium", "large"] },
            "quantity": { "type": "integer", "minimum": 1, "maximum": 99 },
            "note": { "type": ["string", "null"], "maxLength": 200 },
            "gift": { "type": "boolean" }
        },
        "required": ["sku", "quantity"],
        "additionalProperties": false
    })
}

/// A cart tool: an array of item objects.
fn cart() -> Value {
    json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "minItems": 1,
                "maxItems": 50,
                "items": {
                    "type": "object",
                    "properties": { "sku": { "type": "string" }, "qty": { "type": "integer", "minimum": 1 } },
                    "required": ["sku"]
                }
            }
        },
        "required": ["items"]
    })
}

/// A schema with one property `name` of schema `property`.
fn one(name: &str, property: Value) -> Value {
    json!({ "type": "object", "properties": { name: property } })
}

struct Case {
    name: &'static str,
    schema: Value,
    args: Value,
    expected: Result<(), String>,
}

fn ok(name: &'static str, schema: Value, args: Value) -> Case {
    Case { name, schema, args, expected: Ok(()) }
}

fn err(name: &'static str, schema: Value, args: Value, message: impl Into<String>) -> Case {
    Case { name, schema, args, expected: Err(message.into()) }
}

const ORDER_NAMES: &str = "gift, note, quantity, size, sku";

fn cases() -> Vec<Case> {
    let long = "a".repeat(100);
    vec![
        // The shop tool.
        ok(
            "every property valid",
            order(),
            json!({"sku": "margherita", "size": "large", "quantity": 2, "note": "no basil", "gift": true}),
        ),
        ok("only the required properties", order(), json!({"sku": "margherita", "quantity": 1})),
        err(
            "enum refuses another string",
            order(),
            json!({"sku": "m", "quantity": 1, "size": "huge"}),
            r#"size must be one of small, medium, large; got "huge""#,
        ),
        err(
            "enum refuses another type",
            order(),
            json!({"sku": "m", "quantity": 1, "size": 5}),
            "size must be one of small, medium, large; got 5",
        ),
        err(
            "enum is case-sensitive",
            order(),
            json!({"sku": "m", "quantity": 1, "size": "Small"}),
            r#"size must be one of small, medium, large; got "Small""#,
        ),
        err(
            "integer refuses a fraction",
            order(),
            json!({"sku": "m", "quantity": 2.5}),
            "quantity must be an integer; got 2.5",
        ),
        ok("integer takes a whole float", order(), json!({"sku": "m", "quantity": 2.0})),
        err(
            "integer refuses a numeric string",
            order(),
            json!({"sku": "m", "quantity": "2"}),
            r#"quantity must be an integer; got "2""#,
        ),
        err("minimum", order(), json!({"sku": "m", "quantity": 0}), "quantity must be at least 1; got 0"),
        err("maximum", order(), json!({"sku": "m", "quantity": 120}), "quantity must be at most 99; got 120"),
        ok("bounds are inclusive", order(), json!({"sku": "m", "quantity": 99})),
        err("one required property missing", order(), json!({"quantity": 1}), "sku is required"),
        err(
            "all required properties missing, in schema order",
            order(),
            json!({}),
            "sku is required; quantity is required",
        ),
        err(
            "maxLength",
            order(),
            json!({"sku": "m", "quantity": 1, "note": "x".repeat(512)}),
            "note must be at most 200 characters; got 512",
        ),
        err("minLength", order(), json!({"sku": "", "quantity": 1}), "sku must be at least 1 character; got 0"),
        ok("lengths count code points, not bytes", order(), json!({"sku": "é".repeat(32), "quantity": 1})),
        err(
            "a code point past maxLength",
            order(),
            json!({"sku": "😀".repeat(33), "quantity": 1}),
            "sku must be at most 32 characters; got 33",
        ),
        ok("a union takes null", order(), json!({"sku": "m", "quantity": 1, "note": null})),
        err(
            "a union names every type",
            order(),
            json!({"sku": "m", "quantity": 1, "note": 12}),
            "note must be a string or null; got 12",
        ),
        err(
            "boolean",
            order(),
            json!({"sku": "m", "quantity": 1, "gift": "yes"}),
            r#"gift must be a boolean; got "yes""#,
        ),
        err(
            "unexpected property",
            order(),
            json!({"sku": "m", "quantity": 1, "colour": "red"}),
            format!(r#"unexpected property "colour" (allowed: {ORDER_NAMES})"#),
        ),
        err(
            "unexpected properties, sorted",
            order(),
            json!({"sku": "m", "quantity": 1, "zz": 1, "colour": "red"}),
            format!(
                r#"unexpected property "colour" (allowed: {ORDER_NAMES}); unexpected property "zz" (allowed: {ORDER_NAMES})"#
            ),
        ),
        err(
            "every problem is reported: required, then properties by name",
            order(),
            json!({"size": "huge", "quantity": 2.5, "colour": "red"}),
            format!(
                r#"sku is required; unexpected property "colour" (allowed: {ORDER_NAMES}); quantity must be an integer; got 2.5; size must be one of small, medium, large; got "huge""#
            ),
        ),
        err("arguments that are not an object", order(), json!([]), "arguments must be an object; got []"),
        err("null arguments", order(), json!(null), "arguments must be an object; got null"),
        err(
            "a long value is shortened",
            order(),
            json!({"sku": "m", "quantity": 1, "size": long}),
            format!(r#"size must be one of small, medium, large; got "{}…"#, "a".repeat(39)),
        ),
        // Arrays of objects.
        ok("cart with items", cart(), json!({"items": [{"sku": "a", "qty": 1}, {"sku": "b"}]})),
        err(
            "a required property inside an item",
            cart(),
            json!({"items": [{"sku": "a"}, {"sku": "b"}, {"qty": 1}]}),
            "items[2].sku is required",
        ),
        err(
            "a bound inside an item",
            cart(),
            json!({"items": [{"sku": "a"}, {"sku": "b", "qty": 0}]}),
            "items[1].qty must be at least 1; got 0",
        ),
        err(
            "problems in several items",
            cart(),
            json!({"items": [{"qty": 1}, "x"]}),
            r#"items[0].sku is required; items[1] must be an object; got "x""#,
        ),
        err("minItems", cart(), json!({"items": []}), "items must have at least 1 item; got 0"),
        err(
            "maxItems",
            cart(),
            json!({"items": vec![json!({"sku": "a"}); 51]}),
            "items must have at most 50 items; got 51",
        ),
        err("an array expected", cart(), json!({"items": "margherita"}), r#"items must be an array; got "margherita""#),
        ok(
            "items: true takes anything",
            one("tags", json!({"type": "array", "items": true})),
            json!({"tags": [1, "a", null]}),
        ),
        ok(
            "items in tuple form are ignored",
            one("pair", json!({"type": "array", "items": [{"type": "string"}]})),
            json!({"pair": [1, 2]}),
        ),
        // enum and const.
        ok("const", one("kind", json!({"const": "pizza"})), json!({"kind": "pizza"})),
        err(
            "const refuses another value",
            one("kind", json!({"const": "pizza"})),
            json!({"kind": "pasta"}),
            r#"kind must be pizza; got "pasta""#,
        ),
        ok("const compares numbers by value", one("version", json!({"const": 1})), json!({"version": 1.0})),
        err(
            "enum of numbers",
            one("stars", json!({"enum": [1, 2, 3]})),
            json!({"stars": 4}),
            "stars must be one of 1, 2, 3; got 4",
        ),
        ok("enum with null", one("size", json!({"enum": ["small", null]})), json!({"size": null})),
        ok("enum with an object", one("spot", json!({"enum": [{"x": 1, "y": 2}]})), json!({"spot": {"y": 2, "x": 1}})),
        err(
            "a single-valued enum",
            one("mode", json!({"enum": ["fast"]})),
            json!({"mode": "slow"}),
            r#"mode must be fast; got "slow""#,
        ),
        err(
            "enum strings that need quotes",
            one("code", json!({"enum": ["", "a,b", "12"]})),
            json!({"code": "c"}),
            r#"code must be one of "", "a,b", "12"; got "c""#,
        ),
        // Types.
        err(
            "a union of two types",
            one("id", json!({"type": ["string", "number"]})),
            json!({"id": true}),
            "id must be a string or a number; got true",
        ),
        ok("number takes an integer", one("price", json!({"type": "number"})), json!({"price": 3})),
        ok("integer takes 1e2", one("count", json!({"type": "integer"})), json!({"count": 1e2})),
        ok(
            "without type, object keywords apply only to objects",
            json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!("text"),
        ),
        ok(
            "without type, maxLength applies only to strings",
            one("code", json!({"maxLength": 2})),
            json!({"code": 12345}),
        ),
        ok(
            "minimum applies only to numbers",
            one("code", json!({"type": ["string", "number"], "minimum": 10})),
            json!({"code": "5"}),
        ),
        // Numbers.
        err(
            "exclusiveMinimum",
            one("price", json!({"type": "number", "exclusiveMinimum": 0})),
            json!({"price": 0}),
            "price must be greater than 0; got 0",
        ),
        err(
            "exclusiveMaximum",
            one("percent", json!({"exclusiveMaximum": 100})),
            json!({"percent": 100}),
            "percent must be less than 100; got 100",
        ),
        err(
            "draft-4 exclusiveMinimum flag",
            one("price", json!({"minimum": 0, "exclusiveMinimum": true})),
            json!({"price": 0}),
            "price must be greater than 0; got 0",
        ),
        err(
            "fractional bounds",
            one("ratio", json!({"minimum": 0.5})),
            json!({"ratio": 0.25}),
            "ratio must be at least 0.5; got 0.25",
        ),
        err("a huge number", one("n", json!({"maximum": 10})), json!({"n": 1e300}), "n must be at most 10; got 1e+300"),
        err(
            "large integers compare exactly",
            one("n", json!({"maximum": 9_007_199_254_740_992_u64})),
            json!({"n": 9_007_199_254_740_993_u64}),
            "n must be at most 9007199254740992; got 9007199254740993",
        ),
        err(
            "a negative integer under a positive minimum",
            one("n", json!({"minimum": 0})),
            json!({"n": i64::MIN}),
            "n must be at least 0; got -9223372036854775808",
        ),
        // additionalProperties.
        err(
            "extras checked against a schema",
            one("labels", json!({"type": "object", "additionalProperties": {"type": "string"}})),
            json!({"labels": {"a": "x", "b": 1}}),
            "labels.b must be a string; got 1",
        ),
        err(
            "an unexpected property inside a nested object",
            one(
                "shipping",
                json!({"type": "object", "properties": {"city": {}, "zip": {}}, "additionalProperties": false}),
            ),
            json!({"shipping": {"city": "Oslo", "colour": "red"}}),
            r#"unexpected property "colour" in shipping (allowed: city, zip)"#,
        ),
        err(
            "no properties allowed",
            json!({"type": "object", "additionalProperties": false}),
            json!({"x": 1}),
            r#"unexpected property "x" (no properties are allowed)"#,
        ),
        ok(
            "additionalProperties: true",
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true}),
            json!({"b": 1}),
        ),
        err(
            "a property whose schema is false",
            one("legacy", json!(false)),
            json!({"legacy": 1}),
            "legacy is not allowed",
        ),
        // Paths and names.
        err(
            "a name that needs quotes in a path",
            json!({"type": "object", "required": ["first name"]}),
            json!({}),
            r#"["first name"] is required"#,
        ),
        err(
            "a unicode name stays bare",
            one("größe", json!({"type": "string"})),
            json!({"größe": 1}),
            "größe must be a string; got 1",
        ),
        err(
            "a deep path",
            one(
                "a",
                json!({"type": "object", "properties": {"b": {"type": "array", "items": {"type": "object", "properties": {"c": {"type": "integer"}}}}}}),
            ),
            json!({"a": {"b": [{"c": 1}, {"c": "x"}]}}),
            r#"a.b[1].c must be an integer; got "x""#,
        ),
        err(
            "a long unexpected name is shortened",
            json!({"additionalProperties": false}),
            json!({"k".repeat(60): 1}),
            format!(r#"unexpected property "{}… (no properties are allowed)"#, "k".repeat(39)),
        ),
        // Keywords outside the subset.
        ok(
            "unsupported keywords are ignored",
            json!({"type": "object", "properties": {"email": {"type": "string", "format": "email", "pattern": "^x$"}}, "anyOf": [{"required": ["nope"]}], "$ref": "#/x"}),
            json!({"email": "not an email"}),
        ),
        ok("an empty schema takes anything", json!({}), json!([1, {"a": null}])),
    ]
}

#[test]
fn table() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let schema = match ArgSchema::compile(&case.schema) {
            Ok(schema) => schema,
            Err(error) => {
                failures.push(format!("{}: schema refused: {error}", case.name));
                continue;
            }
        };
        let got = schema.check(&case.args).map_err(|error| error.to_string());
        if got != case.expected {
            failures.push(format!("{}:\n   got {got:?}\n  want {:?}", case.name, case.expected));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn reports_at_most_the_bound_and_says_there_were_more() {
    let schema = ArgSchema::compile(&json!({"type": "object", "additionalProperties": false})).unwrap();
    let args: serde_json::Map<String, Value> = (0..12).map(|n| (format!("x{n:02}"), json!(n))).collect();
    let error = schema.check(&Value::Object(args)).unwrap_err();
    assert_eq!(error.problems().len(), MAX_REPORTED_PROBLEMS);
    assert!(error.has_more());
    let listed: Vec<String> = (0..MAX_REPORTED_PROBLEMS)
        .map(|n| format!(r#"unexpected property "x{n:02}" (no properties are allowed)"#))
        .collect();
    assert_eq!(error.to_string(), format!("{}; more problems were not listed", listed.join("; ")));
}

#[test]
fn exactly_the_bound_is_not_more() {
    let schema = ArgSchema::compile(&json!({"type": "object", "additionalProperties": false})).unwrap();
    let args: serde_json::Map<String, Value> =
        (0..MAX_REPORTED_PROBLEMS).map(|n| (format!("x{n:02}"), json!(n))).collect();
    let error = schema.check(&Value::Object(args)).unwrap_err();
    assert_eq!(error.problems().len(), MAX_REPORTED_PROBLEMS);
    assert!(!error.has_more());
}

#[test]
fn a_large_invalid_array_stops_at_the_bound() {
    let schema = ArgSchema::compile(&cart()).unwrap();
    let items: Vec<Value> = (0..1000).map(|_| json!({"qty": 0})).collect();
    let error = schema.check(&json!({ "items": items })).unwrap_err();
    assert_eq!(error.problems().len(), MAX_REPORTED_PROBLEMS);
    assert!(error.has_more());
    assert_eq!(error.problems()[0].to_string(), "items must have at most 50 items; got 1000");
    assert_eq!(error.problems()[1].to_string(), "items[0].sku is required");
    assert_eq!(error.problems()[2].to_string(), "items[0].qty must be at least 1; got 0");
}

#[test]
fn problems_carry_their_path_and_kind() {
    let schema = ArgSchema::compile(&order()).unwrap();
    let error = schema.check(&json!({"sku": "m", "quantity": 2.5})).unwrap_err();
    assert_eq!(
        error.problems(),
        [ArgProblem {
            path: "quantity".into(),
            pointer: "/quantity".into(),
            kind: ProblemKind::WrongType { expected: "an integer".into(), got: "2.5".into() },
        }]
    );
    assert_eq!(error.kind(), ErrorKind::InvalidArgs);
}

#[test]
fn becomes_an_invalid_args_tool_error() {
    let schema = ArgSchema::compile(&order()).unwrap();
    let error: ToolError = schema.check(&json!({"quantity": 1})).unwrap_err().into();
    assert_eq!(error.kind, ErrorKind::InvalidArgs);
    assert_eq!(
        error.message,
        r#"{"message":"sku is required","path":"/sku","reason":"required","schemaPath":"/required"}"#
    );
    assert_eq!(error.error_name(), "TypeError");
}

/// The message of a refusal is what native WebMCP's `DataError` carries, and the platform tests parse: the first
/// problem's place as a JSON Pointer (escaped as RFC 6901 says), the keyword it breaks, and the words of every
/// problem.
#[test]
fn a_refusal_names_its_first_problem_as_a_pointer_and_a_keyword() {
    let schema = ArgSchema::compile(&json!({
        "type": "object",
        "properties": {
            "a/b~c": { "type": "array", "items": { "enum": ["x"] } },
            "n": { "const": 3 },
            "low": { "exclusiveMinimum": 0 }
        }
    }))
    .unwrap();
    let cases = [
        (json!({ "a/b~c": ["x", "y"] }), "/a~1b~0c/1", "enum"),
        (json!({ "n": 4 }), "/n", "const"),
        (json!({ "low": 0 }), "/low", "exclusiveMinimum"),
    ];
    for (args, pointer, keyword) in cases {
        let error = schema.check(&args).unwrap_err();
        let message: serde_json::Value = serde_json::from_str(&error.to_message("")).unwrap();
        assert_eq!(message["path"], json!(pointer), "{args}");
        assert_eq!(message["reason"], json!(keyword), "{args}");
        assert_eq!(message["schemaPath"], json!(format!("/{keyword}")), "{args}");
        assert_eq!(message["message"], json!(error.to_string()), "{args}");
    }
}

#[test]
fn one_compiled_schema_checks_many_calls() {
    let schema = ArgSchema::compile(&order()).unwrap();
    for quantity in 1..=99 {
        assert_eq!(schema.check(&json!({"sku": "m", "quantity": quantity})), Ok(()));
    }
}
