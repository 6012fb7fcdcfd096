//! How the values that keep a rule (a valid name, checked JSON, a parsed origin) are written on a tape: as the text
//! they are made from, and read back through the constructor that checks the rule. The others derive their form
//! (`#[cfg_attr(feature = "record", derive(Serialize, Deserialize))]` where they are defined).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::envelope::JsonText;
use crate::ids::{RequestId, ToolName};
use crate::journal::Owner;
use crate::origin::{OriginList, ParseOptions, TupleOrigin, WindowOrigin};
use crate::outcome::{ErrorKind, RetryAfter, ToolError, standard_error_name};
use crate::schema::ArgSchema;
use crate::session::ToolSpec;

/// Serde for a type written as its text and read back through a checking constructor.
macro_rules! as_text {
    ($type:ty, |$value:ident| $text:expr, |$read:ident| $make:expr) => {
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let $value = self;
                serializer.serialize_str($text)
            }
        }

        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let $read = String::deserialize(deserializer)?;
                $make.map_err(D::Error::custom)
            }
        }
    };
}

as_text!(ToolName, |name| name.as_str(), |text| ToolName::new(text));
as_text!(RequestId, |id| id.as_str(), |text| RequestId::new(text));
// Checked JSON: read back without limits (the recorded session already held it to the page's).
as_text!(JsonText, |json| json.as_str(), |text| JsonText::parse_within(&text, usize::MAX, usize::MAX));
as_text!(WindowOrigin, |origin| origin.serialization(), |text| Ok::<_, String>(WindowOrigin::from_browser(&text)));
as_text!(TupleOrigin, |origin| origin.as_str(), |text| {
    TupleOrigin::from_browser(&text).ok_or_else(|| format!("{text:?} is not a tuple origin"))
});
as_text!(OriginList, |list| &list.to_string(), |text| {
    OriginList::parse_with(&text, ParseOptions::default().allow_wildcards(true))
});

impl Serialize for Owner {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.tab(), self.slot()).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Owner {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (tab, slot) = <(String, String)>::deserialize(deserializer)?;
        Owner::new(tab, slot).map_err(D::Error::custom)
    }
}

/// A tool's error, its name among the standard ones.
#[derive(Serialize, Deserialize)]
struct ToolErrorRecord {
    kind: ErrorKind,
    message: String,
    name: Option<String>,
    status: Option<u16>,
    retry_after: Option<RetryAfter>,
}

impl Serialize for ToolError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ToolErrorRecord {
            kind: self.kind,
            message: self.message.clone(),
            name: self.name.map(str::to_owned),
            status: self.status,
            retry_after: self.retry_after.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = ToolErrorRecord::deserialize(deserializer)?;
        let name = match record.name {
            Some(name) => {
                Some(standard_error_name(&name).ok_or_else(|| D::Error::custom(format!("{name} is not standard")))?)
            }
            None => None,
        };
        let mut error = ToolError::new(record.kind, &record.message);
        error.name = name;
        error.status = record.status;
        error.retry_after = record.retry_after;
        Ok(error)
    }
}

/// A tool the page registers; its argument check is written as the schema it was compiled from, and compiled again.
#[derive(Serialize, Deserialize)]
struct ToolSpecRecord {
    name: ToolName,
    description: String,
    input_schema: Option<JsonText>,
    annotations: Option<JsonText>,
    checker: Option<serde_json::Value>,
    exposed_to: Option<OriginList>,
    to_native: bool,
}

impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ToolSpecRecord {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            annotations: self.annotations.clone(),
            checker: self.checker.as_ref().map(|checker| checker.source().clone()),
            exposed_to: self.exposed_to.clone(),
            to_native: self.to_native,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = ToolSpecRecord::deserialize(deserializer)?;
        let checker = match &record.checker {
            Some(schema) => Some(ArgSchema::compile(schema).map_err(D::Error::custom)?),
            None => None,
        };
        let mut spec = ToolSpec::new(record.name, record.description);
        spec.input_schema = record.input_schema;
        spec.annotations = record.annotations;
        spec.checker = checker;
        spec.exposed_to = record.exposed_to;
        spec.to_native = record.to_native;
        Ok(spec)
    }
}
