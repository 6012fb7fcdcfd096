//! Cost of checking tool arguments: compiling a typical tool schema, checking valid and invalid arguments
//! against it, and checking an argument that holds a 1000-item array.
//!
//! Run with `cargo bench -p interpane-policy --bench schema`.

#[cfg(not(target_arch = "wasm32"))]
#[allow(clippy::unwrap_used, reason = "a benchmark whose inputs do not behave as described must stop at once")]
mod native {
    use std::hint::black_box;

    use criterion::{Criterion, Throughput, criterion_group};
    use interpane_policy::schema::ArgSchema;
    use serde_json::{Value, json};

    /// Five properties, an enum, required names, and an array of nested objects.
    fn typical_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "sku": { "type": "string", "minLength": 1, "maxLength": 32 },
                "size": { "type": "string", "enum": ["small", "medium", "large"] },
                "quantity": { "type": "integer", "minimum": 1, "maximum": 99 },
                "note": { "type": ["string", "null"], "maxLength": 200 },
                "extras": {
                    "type": "array",
                    "maxItems": 10,
                    "items": {
                        "type": "object",
                        "properties": { "name": { "type": "string" }, "price": { "type": "number", "minimum": 0 } },
                        "required": ["name"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["sku", "quantity"],
            "additionalProperties": false
        })
    }

    fn typical_valid() -> Value {
        json!({
            "sku": "margherita",
            "size": "large",
            "quantity": 2,
            "note": "extra basil, please",
            "extras": [{ "name": "olives", "price": 1.5 }, { "name": "chili" }]
        })
    }

    /// Four problems: an enum miss, a fraction, a missing name and an extra property.
    fn typical_invalid() -> Value {
        json!({
            "sku": "margherita",
            "size": "huge",
            "quantity": 2.5,
            "extras": [{ "price": 1.5 }],
            "colour": "red"
        })
    }

    fn lines_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "lines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "sku": { "type": "string", "maxLength": 64 },
                            "qty": { "type": "integer", "minimum": 1 },
                            "unit": { "enum": ["piece", "kg", "box"] }
                        },
                        "required": ["sku", "qty"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["lines"]
        })
    }

    fn lines(count: usize, broken_every: Option<usize>) -> Value {
        let lines: Vec<Value> = (0..count)
            .map(|n| match broken_every {
                Some(every) if n % every == every - 1 => {
                    json!({ "sku": format!("sku-{n}"), "qty": 0 })
                }
                _ => json!({ "sku": format!("sku-{n}"), "qty": n + 1, "unit": "box" }),
            })
            .collect();
        json!({ "lines": lines })
    }

    fn compile(c: &mut Criterion) {
        let schema = typical_schema();
        c.bench_function("schema/compile/typical", |b| b.iter(|| ArgSchema::compile(black_box(&schema))));
    }

    fn check_typical(c: &mut Criterion) {
        let schema = ArgSchema::compile(&typical_schema()).unwrap();
        let (valid, invalid) = (typical_valid(), typical_invalid());
        assert!(schema.check(&valid).is_ok());
        assert_eq!(schema.check(&invalid).unwrap_err().problems().len(), 4);
        c.bench_function("schema/check/typical/valid", |b| b.iter(|| schema.check(black_box(&valid))));
        c.bench_function("schema/check/typical/invalid", |b| b.iter(|| schema.check(black_box(&invalid))));
    }

    fn check_large_array(c: &mut Criterion) {
        let schema = ArgSchema::compile(&lines_schema()).unwrap();
        let valid = lines(1000, None);
        let last_broken = lines(1000, Some(1000));
        let all_broken = lines(1000, Some(1));
        assert!(schema.check(&valid).is_ok());
        assert_eq!(schema.check(&last_broken).unwrap_err().problems().len(), 1);
        assert!(schema.check(&all_broken).unwrap_err().has_more());
        let mut group = c.benchmark_group("schema/check/array_1000");
        group.throughput(Throughput::Elements(1000));
        group.bench_function("valid", |b| b.iter(|| schema.check(black_box(&valid))));
        group.bench_function("last_item_invalid", |b| b.iter(|| schema.check(black_box(&last_broken))));
        group.bench_function("every_item_invalid", |b| b.iter(|| schema.check(black_box(&all_broken))));
        group.finish();
    }

    criterion_group!(benches, compile, check_typical, check_large_array);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
