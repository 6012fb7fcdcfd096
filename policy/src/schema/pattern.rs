//! `pattern`: regular expressions as a capability. JSON Schema reads a `pattern` as an ECMA-262 regular expression
//! (Unicode mode, not anchored); the bridge hands the schema compiler the browser's own `RegExp`, so that a pattern
//! means exactly what it means to the page that wrote it, and the wasm carries no regular expression engine.

use std::fmt;
use std::rc::Rc;

/// Compiles `pattern`s.
pub trait PatternEngine {
    /// Compiles `source`, or says why it is not a regular expression (the engine's own words).
    fn compile(&self, source: &str) -> Result<Rc<dyn Pattern>, String>;
}

/// One compiled `pattern`. (Not `Debug`: a trait object's table would carry the implementation's `Debug` code into
/// the download; the schema shows a pattern by its source instead.)
pub trait Pattern {
    /// Whether `text` holds a match anywhere (a pattern that must match all of it says so with `^` and `$`).
    fn is_match(&self, text: &str) -> bool;
}

/// A compiled `pattern` with its source, for messages.
#[derive(Clone)]
pub(crate) struct CompiledPattern {
    pub(crate) source: String,
    pub(crate) matcher: Rc<dyn Pattern>,
}

impl fmt::Debug for CompiledPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CompiledPattern").field(&self.source).finish()
    }
}
