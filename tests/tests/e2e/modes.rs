//! Cases whose expectations depend on the run's mode (`E2E_NATIVE=1`: Chromium with native WebMCP; docs/native.md,
//! "Both modes").

use interpane_demo_sites::Site;
use interpane_e2e::browser::native_mode;
use interpane_e2e::{Case, Ctx, E2eResult, case, check_eq};
use serde_json::{Value, json};

pub fn cases() -> Vec<Case> {
    vec![
        case!("modes::a_form_is_one_tool_and_passwords_stay_the_visitors", a_form_is_one_tool),
        case!("modes::a_form_in_a_blank_frame_is_one_tool", a_form_in_a_blank_frame_is_one_tool),
    ]
}

/// On a page without the bridge yet: adds a declarative form with an email, a password and a one-time-code field,
/// keeps the page's `document.modelContext` from before the bridge (native's, in native mode), installs the bridge,
/// and reports what the bridge and native list; where native exists, calls the form through native with a
/// password, then changes the form (a new field) and removes it, listing native's registry after each.
const FORM_AND_BRIDGE: &str = r#"
const form = document.createElement("form");
form.setAttribute("toolname", "sign_up");
form.setAttribute("tooldescription", "Sign up.");
form.setAttribute("toolautosubmit", "");
form.innerHTML = '<label>Email <input name="email" type="email" required></label>' +
  '<input name="password" type="password"><input name="pin" autocomplete="one-time-code"><button>Go</button>';
let submitted = 0;
form.addEventListener("submit", (event) => { event.preventDefault(); submitted += 1; });
document.body.append(form);
const native = document.modelContext ?? null;
const bridge = await import("/pkg/interpane.js");
await bridge.default();
const context = bridge.install({ exposeToolsTo: [args[0]] });
await context.ready;
const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
await pause();
const out = { bridge: (await context.getTools()).map((tool) => tool.name) };
if (!native) return out;
const listed = async () => (await native.getTools()).map((tool) =>
  ({ name: tool.name, description: tool.description, fields: Object.keys(tool.inputSchema?.properties ?? {}) }));
out.native = await listed();
out.toolname = form.getAttribute("toolname");
const tool = (await native.getTools()).find((candidate) => candidate.name === "sign_up");
out.call = await native.executeTool(tool, { email: "a@example.com", password: "agent", pin: "1234" }).then(
  () => "resolved", (error) => error.name);
const filled = () => ({ email: form.elements.email.value, password: form.elements.password.value,
  pin: form.elements.pin.value, submitted });
out.filled = filled();
out.emailOnly = await native.executeTool(tool, { email: "b@example.com" }).then(() => "resolved", (error) => error.name);
out.filledEmailOnly = filled();
form.insertAdjacentHTML("afterbegin", '<label>Name <input name="name"></label>');
await pause();
out.changed = await listed();
form.remove();
await pause();
out.removed = await listed();
return out;
"#;

/// A declarative form is one tool (issue 15, item 5), and its password fields stay the visitor's. In the bridge-only
/// mode the bridge lists it. In native mode the browser makes the form a tool of its own too, whose schema has the
/// password and one-time-code fields and whose call fills them with the agent's values (measured on Chromium 156);
/// the bridge registers its own tool for the form with native in that tool's place, so native lists the form once,
/// as the bridge's tool (those fields left out), and a call through native naming them is refused and fills nothing
/// (one without them fills and submits the form); a change to the form
/// replaces it there, and removing the form removes it.
async fn a_form_is_one_tool(t: Ctx) -> E2eResult<()> {
    t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
    let seen: Value = t.session.execute_async(FORM_AND_BRIDGE, vec![json!(t.origin(Site::Widget))]).await?;
    let listing = |fields: &[&str]| json!([{ "name": "sign_up", "description": "Sign up.", "fields": fields }]);
    let expected = if native_mode() {
        json!({
            "bridge": ["sign_up"],
            "native": listing(&["email"]),
            "toolname": "sign_up",
            // The bridge's form tool refuses a call that names a field it left out, as the bridge's argument check
            // does (native passes arguments unchecked), and fills nothing; native's own would have filled both.
            "call": "UnknownError",
            "filled": { "email": "", "password": "", "pin": "", "submitted": 0 },
            "emailOnly": "resolved",
            "filledEmailOnly": { "email": "b@example.com", "password": "", "pin": "", "submitted": 1 },
            "changed": listing(&["name", "email"]),
            "removed": [],
        })
    } else {
        json!({ "bridge": ["sign_up"] })
    };
    check_eq(seen, expected, "the form's tool as the bridge and the browser's registry list it")
}

/// With the bridge installed: adds a frame without `src` (an about:blank document of the page) holding a declarative
/// form with a password field, and reports whether the frame's document has a `modelContext` of its own, what the
/// bridge lists (this page's tools), what native lists in the page and in the frame (where native exists), and what
/// the bridge lists once the frame is gone.
const FORM_IN_BLANK_FRAME: &str = r#"
const bridge = await import("/pkg/interpane.js");
await bridge.default();
const context = bridge.install({ exposeToolsTo: [args[0]] });
await context.ready;
const frame = document.createElement("iframe");
document.body.append(frame);
frame.contentDocument.body.innerHTML = '<form toolname="framed_sign_up" tooldescription="Sign up in a frame.">' +
  '<input name="email" type="email"><input name="password" type="password"></form>';
const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
await pause();
const names = async (registry) => registry ? (await registry.getTools()).map((tool) =>
  ({ name: tool.name, fields: Object.keys(tool.inputSchema?.properties ?? (typeof tool.inputSchema === "string"
    ? JSON.parse(tool.inputSchema).properties ?? {} : {})) })) : null;
const out = { frameHasModelContext: "modelContext" in frame.contentDocument };
out.bridge = (await context.getTools()).filter((tool) => tool.origin === location.origin).map((tool) => tool.name);
out.nativeInFrame = out.frameHasModelContext ? await names(frame.contentDocument.modelContext) : null;
frame.remove();
await pause();
out.bridgeAfter = (await context.getTools()).filter((tool) => tool.origin === location.origin).map((tool) => tool.name);
return out;
"#;

/// A form in a frame without `src` is one tool either way. Without native WebMCP the frame's document has no
/// `modelContext`, and the page's bridge makes the form a tool of the page (its password field left out) until the
/// frame goes. With native, the frame's document has native's `modelContext`, which makes the form a tool of the
/// frame (password included, as native does in any frame without the bridge); the page's bridge leaves that frame
/// alone and lists native's tool once, as it lists native's other tools.
async fn a_form_in_a_blank_frame_is_one_tool(t: Ctx) -> E2eResult<()> {
    t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
    let seen: Value = t.session.execute_async(FORM_IN_BLANK_FRAME, vec![json!(t.origin(Site::Widget))]).await?;
    let expected = if native_mode() {
        json!({
            "frameHasModelContext": true,
            "bridge": ["framed_sign_up"],
            "nativeInFrame": [{ "name": "framed_sign_up", "fields": ["email", "password"] }],
            "bridgeAfter": [],
        })
    } else {
        json!({ "frameHasModelContext": false, "bridge": ["framed_sign_up"], "nativeInFrame": null, "bridgeAfter": [] })
    };
    check_eq(seen, expected, "the frame's form as the bridge and the browser list it")
}
