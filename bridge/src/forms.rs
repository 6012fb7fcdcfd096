//! Declarative form tools: every `<form toolname tooldescription>` of the document (and of its frames without `src`
//! that have no `modelContext` of their own) is a tool of this page, listed and callable from other windows like a
//! tool registered with `registerTool` (docs/forms.md).
//!
//! `js/forms/` does the DOM work (the schema of a form, filling and submitting it, watching the document) and
//! reports each form that appears, changes or disappears. This file only reads those reports: each becomes one
//! `Input::Form` with what the form's definition says (its name, description and schema as JSON text), and the
//! definition itself is kept in the driver's handles under the form's id, where the driver finds it when the session
//! says which registration runs the form (`Effect::FormTool`). What becomes a tool, which form gets a name two want,
//! what is warned and what is announced is the session's (policy's `session/forms.rs`). Where the page has native
//! WebMCP, the form's tool is registered with native too, in place of native's own tool for the form (see
//! `register` in native/registry.rs).

use std::cell::RefCell;
use std::rc::Rc;

use interpane_policy::session::{FormDefinition, FormId, Input};
use wasm_bindgen::prelude::*;

use crate::console;
use crate::driver::{Driver, upgrade};

#[wasm_bindgen(module = "/js/forms/watch.js")]
extern "C" {
    /// What watchForms returns.
    type FormWatcher;

    /// Watches `root` for `form[toolname]` and calls `report(kind, id, definition)` (see js/forms/watch.js).
    #[wasm_bindgen(js_name = watchForms)]
    fn watch_forms(root: &web_sys::Document, report: &js_sys::Function) -> FormWatcher;

    /// Reports at once the changes the watcher has not reported yet.
    #[wasm_bindgen(method)]
    fn flush(this: &FormWatcher);
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

/// The watcher and the callback it calls, alive as long as the page.
struct Watcher {
    handle: FormWatcher,
    _report: Closure<dyn FnMut(String, u32, JsValue)>,
}

thread_local! {
    static WATCHER: RefCell<Option<Watcher>> = const { RefCell::new(None) };
}

/// Starts turning the document's forms into tools (once per page; later calls do nothing). The first forms are
/// reported in a microtask, after the tools the page registers right after installing the bridge.
pub(crate) fn start(driver: &Rc<Driver>) {
    if WATCHER.with(|w| w.borrow().is_some()) {
        return;
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let driver = Rc::downgrade(driver);
    let report = Closure::<dyn FnMut(String, u32, JsValue)>::new(move |kind: String, id: u32, definition: JsValue| {
        upgrade(&driver, |driver| on_report(driver, &kind, FormId(id), definition));
    });
    let handle = watch_forms(&document, report.as_ref().unchecked_ref());
    WATCHER.with(|w| *w.borrow_mut() = Some(Watcher { handle, _report: report }));
}

/// Reports the forms' changes of this task at once rather than in a microtask: a listing made right after the page
/// added a form (in the same task) lists its tool. The watcher is taken out while it reports (its reports reach the
/// session, which may list again), so a flush from inside a report does nothing.
pub(crate) fn flush() {
    let watcher = WATCHER.with(|w| w.borrow_mut().take());
    if let Some(watcher) = watcher {
        watcher.handle.flush();
        WATCHER.with(|w| *w.borrow_mut() = Some(watcher));
    }
}

/// A form appeared ("added"), changed ("changed", "renamed") or disappeared ("removed"): its definition is kept (or
/// dropped) under its id, and the session is told.
fn on_report(driver: &Rc<Driver>, kind: &str, form: FormId, definition: JsValue) {
    let definition = match kind {
        "added" | "changed" | "renamed" => Some(definition),
        "removed" => None,
        _ => return,
    };
    let read = definition.as_ref().map(read_definition);
    {
        let mut handles = driver.handles.borrow_mut();
        match definition {
            Some(definition) => handles.forms.insert(form, definition),
            None => handles.forms.remove(&form),
        };
    }
    driver.input(Input::Form { form, definition: read });
}

/// What a form definition (js/forms/tool.js `formTool`) says, as the session reads it.
fn read_definition(definition: &JsValue) -> FormDefinition {
    let field = |key: &str| crate::options::get(definition, key);
    let input_schema = if field("execute").is_function() {
        js_sys::JSON::stringify(&field("inputSchema")).map(String::from).map_err(|e| console::describe(&e))
    } else {
        Err("its execute is not a function".to_owned())
    };
    FormDefinition {
        name: field("name").as_string().unwrap_or_default(),
        description: field("description").as_string(),
        input_schema,
    }
}
