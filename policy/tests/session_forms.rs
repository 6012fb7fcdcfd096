//! Declarative forms in the session (`Input::Form`): which form is a tool, which form gets a name two forms want,
//! what is warned and what is announced. No browser: the driver's reports come in as inputs and the effects are
//! compared as values.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "the helpers' checks are assertions (and clippy does not see wasm_bindgen_test functions as tests)"
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod session_support;

use interpane_policy::envelope::Message;
use interpane_policy::session::{Effect, FormDefinition, FormId, Input, Registration, WindowId};
use interpane_policy::{JsonText, Limits};
use session_support::{Page, T0, list, rid, tool, tuple};

const SHOP: &str = "https://shop.example";
const WIDGET: &str = "https://widget.example";

/// The schema of a form with one text field `a`, as js/forms/schema.js writes it.
const SCHEMA: &str = r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#;

/// A form definition as the driver reads it.
fn definition(name: &str, description: Option<&str>, input_schema: Result<&str, &str>) -> FormDefinition {
    FormDefinition {
        name: name.to_owned(),
        description: description.map(str::to_owned),
        input_schema: input_schema.map(str::to_owned).map_err(str::to_owned),
    }
}

/// A valid form definition with one text field.
fn form(name: &str, description: &str) -> FormDefinition {
    definition(name, Some(description), Ok(SCHEMA))
}

/// The watcher's report that form `id` is now `definition` (appeared or changed).
fn found(id: u32, definition: FormDefinition) -> Input {
    Input::Form { form: FormId(id), definition: Some(definition) }
}

/// The watcher's report that form `id` left the page (or lost its `toolname`).
fn gone(id: u32) -> Input {
    Input::Form { form: FormId(id), definition: None }
}

fn form_tool(id: u32, registration: Option<u64>) -> Effect {
    Effect::FormTool { form: FormId(id), registration: registration.map(Registration) }
}

/// The change notice to the widget's window, which listed the shop's tools.
fn notice() -> Effect {
    Effect::Post { window: WindowId(2), origin: tuple(WIDGET), message: Message::ToolsChanged, open_port: None }
}

/// A shop page exposing its tools to the widget, journals open, whose tools the widget (window 2) listed.
fn listed_shop() -> Page {
    let mut page = Page::new(SHOP, WIDGET);
    page.open();
    let ask = Message::GetToolsRequest { request_id: rid("g1"), bridge: true };
    page.task(session_support::from_window(2, WIDGET, &ask));
    page
}

/// The page's own tools, as its `getTools` lists them: (name, description).
fn own_tools(page: &mut Page) -> Vec<(String, String)> {
    let effects = page.task(list(99, "", &[]));
    let [Effect::Listed { tools, .. }] = effects.as_slice() else { panic!("one listing: {effects:?}") };
    tools.iter().map(|t| (t.descriptor.name.to_string(), t.descriptor.description.clone())).collect()
}

fn tools(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(n, d)| ((*n).to_owned(), (*d).to_owned())).collect()
}

fn warn(text: &str) -> Effect {
    Effect::Warn(text.to_owned())
}

#[test]
fn a_form_that_is_not_a_valid_tool_is_warned_about_and_registers_nothing() {
    let unparsable = JsonText::parse("{\"type\":", &Limits::default()).unwrap_err();
    let cases: Vec<(FormDefinition, String)> = vec![
        (
            form("bad name", "Spaces are not allowed."),
            "a form's toolname \"bad name\" is not a valid tool name (tool name holds ' ' at position 3: only \
             letters, digits and _ . - are allowed); the form is not a tool"
                .to_owned(),
        ),
        (
            form("", "No name at all."),
            "a form's toolname \"\" is not a valid tool name (tool name is empty: it needs 1 to 128 characters); \
             the form is not a tool"
                .to_owned(),
        ),
        (
            definition("undescribed", None, Ok(SCHEMA)),
            "the form \"undescribed\" has no tooldescription; it becomes a tool once it has one".to_owned(),
        ),
        (
            definition("blank", Some("  \n"), Ok(SCHEMA)),
            "the form \"blank\" has no tooldescription; it becomes a tool once it has one".to_owned(),
        ),
        (
            definition("cyclic", Some("Its schema cannot be written."), Err("TypeError: cyclic object value")),
            "the form \"cyclic\" has no schema the bridge can read (TypeError: cyclic object value); the form is \
             not a tool"
                .to_owned(),
        ),
        (
            definition("cut", Some("Its schema is cut short."), Ok("{\"type\":")),
            format!("the form \"cut\" has no schema the bridge can read ({unparsable}); the form is not a tool"),
        ),
        (
            definition("int", Some("Its schema names no type."), Ok(r#"{"type":"int"}"#)),
            "the form \"int\" makes a schema the argument check refuses (inputSchema.type: must be one of object, \
             string, number, integer, boolean, array, null; got \"int\"); the form is not a tool"
                .to_owned(),
        ),
    ];
    for (definition, warning) in cases {
        let mut page = listed_shop();
        let name = definition.name.clone();
        assert_eq!(page.task(found(1, definition)), vec![warn(&warning)], "{name:?}");
        assert_eq!(own_tools(&mut page), tools(&[]), "{name:?}");
    }
    // The form stays known: once it is valid, it is a tool, announced once.
    let mut page = listed_shop();
    page.task(found(1, definition("undescribed", None, Ok(SCHEMA))));
    assert_eq!(
        page.task(found(1, form("undescribed", "Described now."))),
        vec![form_tool(1, Some(1)), notice(), Effect::ToolChange]
    );
    assert_eq!(own_tools(&mut page), tools(&[("undescribed", "Described now.")]));
}

#[test]
fn a_form_schema_over_the_pages_limits_is_refused() {
    // Forms' schemas were parsed with the default limits, not the page's (a schema any registerTool of the page
    // would have been refused for made a tool).
    let limits = Limits { max_depth: 3, ..Limits::default() };
    let deep = r#"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}"#;
    let over = JsonText::parse(deep, &limits).unwrap_err();
    let mut page = Page::with_limits(SHOP, WIDGET, 1, limits);
    page.open();
    let effects = page.task(found(1, definition("deep", Some("Nested too deep."), Ok(deep))));
    assert_eq!(
        effects,
        vec![warn(&format!("the form \"deep\" has no schema the bridge can read ({over}); the form is not a tool"))]
    );
    assert_eq!(own_tools(&mut page), tools(&[]));
    // Within the page's limits, the same page makes a tool of it.
    let effects = page.task(found(2, form("shallow", "Within the limits.")));
    assert_eq!(effects, vec![form_tool(2, Some(1)), Effect::ToolChange]);
    // And a page with the default limits takes the deep schema.
    let mut page = Page::new(SHOP, WIDGET);
    page.open();
    let effects = page.task(found(1, definition("deep", Some("Nested."), Ok(deep))));
    assert_eq!(effects, vec![form_tool(1, Some(1)), Effect::ToolChange]);
}

#[test]
fn two_forms_of_one_name_the_first_holds_it_and_the_next_valid_one_takes_over_when_it_goes() {
    let mut page = listed_shop();
    let taken = "the form \"twin\" is not a tool: a tool of that name is already registered in this page";
    assert_eq!(
        page.task(found(1, form("twin", "First twin."))),
        vec![form_tool(1, Some(1)), notice(), Effect::ToolChange]
    );
    assert_eq!(
        page.task(found(2, definition("twin", None, Ok(SCHEMA)))),
        vec![warn("the form \"twin\" has no tooldescription; it becomes a tool once it has one")]
    );
    assert_eq!(page.task(found(3, form("twin", "Third twin."))), vec![warn(taken)]);
    assert_eq!(own_tools(&mut page), tools(&[("twin", "First twin.")]));
    // The first goes: the second makes no valid tool and is passed over, silently; the third takes the name over.
    // One change, announced once.
    assert_eq!(page.task(gone(1)), vec![form_tool(3, Some(2)), form_tool(1, None), notice(), Effect::ToolChange]);
    assert_eq!(own_tools(&mut page), tools(&[("twin", "Third twin.")]));
    // The holder goes too, and nobody can take the name over.
    assert_eq!(page.task(gone(3)), vec![form_tool(3, None), notice(), Effect::ToolChange]);
    assert_eq!(own_tools(&mut page), tools(&[]));
    // A form that was not a tool leaves: nothing changes, nothing is announced.
    assert_eq!(page.task(gone(2)), vec![]);
}

#[test]
fn a_renamed_form_gives_its_old_name_to_the_form_waiting_for_it_in_one_change() {
    let mut page = listed_shop();
    page.task(found(1, form("twin", "First twin.")));
    page.task(found(2, form("twin", "Second twin.")));
    // The first is renamed: its new tool and the second's take-over are one change, announced once.
    assert_eq!(
        page.task(found(1, form("other", "First twin, renamed."))),
        vec![form_tool(1, Some(2)), form_tool(2, Some(3)), notice(), Effect::ToolChange]
    );
    assert_eq!(own_tools(&mut page), tools(&[("other", "First twin, renamed."), ("twin", "Second twin.")]));
    // A form that breaks gives its name up the same way.
    page.task(found(3, form("other", "Third, waiting.")));
    let effects = page.task(found(1, definition("other", None, Ok(SCHEMA))));
    assert_eq!(
        effects,
        vec![
            warn("the form \"other\" has no tooldescription; it becomes a tool once it has one"),
            form_tool(3, Some(4)),
            form_tool(1, None),
            notice(),
            Effect::ToolChange
        ]
    );
    assert_eq!(own_tools(&mut page), tools(&[("other", "Third, waiting."), ("twin", "Second twin.")]));
}

#[test]
fn a_form_that_changes_replaces_its_own_tool_with_one_announcement() {
    let mut page = listed_shop();
    page.task(found(1, form("order", "Orders.")));
    assert_eq!(
        page.task(found(1, form("order", "Orders, described otherwise."))),
        vec![form_tool(1, Some(2)), notice(), Effect::ToolChange]
    );
    assert_eq!(own_tools(&mut page), tools(&[("order", "Orders, described otherwise.")]));
    // A change that makes the form invalid takes its tool away, announced once.
    assert_eq!(
        page.task(found(1, definition("order", Some("Orders."), Ok(r#"{"type":"int"}"#)))),
        vec![
            warn(
                "the form \"order\" makes a schema the argument check refuses (inputSchema.type: must be one of \
                 object, string, number, integer, boolean, array, null; got \"int\"); the form is not a tool"
            ),
            form_tool(1, None),
            notice(),
            Effect::ToolChange
        ]
    );
    assert_eq!(own_tools(&mut page), tools(&[]));
}

#[test]
fn with_native_webmcp_a_forms_tool_is_named_to_the_driver_before_native_registers_it() {
    // The driver registers a form's tool with native with the form's definition at hand (it takes the form's
    // toolname off meanwhile): Effect::FormTool comes before the registration's Effect::ToNative.
    let mut page = Page::native(SHOP, WIDGET);
    page.open();
    let effects = page.task(found(1, form("order", "Orders.")));
    assert!(
        matches!(
            effects.as_slice(),
            [
                Effect::FormTool { form: FormId(1), registration: Some(Registration(1)) },
                Effect::ToNative { registration: Registration(1), .. },
                Effect::ToolChange
            ]
        ),
        "{effects:?}"
    );
    let effects = page.task(found(1, form("order", "Orders, changed.")));
    assert!(
        matches!(
            effects.as_slice(),
            [
                Effect::UnregisterFromNative(Registration(1)),
                Effect::FormTool { form: FormId(1), registration: Some(Registration(2)) },
                Effect::ToNative { registration: Registration(2), .. },
                Effect::ToolChange
            ]
        ),
        "{effects:?}"
    );
    assert_eq!(
        page.task(gone(1)),
        vec![Effect::UnregisterFromNative(Registration(2)), form_tool(1, None), Effect::ToolChange]
    );
}

#[test]
fn a_form_named_like_a_registered_tool_is_warned_about_and_the_tool_stays() {
    let mut page = listed_shop();
    let (registration, _) = page.register(tool("clash"));
    let effects = page.task(found(1, form("clash", "The form.")));
    assert_eq!(
        effects,
        vec![warn("the form \"clash\" is not a tool: a tool of that name is already registered in this page")]
    );
    assert_eq!(own_tools(&mut page), tools(&[("clash", "The clash tool.")]));
    // The form's change or removal leaves the registered tool alone.
    assert_eq!(page.task(gone(1)), vec![]);
    assert_eq!(page.unregister("clash", Some(registration)), Some(registration));
}

#[test]
fn a_form_that_stays_broken_warns_once_a_minute_and_every_other_form_warns_at_once() {
    let mut page = listed_shop();
    let undescribed =
        |name: &str| format!("the form \"{name}\" has no tooldescription; it becomes a tool once it has one");
    assert_eq!(page.task(found(1, definition("one", None, Ok(SCHEMA)))), vec![warn(&undescribed("one"))]);
    assert_eq!(page.task(found(1, definition("one", None, Ok("{}")))), vec![], "the same form, the same problem");
    assert_eq!(page.task(found(2, definition("two", None, Ok(SCHEMA)))), vec![warn(&undescribed("two"))]);
    assert_eq!(
        page.task(found(1, form("one one", "A bad name now."))).len(),
        1,
        "the same form, another problem: warned at once"
    );
    page.now = T0 + 60_000;
    assert_eq!(
        page.task(found(1, definition("one", None, Ok(SCHEMA)))),
        vec![warn(&format!("{} (1 more like it since the last warning)", undescribed("one")))]
    );
}
