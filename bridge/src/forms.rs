//! Declarative form tools: every `<form toolname tooldescription>` of the document is a tool of this page, listed
//! and callable from other windows like a tool registered with `registerTool` (docs/forms.md).
//!
//! `js/forms/` does the DOM work (the schema of a form, filling and submitting it, watching the document) and
//! reports each form that appears, changes or disappears. This file decides what becomes a tool: the name must be
//! a valid tool name, the description non-empty, the schema one the argument check can compile, and the name not
//! taken by another tool of the page. It keeps each form's registration, so that a change replaces exactly the
//! form's own tool and is announced once. Where the page has native WebMCP, the form's tool is registered with native
//! too, in place of native's own tool for the form (see `register_with_native`).

use std::cell::RefCell;
use std::rc::Rc;

use interpane_policy::schema::SchemaError;
use interpane_policy::session::{Registration, ToolSpec};
use interpane_policy::sorted_map::SortedMap;
use interpane_policy::{ArgSchema, IdError, JsonText, Limits, ToolName};
use thiserror::Error;
use wasm_bindgen::prelude::*;

use crate::driver::{Driver, Handler, upgrade};
use crate::{BridgeError, console};

#[wasm_bindgen(module = "/js/forms/watch.js")]
extern "C" {
    /// Watches `root` for `form[toolname]` and calls `report(kind, id, definition)` (see js/forms/watch.js).
    #[wasm_bindgen(js_name = watchForms)]
    fn watch_forms(root: &web_sys::Document, report: &js_sys::Function) -> JsValue;
}

// The modules that js/forms/watch.js and tool.js import, and Rust does not call. wasm-bindgen copies a JavaScript
// file into the package (snippets/) only when an extern block names it, so each is named here by one export.
#[wasm_bindgen(module = "/js/forms/fields.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = collectFields)]
    fn ships_fields_js();
}
#[wasm_bindgen(module = "/js/forms/schema.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = inputSchema)]
    fn ships_schema_js();
}
#[wasm_bindgen(module = "/js/forms/args.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = argumentProblems)]
    fn ships_args_js();
}
#[wasm_bindgen(module = "/js/forms/fill.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = fill)]
    fn ships_fill_js();
}
#[wasm_bindgen(module = "/js/forms/submit.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = submitAsAgent)]
    fn ships_submit_js();
}
#[wasm_bindgen(module = "/js/forms/run.js")]
extern "C" {
    #[allow(dead_code)]
    #[wasm_bindgen(js_name = runFormTool)]
    fn ships_run_js();
}

/// Why a form is not a tool. Printed as a console warning for the page's author.
#[derive(Debug, Error)]
enum FormToolError {
    #[error("a form's toolname {name:?} is not a valid tool name ({source}); the form is not a tool")]
    Name { name: String, source: IdError },
    #[error("the form {name:?} has no tooldescription; it becomes a tool once it has one")]
    NoDescription { name: String },
    #[error("the form {name:?} has no schema the bridge can read ({problem}); the form is not a tool")]
    Unreadable { name: String, problem: String },
    #[error("the form {name:?} makes a schema the argument check refuses ({source}); the form is not a tool")]
    Schema { name: String, source: SchemaError },
    #[error("the form {name:?} is not a tool: a tool of that name is already registered in this page")]
    NameTaken { name: String },
}

/// What js/forms/watch.js reported a form as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Added,
    Changed,
    Removed,
}

impl Change {
    fn parse(kind: &str) -> Option<Self> {
        match kind {
            "added" => Some(Self::Added),
            "changed" | "renamed" => Some(Self::Changed),
            "removed" => Some(Self::Removed),
            _ => None,
        }
    }
}

/// A form in the page with a `toolname`, and what the bridge made of it.
struct FormEntry {
    /// Its `toolname` as written (valid or not).
    name: String,
    /// Its tool definition, kept to register it later when its name is taken now.
    definition: JsValue,
    /// Its registration, when it is a tool.
    registration: Option<Registration>,
}

/// The forms of the page, by the id js/forms/watch.js gave them (ids grow in the order forms were found).
#[derive(Default)]
struct Forms {
    entries: SortedMap<u32, FormEntry>,
}

/// The watcher and the callback it calls, alive as long as the page.
struct Watcher {
    _handle: JsValue,
    _report: Closure<dyn FnMut(String, u32, JsValue)>,
}

thread_local! {
    static WATCHER: RefCell<Option<Watcher>> = const { RefCell::new(None) };
    static FORMS: RefCell<Forms> = RefCell::new(Forms::default());
}

/// Starts turning the document's forms into tools (once per page; later calls do nothing). The first forms are
/// registered in a microtask, after the tools the page registers right after installing the bridge.
pub(crate) fn start(driver: &Rc<Driver>) {
    if WATCHER.with(|w| w.borrow().is_some()) {
        return;
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let driver = Rc::downgrade(driver);
    let report = Closure::<dyn FnMut(String, u32, JsValue)>::new(move |kind: String, id: u32, definition: JsValue| {
        if let Some(change) = Change::parse(&kind) {
            upgrade(&driver, |driver| on_change(driver, change, id, definition));
        }
    });
    let handle = watch_forms(&document, report.as_ref().unchecked_ref());
    WATCHER.with(|w| *w.borrow_mut() = Some(Watcher { _handle: handle, _report: report }));
}

/// A form appeared, changed or disappeared: its old tool goes and its new one (if any) comes, with one
/// announcement (`toolchange` here, `WEBMCP_TOOLS_CHANGED` to the windows that listed this page's tools).
fn on_change(driver: &Rc<Driver>, change: Change, id: u32, definition: JsValue) {
    let previous = FORMS.with(|forms| forms.borrow_mut().entries.remove(&id));
    let old = previous.and_then(|entry| entry.registration.map(|registration| (entry.name, registration)));
    let entry = match change {
        Change::Removed => {
            if let Some((name, registration)) = old
                && driver.unregister(&name, Some(registration))
            {
                hand_over(driver, &name);
            }
            None
        }
        Change::Added | Change::Changed => {
            // The old tool leaves without an announcement: the new one's registration announces both.
            let removed = old.filter(|(name, registration)| driver.remove_quietly(name, *registration));
            let entry = register(driver, definition);
            if let Some((name, _)) = removed {
                let kept = entry.registration.is_some() && entry.name == name;
                if !kept && !hand_over(driver, &name) && entry.registration.is_none() {
                    driver.announce_tools_changed();
                }
            }
            Some(entry)
        }
    };
    if let Some(entry) = entry {
        FORMS.with(|forms| forms.borrow_mut().entries.insert(id, entry));
    }
}

/// Registers a form's tool (which announces it), or warns why the form is not a tool.
fn register(driver: &Rc<Driver>, definition: JsValue) -> FormEntry {
    let name = crate::options::get(&definition, "name").as_string().unwrap_or_default();
    let registration = form_tool(&definition).and_then(|(spec, handler)| {
        match driver.register(spec, handler, Some(definition.clone()), None) {
            Ok(registration) => Ok(registration),
            Err(BridgeError::DuplicateTool(_)) => Err(FormToolError::NameTaken { name: name.clone() }),
            Err(other) => Err(FormToolError::Unreadable { name: name.clone(), problem: other.to_string() }),
        }
    });
    let registration = registration.map_err(|error| console::warn(&error.to_string())).ok();
    FormEntry { name, definition, registration }
}

/// After a form's tool named `name` went away, the first form found that waits for that name and makes a valid
/// tool gets it. Whether one did.
fn hand_over(driver: &Rc<Driver>, name: &str) -> bool {
    let waiting: Vec<(u32, JsValue)> = FORMS.with(|forms| {
        forms
            .borrow()
            .entries
            .iter()
            .filter(|(_, e)| e.registration.is_none() && e.name == name)
            .map(|(id, e)| (*id, e.definition.clone()))
            .collect()
    });
    for (id, definition) in waiting {
        let Ok((spec, handler)) = form_tool(&definition) else { continue };
        let Ok(registration) = driver.register(spec, handler, Some(definition.clone()), None) else { return false };
        FORMS.with(|forms| {
            if let Some(entry) = forms.borrow_mut().entries.get_mut(&id) {
                entry.registration = Some(registration);
            }
        });
        return true;
    }
    false
}

/// The tool a form definition describes, checked like a `registerTool` definition.
fn form_tool(definition: &JsValue) -> Result<(ToolSpec, Handler), FormToolError> {
    let field = |key: &str| crate::options::get(definition, key);
    let written = field("name").as_string().unwrap_or_default();
    let name =
        ToolName::new(written.clone()).map_err(|source| FormToolError::Name { name: written.clone(), source })?;
    let description = field("description")
        .as_string()
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| FormToolError::NoDescription { name: written.clone() })?;
    let unreadable = |problem: String| FormToolError::Unreadable { name: written.clone(), problem };
    let execute = field("execute")
        .dyn_into::<js_sys::Function>()
        .map_err(|_| unreadable("its execute is not a function".to_owned()))?;
    let text: String =
        js_sys::JSON::stringify(&field("inputSchema")).map_err(|e| unreadable(console::describe(&e)))?.into();
    let schema = JsonText::parse(&text, &Limits::default()).map_err(|e| unreadable(e.to_string()))?;
    let value = schema.to_value().map_err(|e| unreadable(e.to_string()))?;
    let checker =
        ArgSchema::compile(&value).map_err(|source| FormToolError::Schema { name: written.clone(), source })?;
    let mut spec = ToolSpec::new(name, description);
    spec.input_schema = Some(schema);
    spec.checker = Some(checker);
    Ok((spec, Handler::Js { execute, this: definition.clone() }))
}
