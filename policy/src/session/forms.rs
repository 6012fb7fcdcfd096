//! The page's declarative forms (`<form toolname tooldescription>`, docs/forms.md): which form is a tool, which form
//! gets a name that two want, and what each change announces. The driver's form watcher (`js/forms/watch.js`) reads
//! the document and reports each form that appears, changes or leaves ([`Input::Form`](crate::session::Input::Form));
//! everything it reports is decided here.
//!
//! - A form is a tool when its name is a valid tool name, it has a description, its schema is within the page's
//!   limits and compiles as an argument check, and no other tool of the page holds its name. Otherwise the session
//!   warns why (through the rate-limited gate, one kind per form and problem) and keeps the form: it may become a
//!   tool later.
//! - Two forms of one name: the first found (the lowest [`FormId`]) is the tool; when it goes (removed, renamed, or
//!   no longer a valid tool), the first form waiting for that name that makes a valid tool takes it over.
//! - One report is one change: the form's old tool leaves quietly, its new one (or the one that takes its name over)
//!   comes quietly, and the windows that listed the page's tools are told once, `toolchange` fires once.
//! - The driver learns which registration runs which form ([`Effect::FormTool`]), so that it keeps the form's
//!   `execute` for exactly that registration.

use thiserror::Error;

use crate::JsonText;
use crate::guard::RefusalKind;
use crate::ids::{IdError, ToolName};
use crate::schema::{ArgSchema, SchemaError};
use crate::session::Session;
use crate::session::catalog::RegisterError;
use crate::session::ids::{FormId, Registration};
use crate::session::io::{Effect, FormDefinition, ToolSpec};
use crate::sorted_map::SortedMap;

/// Why a form is not a tool (the category of the console warning that says why): what the warning gate groups a
/// form's warnings by ([`RefusalKind::FormTool`]).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum FormProblem {
    /// Its `toolname` is not a valid tool name.
    Name,
    /// It has no `tooldescription`.
    NoDescription,
    /// Its schema cannot be read (or is over the page's limits).
    Unreadable,
    /// The argument check refuses its schema.
    Schema,
    /// Another tool of the page holds its name.
    NameTaken,
}

/// Why a form is not a tool. Printed as a console warning for the page's author.
#[derive(Debug, Error)]
enum FormToolError {
    #[error("a form's toolname {} is not a valid tool name ({source}); the form is not a tool", crate::quote::quoted(.name))]
    Name { name: String, source: IdError },
    #[error("the form {} has no tooldescription; it becomes a tool once it has one", crate::quote::quoted(.name))]
    NoDescription { name: String },
    #[error("the form {} has no schema the bridge can read ({problem}); the form is not a tool", crate::quote::quoted(.name))]
    Unreadable { name: String, problem: String },
    #[error("the form {} makes a schema the argument check refuses ({source}); the form is not a tool", crate::quote::quoted(.name))]
    Schema { name: String, source: SchemaError },
    #[error("the form {} is not a tool: a tool of that name is already registered in this page", crate::quote::quoted(.name))]
    NameTaken { name: String },
}

impl FormToolError {
    fn problem(&self) -> FormProblem {
        match self {
            Self::Name { .. } => FormProblem::Name,
            Self::NoDescription { .. } => FormProblem::NoDescription,
            Self::Unreadable { .. } => FormProblem::Unreadable,
            Self::Schema { .. } => FormProblem::Schema,
            Self::NameTaken { .. } => FormProblem::NameTaken,
        }
    }
}

/// A form in the page with a `toolname`, and what the session made of it.
#[derive(Debug)]
struct FormEntry {
    /// What the driver last reported of it, kept to make it a tool later when its name is taken now.
    definition: FormDefinition,
    /// Its tool's registration, when it is a tool.
    registration: Option<Registration>,
}

/// The forms of the page, by the id the driver gave them (ids grow in the order forms were found).
#[derive(Debug, Default)]
pub(crate) struct Forms {
    entries: SortedMap<FormId, FormEntry>,
}

impl Session {
    /// A form appeared or changed (`definition`), or left the page (`None`): its old tool goes and its new one (if
    /// any) comes, a name it gives up goes to the first form waiting for it, and the change is announced once
    /// (`toolchange` here, `WEBMCP_TOOLS_CHANGED` to the windows that listed this page's tools).
    pub(crate) fn on_form(&mut self, form: FormId, definition: Option<FormDefinition>) {
        let previous = self.forms.entries.remove(&form);
        let had_tool = previous.as_ref().is_some_and(|entry| entry.registration.is_some());
        // The old tool leaves without an announcement: the change is announced once, below.
        let vacated = previous.and_then(|entry| {
            let registration = entry.registration?;
            self.remove_tool(&entry.definition.name, Some(registration), true).map(|_| entry.definition.name)
        });
        let entry = definition.map(|definition| {
            let registration = self.register_form(form, &definition);
            FormEntry { definition, registration }
        });
        let registered = entry.as_ref().and_then(|entry| entry.registration.map(|_| entry.definition.name.as_str()));
        let changed = vacated.is_some() || registered.is_some();
        if let Some(name) = vacated.as_deref()
            && registered != Some(name)
        {
            self.hand_over(name);
        }
        if had_tool && registered.is_none() {
            self.effects.push_back(Effect::FormTool { form, registration: None });
        }
        if let Some(entry) = entry {
            self.forms.entries.insert(form, entry);
        }
        if changed {
            // A form's tool is exposed by the page's list, before and after the change.
            self.announce_tools_changed(None);
        }
    }

    /// Registers a form's tool quietly, or warns why the form is not a tool.
    fn register_form(&mut self, form: FormId, definition: &FormDefinition) -> Option<Registration> {
        let registered = self.form_tool(definition).and_then(|spec| {
            self.add_tool(spec, true, Some(form)).map_err(|error| match error {
                RegisterError::DuplicateTool(_) => FormToolError::NameTaken { name: definition.name.clone() },
                RegisterError::EmptyDescription(_) => FormToolError::NoDescription { name: definition.name.clone() },
                RegisterError::Field { reason, .. } => {
                    FormToolError::Unreadable { name: definition.name.clone(), problem: reason }
                }
            })
        });
        match registered {
            Ok(registration) => Some(registration),
            Err(error) => {
                let own = self.config.own_origin.clone();
                self.warn(RefusalKind::FormTool { form, problem: error.problem() }, &own, &error.to_string());
                None
            }
        }
    }

    /// After a form's tool named `name` went away, the first form found that waits for that name and makes a valid
    /// tool gets it (quietly: the change that freed the name announces). Forms that do not make a valid tool were
    /// warned about when they were reported, and are passed over silently here.
    fn hand_over(&mut self, name: &str) {
        // In the order forms were found; no list of the waiting forms is collected (less code in the wasm).
        let mut tried = None;
        loop {
            let next = self.forms.entries.iter().find(|(form, entry)| {
                tried.is_none_or(|tried| **form > tried)
                    && entry.registration.is_none()
                    && entry.definition.name == name
            });
            let Some((form, entry)) = next else { return };
            let form = *form;
            tried = Some(form);
            let Ok(spec) = self.form_tool(&entry.definition) else { continue };
            let Ok(registration) = self.add_tool(spec, true, Some(form)) else { return };
            if let Some(entry) = self.forms.entries.get_mut(&form) {
                entry.registration = Some(registration);
            }
            return;
        }
    }

    /// The tool a form definition describes, checked like a `registerTool` definition: its schema within the page's
    /// limits.
    fn form_tool(&self, definition: &FormDefinition) -> Result<ToolSpec, FormToolError> {
        let written = &definition.name;
        let name =
            ToolName::new(written.clone()).map_err(|source| FormToolError::Name { name: written.clone(), source })?;
        let description = definition
            .description
            .as_ref()
            .filter(|d| !d.trim().is_empty())
            .ok_or_else(|| FormToolError::NoDescription { name: written.clone() })?;
        let unreadable = |problem: String| FormToolError::Unreadable { name: written.clone(), problem };
        let text = definition.input_schema.as_ref().map_err(|problem| unreadable(problem.clone()))?;
        let schema = JsonText::parse(text, &self.config.limits).map_err(|e| unreadable(e.to_string()))?;
        let value = schema.to_value().map_err(|e| unreadable(e.to_string()))?;
        let checker =
            ArgSchema::compile(&value).map_err(|source| FormToolError::Schema { name: written.clone(), source })?;
        let mut spec = ToolSpec::new(name, description.clone());
        spec.input_schema = Some(schema);
        spec.checker = Some(checker);
        Ok(spec)
    }
}
