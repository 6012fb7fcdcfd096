//! JSON values compared the way JSON Schema compares them: numbers by their mathematical value, so `1` equals
//! `1.0`, and an integer-valued float counts as an integer.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// Whether `n` has no fractional part (`2` and `2.0` do, `2.5` does not).
pub(crate) fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Orders two numbers by value, exactly when both are integers and through `f64` otherwise.
pub(crate) fn compare(a: &Number, b: &Number) -> Ordering {
    match (as_i128(a), as_i128(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => {
            let (a, b) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Equality as JSON Schema defines it for `enum` and `const`: numbers by value, objects regardless of key order.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Ordering::Equal,
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(key, a)| b.get(key).is_some_and(|b| json_equal(a, b)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn num(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            other => panic!("not a number: {other}"),
        }
    }

    #[test]
    fn integers() {
        for (value, expected) in
            [(json!(2), true), (json!(-2), true), (json!(2.0), true), (json!(2.5), false), (json!(u64::MAX), true)]
        {
            assert_eq!(is_integer(&num(value.clone())), expected, "{value}");
        }
    }

    #[test]
    fn comparisons() {
        let cases = [
            (json!(1), json!(1.0), Ordering::Equal),
            (json!(1), json!(1.5), Ordering::Less),
            (json!(-1), json!(u64::MAX), Ordering::Less),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), Ordering::Greater),
            (json!(0.5), json!(0.25), Ordering::Greater),
        ];
        for (a, b, expected) in cases {
            assert_eq!(compare(&num(a.clone()), &num(b.clone())), expected, "{a} vs {b}");
        }
    }

    #[test]
    fn equality() {
        assert!(json_equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!json_equal(&json!("1"), &json!(1)));
        assert!(!json_equal(&json!([1]), &json!([1, 1])));
    }
}
