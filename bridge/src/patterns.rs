//! The browser's `RegExp` as the schema compiler's [`PatternEngine`]: a tool's `pattern` means what it means to the
//! page that wrote it, and the wasm carries no regular expression engine of its own. And the argument check of a
//! tool the page registers through either API, compiled with it.

use std::rc::Rc;

use interpane_policy::ArgSchema;
use interpane_policy::schema::{Pattern, PatternEngine};
use wasm_bindgen::JsCast;

use crate::error::BridgeError;

/// The argument check of tool `tool` that a page registers (the JavaScript API's `registerTool`, the Rust API's
/// `Bridge::register`): its `inputSchema` held to WebMCP's subset, and compiled with the browser's `RegExp` for
/// `pattern`, unless the page turned the check off (`validate`), when only the subset is checked.
pub(crate) fn registered_checker(
    tool: &str,
    schema: &serde_json::Value,
    validate: bool,
) -> Result<Option<ArgSchema>, BridgeError> {
    let schema_error = |source| BridgeError::Schema { tool: tool.to_owned(), source };
    if validate {
        ArgSchema::compile_registered(schema, Some(&BrowserPatterns)).map(Some).map_err(schema_error)
    } else {
        ArgSchema::check_subset(schema).map(|()| None).map_err(schema_error)
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(module = "/js/values.js")]
extern "C" {
    /// `new RegExp(source, "u")`, or the message of the SyntaxError it threw.
    #[wasm_bindgen(js_name = compilePattern)]
    fn compile_pattern(source: &str) -> wasm_bindgen::JsValue;
}

/// Compiles `pattern`s with the browser's `RegExp`.
struct BrowserPatterns;

#[derive(Debug)]
struct BrowserPattern(js_sys::RegExp);

impl Pattern for BrowserPattern {
    fn is_match(&self, text: &str) -> bool {
        // Without the `g` and `y` flags `test` neither reads nor moves `lastIndex`.
        self.0.test(text)
    }
}

impl PatternEngine for BrowserPatterns {
    fn compile(&self, source: &str) -> Result<Rc<dyn Pattern>, String> {
        match compile_pattern(source).dyn_into::<js_sys::RegExp>() {
            Ok(regexp) => Ok(Rc::new(BrowserPattern(regexp))),
            Err(message) => Err(message.as_string().unwrap_or_else(|| "the browser refused it".to_owned())),
        }
    }
}
