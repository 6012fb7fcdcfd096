//! One reader for every stored record (journal entries and the storage log's segments), instead of a serde derive
//! per record type (issue 24: each derive instantiated serde_json's `deserialize_struct` once more).
//!
//! An object's members are parsed once, by [`Fields::parse`], into a small list of (key, raw value); each field is
//! then taken from it by name and type, and [`Fields::finish`] says whether anything unknown is left. A field given
//! twice is refused. Strings are unescaped as `JSON.parse` unescapes them (borrowed when they hold no escape), and
//! one that holds a lone UTF-16 surrogate escape is refused: no Rust string holds one, so this crate wrote none.
//! A field that is optional may also be `null`, which reads as absent (as `Option` fields read with serde).

use std::borrow::Cow;
use std::fmt;

use crate::envelope::json::Raw;

use super::EntryError;
use crate::envelope::json::{JsonKind, SyntaxError, for_each_element, for_each_member, string, valid_string};

/// Why a stored record's fields do not decode: a field missing, given twice, unknown, or of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError(String);

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<FieldError> for EntryError {
    fn from(error: FieldError) -> Self {
        Self::Malformed(error.0)
    }
}

/// The members of one JSON object not taken yet, in the order they came.
#[derive(Default)]
pub(crate) struct Fields<'t> {
    /// Where the object is in the record, for messages: empty for the record itself, `r.e` for the error of its
    /// outcome.
    path: String,
    members: Vec<(Cow<'t, str>, Raw<'t>)>,
    /// The first error met reading a field (see [`Fields::keep`]).
    error: Option<FieldError>,
}

/// Every member of the object `text`: the one place the records' reader parses JSON, so that serde_json's
/// deserializer is instantiated once for every record type.
fn members(text: &str) -> Result<Vec<(Cow<'_, str>, Raw<'_>)>, SyntaxError> {
    let mut members = Vec::new();
    for_each_member(text, |key, value| members.push((string(key.get()), value)))?;
    Ok(members)
}

/// Every element of the array `text` (checked JSON).
fn elements(text: &str) -> Result<Vec<Raw<'_>>, SyntaxError> {
    let mut elements = Vec::new();
    for_each_element(text, usize::MAX, |value| elements.push(value))?;
    Ok(elements)
}

/// What a wrong value was, for a message: a number as it is written, anything else by its kind.
fn found(value: Raw<'_>) -> Cow<'_, str> {
    match JsonKind::of(value.get()) {
        JsonKind::Number => Cow::Borrowed(value.get()),
        kind => Cow::Owned(kind.to_string()),
    }
}

/// The JSON number `value` when it is a whole number from 0 to 2^64-1 written without a fraction or an exponent,
/// as serde reads a `u64`.
pub(crate) fn whole_number(value: Raw<'_>) -> Option<u64> {
    let text = value.get();
    text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse().ok()).flatten()
}

impl<'t> Fields<'t> {
    /// The members of `text`, which must start with `{` (after whitespace): a syntax error otherwise.
    pub(crate) fn parse(text: &'t str) -> Result<Self, SyntaxError> {
        Ok(Self { path: String::new(), members: members(text)?, error: None })
    }

    /// `name` as the record names it: `o.t` for the field `t` of the object `o`.
    fn qualified(&self, name: &str) -> String {
        if self.path.is_empty() { name.to_owned() } else { format!("{}.{name}", self.path) }
    }

    fn error(&self, what: &str, name: &str) -> FieldError {
        FieldError(format!("{what} field `{}`", self.qualified(name)))
    }

    fn wrong(&self, name: &str, expected: &str, value: Raw<'_>) -> FieldError {
        FieldError(format!("field `{}` is not {expected} (found {})", self.qualified(name), found(value)))
    }

    /// The raw value of `name`, taken out; `None` when it is absent. A field given twice is an error.
    pub(crate) fn take(&mut self, name: &str) -> Result<Option<Raw<'t>>, FieldError> {
        let Some(at) = self.members.iter().position(|(key, _)| key == name) else {
            return Ok(None);
        };
        let (_, value) = self.members.remove(at);
        if self.members[at..].iter().any(|(key, _)| key == name) {
            return Err(self.error("repeated", name));
        }
        Ok(Some(value))
    }

    /// The value of `name`, which must be present.
    fn required(&mut self, name: &str) -> Result<Raw<'t>, FieldError> {
        self.take(name)?.ok_or_else(|| self.error("missing", name))
    }

    /// The value of an optional field: absent and `null` both read as `None`.
    fn optional(&mut self, name: &str) -> Result<Option<Raw<'t>>, FieldError> {
        Ok(self.take(name)?.filter(|value| value.get() != "null"))
    }

    fn as_string(&self, name: &str, value: Raw<'t>) -> Result<Cow<'t, str>, FieldError> {
        if JsonKind::of(value.get()) != JsonKind::String {
            return Err(self.wrong(name, "a string", value));
        }
        valid_string(value.get())
            .ok_or_else(|| FieldError(format!("field `{}` holds a lone UTF-16 surrogate escape", self.qualified(name))))
    }

    fn as_u64(&self, name: &str, value: Raw<'_>) -> Result<u64, FieldError> {
        whole_number(value).ok_or_else(|| self.wrong(name, "a whole number from 0 to 2^64-1", value))
    }

    fn as_object(&self, name: &str, value: Raw<'t>) -> Result<Fields<'t>, FieldError> {
        if JsonKind::of(value.get()) != JsonKind::Object {
            return Err(self.wrong(name, "an object", value));
        }
        // serde_json checked the value when it read the record; reading it again cannot fail.
        let members = members(value.get()).map_err(|e| FieldError(format!("field `{}`: {e}", self.qualified(name))))?;
        Ok(Fields { path: self.qualified(name), members, error: None })
    }

    /// Keeps the first error, to be reported by [`Fields::finish`] (or [`Fields::done`]); the value read instead is
    /// the default (empty, zero, false, absent), which no one uses: a record whose fields fail is refused whole.
    /// (Records read this way, without an early return per field, are about half the code.)
    fn keep<T: Default>(&mut self, read: Result<T, FieldError>) -> T {
        read.unwrap_or_else(|error| {
            self.error.get_or_insert(error);
            T::default()
        })
    }

    /// The string `name`, which must be present.
    pub(crate) fn string(&mut self, name: &str) -> Cow<'t, str> {
        let read = self.required(name).and_then(|value| self.as_string(name, value));
        self.keep(read)
    }

    /// The string `name`, if present and not `null`.
    pub(crate) fn opt_string(&mut self, name: &str) -> Option<Cow<'t, str>> {
        let read = self.optional(name).and_then(|value| value.map(|value| self.as_string(name, value)).transpose());
        self.keep(read)
    }

    /// The string `name`, empty when absent (`null` is not a string).
    pub(crate) fn string_or_empty(&mut self, name: &str) -> Cow<'t, str> {
        let read = self.take(name).and_then(|value| value.map(|value| self.as_string(name, value)).transpose());
        self.keep(read).unwrap_or_default()
    }

    /// The whole number `name` (0 to 2^64-1), which must be present.
    pub(crate) fn u64(&mut self, name: &str) -> u64 {
        let read = self.required(name).and_then(|value| self.as_u64(name, value));
        self.keep(read)
    }

    /// The whole number `name`, if present and not `null`.
    pub(crate) fn opt_u64(&mut self, name: &str) -> Option<u64> {
        let read = self.optional(name).and_then(|value| value.map(|value| self.as_u64(name, value)).transpose());
        self.keep(read)
    }

    /// `true` or `false`; `default` when absent (`null` is not a boolean). `None` as the default makes it required.
    pub(crate) fn bool(&mut self, name: &str, default: Option<bool>) -> bool {
        let read = match (self.take(name), default) {
            (Ok(None), Some(default)) => Ok(default),
            (Ok(None), None) => Err(self.error("missing", name)),
            (Ok(Some(value)), _) => match value.get() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(self.wrong(name, "true or false", value)),
            },
            (Err(error), _) => Err(error),
        };
        self.keep(read)
    }

    /// The object `name`, which must be present. Hand it back to [`Fields::nested`] once read.
    pub(crate) fn object(&mut self, name: &str) -> Fields<'t> {
        let read = self.required(name).and_then(|value| self.as_object(name, value));
        self.keep(read)
    }

    /// The object `name`, if present and not `null`. Hand it back to [`Fields::nested`] once read.
    pub(crate) fn opt_object(&mut self, name: &str) -> Option<Fields<'t>> {
        let read = self.optional(name).and_then(|value| value.map(|value| self.as_object(name, value)).transpose());
        self.keep(read)
    }

    /// Takes in the first error of the object `inner` (read from one of this object's fields), or its first
    /// unknown field.
    pub(crate) fn nested(&mut self, inner: Fields<'t>) {
        let read = inner.finish();
        self.keep(read);
    }

    /// The raw JSON value of `name`, if present and not `null`.
    pub(crate) fn opt_raw(&mut self, name: &str) -> Option<Raw<'t>> {
        let read = self.optional(name);
        self.keep(read)
    }

    /// The object `name` whose members are all strings, as (key, value) pairs in order; empty when absent (`null`
    /// is not an object).
    pub(crate) fn strings_by_key(&mut self, name: &str) -> Vec<(String, String)> {
        let read =
            self.take(name).and_then(|value| value.map(|value| self.try_strings_by_key(name, value)).transpose());
        self.keep(read).unwrap_or_default()
    }

    fn try_strings_by_key(&self, name: &str, value: Raw<'t>) -> Result<Vec<(String, String)>, FieldError> {
        let object = self.as_object(name, value)?;
        let mut pairs = Vec::with_capacity(object.members.len());
        for (key, value) in &object.members {
            pairs.push((key.as_ref().to_owned(), object.as_string(key, *value)?.into_owned()));
        }
        Ok(pairs)
    }

    /// The array of strings `name`; empty when absent (`null` is not an array).
    pub(crate) fn strings(&mut self, name: &str) -> Vec<String> {
        let read = self.take(name).and_then(|value| value.map(|value| self.try_strings(name, value)).transpose());
        self.keep(read).unwrap_or_default()
    }

    fn try_strings(&self, name: &str, value: Raw<'t>) -> Result<Vec<String>, FieldError> {
        if JsonKind::of(value.get()) != JsonKind::Array {
            return Err(self.wrong(name, "an array of strings", value));
        }
        let elements =
            elements(value.get()).map_err(|e| FieldError(format!("field `{}`: {e}", self.qualified(name))))?;
        let mut strings = Vec::with_capacity(elements.len());
        for (i, element) in elements.into_iter().enumerate() {
            match self.as_string(name, element) {
                Ok(text) => strings.push(text.into_owned()),
                Err(_) => {
                    // The same error, naming the element.
                    let indexed = format!("{name}[{i}]");
                    let error = self.as_string(&indexed, element).err();
                    return Err(error.unwrap_or_else(|| self.wrong(&indexed, "a string", element)));
                }
            }
        }
        Ok(strings)
    }

    /// The first error met reading this object's fields, if any: for a record whose other members are ignored.
    pub(crate) fn done(self) -> Result<(), FieldError> {
        self.error.map_or(Ok(()), Err)
    }

    /// The first error met reading this object's fields, else the first member not taken, an unknown field (named
    /// as it is, or quoted and escaped when it holds a control character).
    pub(crate) fn finish(self) -> Result<(), FieldError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let Some((key, _)) = self.members.first() else {
            return Ok(());
        };
        if key.chars().any(char::is_control) {
            return Err(FieldError(format!("unknown field {}", crate::quote::quoted(&self.qualified(key)))));
        }
        Err(self.error("unknown", key))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const TEXT: &str = r#"{"n":-1,"f":1.5,"s":1,"b":"yes","o":{"t":[1],"t":2},"u\n":0,"r":1,"r":2,"l":["a",null]}"#;

    /// The error `read` meets in `TEXT`, as [`Fields::finish`] reports it.
    fn first_error(read: impl FnOnce(&mut Fields<'_>)) -> String {
        let mut fields = Fields::parse(TEXT).unwrap();
        read(&mut fields);
        fields.finish().unwrap_err().0
    }

    #[test]
    fn fields_are_taken_by_name_and_type() {
        let text = r#"{"s":"a\"b","e":"","n":18446744073709551615,"b":true,"z":null,"o":{"x":"y"},"m":{"k":"v"},"l":["p","q"]}"#;
        let mut fields = Fields::parse(text).unwrap();
        assert_eq!(fields.string("s"), "a\"b");
        assert!(matches!(fields.string_or_empty("e"), Cow::Borrowed("")));
        assert_eq!(fields.string_or_empty("absent"), "");
        assert_eq!(fields.u64("n"), u64::MAX);
        assert_eq!(fields.opt_u64("absent"), None);
        assert!(fields.bool("b", None));
        assert!(!fields.bool("absent", Some(false)));
        assert_eq!(fields.opt_string("z"), None);
        let mut inner = fields.object("o");
        assert_eq!(inner.string("x"), "y");
        fields.nested(inner);
        assert_eq!(fields.strings_by_key("m"), [("k".to_owned(), "v".to_owned())]);
        assert_eq!(fields.strings("l"), ["p", "q"]);
        fields.finish().unwrap();
    }

    #[test]
    fn what_is_missing_repeated_unknown_or_of_the_wrong_type_is_named() {
        assert_eq!(
            first_error(|f| {
                let _ = f.u64("absent");
            }),
            "missing field `absent`"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.u64("n");
            }),
            "field `n` is not a whole number from 0 to 2^64-1 (found -1)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.opt_u64("f");
            }),
            "field `f` is not a whole number from 0 to 2^64-1 (found 1.5)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.string("s");
            }),
            "field `s` is not a string (found 1)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.bool("b", None);
            }),
            "field `b` is not true or false (found a string)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.object("s");
            }),
            "field `s` is not an object (found 1)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.strings("o");
            }),
            "field `o` is not an array of strings (found an object)"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.strings("l");
            }),
            "field `l[1]` is not a string (found null)"
        );
        assert_eq!(
            first_error(|f| {
                let mut inner = f.object("o");
                let _ = inner.string("t");
                f.nested(inner);
            }),
            "repeated field `o.t`"
        );
        assert_eq!(
            first_error(|f| {
                let _ = f.opt_u64("r");
            }),
            "repeated field `r`"
        );
        // The first error is the one reported.
        assert_eq!(
            first_error(|f| {
                let _ = f.string("s");
                let _ = f.u64("n");
            }),
            "field `s` is not a string (found 1)"
        );
        let unknown = first_error(|f| {
            for name in ["n", "f", "s", "b", "o"] {
                f.take(name).unwrap();
            }
        });
        assert_eq!(unknown, "unknown field \"u\\n\"");
        let mut lone = Fields::parse(r#"{"k":"\ud800"}"#).unwrap();
        let _ = lone.string("k");
        assert_eq!(lone.finish().unwrap_err().0, "field `k` holds a lone UTF-16 surrogate escape");
        // Members not taken are no error for a reader that ignores them.
        let mut segment = Fields::parse(TEXT).unwrap();
        assert_eq!(segment.u64("r"), 0);
        assert_eq!(segment.done().unwrap_err().0, "repeated field `r`");
        assert_eq!(Fields::parse(TEXT).unwrap().done(), Ok(()));
    }

    #[test]
    fn a_text_that_is_not_json_is_a_syntax_error() {
        let error = Fields::parse(r#"{"v":1"#).err().unwrap();
        assert_eq!(error.to_string(), "expected ',' or '}' at byte 6, found the end of the text");
    }
}
