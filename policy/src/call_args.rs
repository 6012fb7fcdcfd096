//! What a call's arguments must be before a call is made, whoever makes it: the JavaScript API's `executeTool`,
//! the Rust API's `Bridge::execute_tool`, and native WebMCP's path into this page's tools (the browser's agent, a
//! native-only frame). One rule set, held to the page's configured [`Limits`], whichever way the text came.
//!
//! ```
//! use interpane_policy::call_args::{CallArgsError, accept_call_args};
//! use interpane_policy::Limits;
//!
//! let limits = Limits { max_message_bytes: 64, ..Limits::default() };
//! let args = accept_call_args(r#"{"sku":"a1"}"#, &limits)?;
//! assert_eq!(args.as_str(), r#"{"sku":"a1"}"#);
//! let big = format!(r#"{{"note":"{}"}}"#, "x".repeat(100));
//! assert!(matches!(accept_call_args(&big, &limits), Err(CallArgsError::Json(_))));
//! # Ok::<(), CallArgsError>(())
//! ```

use thiserror::Error;

use crate::envelope::{JsonError, JsonKind, JsonText};
use crate::limits::Limits;

/// Why a call's arguments were refused before the call was made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CallArgsError {
    /// The text is too large, too deep, or not JSON.
    #[error("the arguments {0}")]
    Json(#[from] JsonError),
    /// The value is neither an object nor an array (a string, a number, `null`...).
    #[error("the arguments must be an object or an array (or JSON text of one)")]
    NotAnObject,
    /// An object holds a `__proto__` key, which a provider's `JSON.parse` would turn into a prototype change.
    #[error("the arguments hold a \"__proto__\" key, which no provider accepts")]
    ProtoKey,
}

/// Checks a call's arguments, `text` being their JSON text, against the page's `limits`: the text's size and
/// nesting, an object or an array (arrays are objects to WebMCP, whose `executeTool` takes any object), no
/// `__proto__` key anywhere, however the caller gave them.
pub fn accept_call_args(text: &str, limits: &Limits) -> Result<JsonText, CallArgsError> {
    let args = JsonText::parse(text, limits)?;
    if !args.is_object() && args.kind() != JsonKind::Array {
        return Err(CallArgsError::NotAnObject);
    }
    if args.has_proto_key() {
        return Err(CallArgsError::ProtoKey);
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn one_rule_set_for_every_caller() {
        let limits = Limits { max_message_bytes: 32, max_depth: 3, ..Limits::default() };
        let cases: &[(&str, Result<&str, CallArgsError>)] = &[
            (r#" {"a":1} "#, Ok(r#"{"a":1}"#)),
            (r#"{"a":1}"#, Ok(r#"{"a":1}"#)),
            ("[1,2]", Ok("[1,2]")),
            ("\"a\"", Err(CallArgsError::NotAnObject)),
            ("7", Err(CallArgsError::NotAnObject)),
            ("null", Err(CallArgsError::NotAnObject)),
            (r#"{"__proto__":{}}"#, Err(CallArgsError::ProtoKey)),
            (r#"{"a":{"__proto__":1}}"#, Err(CallArgsError::ProtoKey)),
            (
                r#"{"a":"0123456789012345678901234"}"#,
                Err(CallArgsError::Json(JsonError::TooLarge { bytes: 33, limit: 32 })),
            ),
            (r#"{"a":[[[1]]]}"#, Err(CallArgsError::Json(JsonError::TooDeep { limit: 3 }))),
        ];
        for (text, expected) in cases {
            let got = accept_call_args(text, &limits);
            assert_eq!(got.as_ref().map(JsonText::as_str).map_err(Clone::clone), expected.clone(), "{text}");
        }
    }

    #[test]
    fn messages_say_what_to_fix() {
        let limits = Limits { max_message_bytes: 8, ..Limits::default() };
        let too_large = accept_call_args(r#"{"a":"long"}"#, &limits).unwrap_err();
        assert_eq!(too_large.to_string(), "the arguments text is 12 bytes: the limit is 8");
        assert_eq!(
            CallArgsError::ProtoKey.to_string(),
            "the arguments hold a \"__proto__\" key, which no provider accepts"
        );
    }
}
