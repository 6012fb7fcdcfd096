//! Native WebMCP (issue 15): Chromium started with `--enable-features=WebMCP` has its own `document.modelContext`.
//! Each case runs in a chromedriver and a Chromium of its own with that flag, closed (by PID) at its end.

use std::future::Future;

use interpane_demo_sites::Site;
use interpane_e2e::browser::{NATIVE_WEBMCP_ARG, own_chromium};
use interpane_e2e::devtools::{cancel_tool, invoke_tool};
use interpane_e2e::{Case, Ctx, Doing, E2eResult, Engine, case, check, check_eq};
use serde_json::{Value, json};

use crate::cross_origin::pages::{Page, embed, go, js, listing, open_top, peer_path, register};

/// The engines that have native WebMCP, and why a native case runs only there.
pub(crate) const NATIVE_ENGINES: &[Engine] = &[Engine::Chromium];
pub(crate) const NATIVE_WHY: &str = "native WebMCP and its DevTools domain are Chromium's (--enable-features=WebMCP)";

pub fn cases() -> Vec<Case> {
    [
        case!("native::what_native_offers", what_native_offers),
        case!("native::readme_flow_works_where_native_exists", readme_flow_works_where_native_exists),
        case!("native::bridge_tools_are_in_the_browsers_registry", bridge_tools_are_in_the_browsers_registry),
        case!(
            "native::a_bridge_page_lists_and_calls_a_native_only_frame",
            a_bridge_page_lists_and_calls_a_native_only_frame
        ),
        case!(
            "native::a_native_only_frame_lists_and_calls_a_bridge_host",
            a_native_only_frame_lists_and_calls_a_bridge_host
        ),
        case!(
            "native::a_bridge_frame_lists_and_calls_a_native_only_host",
            a_bridge_frame_lists_and_calls_a_native_only_host
        ),
        case!(
            "native::a_native_only_host_lists_and_calls_a_bridge_frame",
            a_native_only_host_lists_and_calls_a_bridge_frame
        ),
        case!("native::a_call_id_runs_once_on_natives_path_too", a_call_id_runs_once_on_natives_path_too),
        case!(
            "native::calls_through_native_get_the_bridges_checks_stops_and_results",
            calls_through_native_get_the_bridges_checks_stops_and_results
        ),
        case!(
            "native::tools_registered_with_native_after_install_reach_windows_native_does_not",
            tools_registered_with_native_after_install_reach_windows_native_does_not
        ),
    ]
    .map(|case| case.only_in(NATIVE_ENGINES, NATIVE_WHY))
    .into()
}

/// Runs `body` with a copy of `t` whose session is a Chromium with native WebMCP of its own; closes that session,
/// then its chromedriver (by PID).
pub(crate) async fn in_native_chromium<F, Fut>(t: Ctx, body: F) -> E2eResult<()>
where
    F: FnOnce(Ctx) -> Fut,
    Fut: Future<Output = E2eResult<()>>,
{
    let (driver, session) = own_chromium(&[NATIVE_WEBMCP_ARG]).await?;
    let mut native = t.clone();
    native.session = session.clone();
    let outcome = body(native).await;
    let closed = session.close().await;
    // Only now, with its session closed: dropping the guard kills this chromedriver by its PID.
    drop(driver);
    outcome.and(closed)
}

/// What native WebMCP does in this Chromium, on a page without the bridge: the facts docs/native.md states and
/// the bridge relies on. Fails when a Chromium update changes one of them.
const NATIVE_FACTS: &str = r#"
const native = document.modelContext;
const out = { kind: native && Object.getPrototypeOf(native).constructor.name };
const settle = (promise) => Promise.resolve(promise).then((value) => ["ok", String(value)], (error) => [error.name]);
const stop = new AbortController();
const registered = native.registerTool({ name: "fact_double", description: "doubles x",
  inputSchema: { type: "object", properties: { x: { type: "number" } } },
  execute(input) { return { doubled: input.x * 2 }; } }, { signal: stop.signal, exposedTo: [args[0]] });
out.registerReturnsPromise = registered instanceof Promise;
out.register = await settle(registered);
out.duplicate = await settle(native.registerTool({ name: "fact_double", description: "again", execute() {} }));
out.exposedToString = await settle(native.registerTool({ name: "fact_s", description: "s", execute() {} }, { exposedTo: args[0] }));
out.exposedToStar = await settle(native.registerTool({ name: "fact_star", description: "s", execute() {} }, { exposedTo: ["*"] }));
out.exposedToEmpty = await settle(native.registerTool({ name: "fact_empty", description: "e", execute() {} }, { exposedTo: [] }));
const thrower = native.registerTool({ name: "fact_busy", description: "busy", execute() {
  throw Object.assign(new Error("busy"), { status: 429, retryAfter: 30 }); } });
await thrower;
const tools = await native.getTools();
out.listed = tools.map((tool) => tool.name).sort();
out.toolKeys = Object.keys(tools.find((tool) => tool.name === "fact_double")).sort();
const listedSchema = tools.find((tool) => tool.name === "fact_double").inputSchema;
out.schemaListedAs = [typeof listedSchema, typeof listedSchema === "string" ? listedSchema : JSON.stringify(listedSchema)];
out.result = await native.executeTool(tools.find((tool) => tool.name === "fact_double"), { x: 21 });
out.thrown = await native.executeTool(tools.find((tool) => tool.name === "fact_busy"), {}).then(
  () => null, (error) => ({ name: error.name, status: error.status ?? null, retryAfter: error.retryAfter ?? null }));
stop.abort();
out.afterAbort = (await native.getTools()).map((tool) => tool.name).sort();
const replacement = new EventTarget();
Object.defineProperty(document, "modelContext", { value: replacement, configurable: true });
out.replaced = document.modelContext === replacement;
await native.registerTool({ name: "fact_later", description: "later", execute() { return 1; } });
out.keptReferenceWorks = (await native.getTools()).some((tool) => tool.name === "fact_later");
return out;
"#;

/// What native WebMCP does for the calls where the bridge's `document.modelContext` must match it (docs/native.md,
/// "The bridge's `document.modelContext` and native's"): results of each type, arguments of each kind, invalid
/// tools and tool objects, and the `toolactivated`/`toolcancel` events. Each outcome is `["ok", value]`,
/// `["sync", name]` (thrown at once) or `[name]` (a rejection).
const NATIVE_CALL_FACTS: &str = r#"
const native = document.modelContext;
const out = {};
const outcome = (run) => {
  let promise;
  try { promise = run(); } catch (error) { return Promise.resolve(["sync", error.name, error instanceof DOMException]); }
  if (!(promise instanceof Promise)) return Promise.resolve(["not a promise", typeof promise]);
  return promise.then((value) => ["ok", value === undefined ? "<undefined>" : value],
    (error) => [error?.name ?? String(error), error instanceof DOMException]);
};
const results = { string: "hi", number: 5, zero: 0, boolean: true, nullish: null, missing: undefined,
  array: [1, "a"], object: { a: 1 }, nested: { when: new Date(0) } };
for (const [key, value] of Object.entries(results)) {
  await native.registerTool({ name: `result_${key}`, description: key, execute() { return value; } });
}
const seen = [];
await native.registerTool({ name: "echo", description: "echo",
  execute(input) { seen.push(input); return JSON.stringify({ type: Array.isArray(input) ? "array" : typeof input, input }); } });
await native.registerTool({ name: "schema", description: "schema",
  inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
  execute(input) { return "ran"; } });
const tools = await native.getTools();
const tool = (name) => tools.find((candidate) => candidate.name === name);
out.results = {};
for (const key of Object.keys(results)) out.results[key] = await outcome(() => native.executeTool(tool(`result_${key}`), {}));
const echo = tool("echo");
out.args = {
  leftOut: await outcome(() => native.executeTool(echo)),
  undefined: await outcome(() => native.executeTool(echo, undefined)),
  nullish: await outcome(() => native.executeTool(echo, null)),
  array: await outcome(() => native.executeTool(echo, [1, 2])),
  number: await outcome(() => native.executeTool(echo, 5)),
  boolean: await outcome(() => native.executeTool(echo, true)),
  jsonText: await outcome(() => native.executeTool(echo, '{"x":1}')),
  jsonArrayText: await outcome(() => native.executeTool(echo, "[1]")),
  notJson: await outcome(() => native.executeTool(echo, "not json")),
  toJsonUndefined: await outcome(() => native.executeTool(echo, { toJSON() { return undefined; } })),
  proto: await outcome(() => native.executeTool(echo, JSON.parse('{"__proto__":{"x":1}}'))),
  schemaMissing: await outcome(() => native.executeTool(tool("schema"), {})),
};
const run = () => ({});
out.register = {
  duplicate: await outcome(() => native.registerTool({ name: "echo", description: "again", execute: run })),
  noName: await outcome(() => native.registerTool({ description: "d", execute: run })),
  emptyName: await outcome(() => native.registerTool({ name: "", description: "d", execute: run })),
  spaceName: await outcome(() => native.registerTool({ name: "a b", description: "d", execute: run })),
  noDescription: await outcome(() => native.registerTool({ name: "no_description", execute: run })),
  emptyDescription: await outcome(() => native.registerTool({ name: "empty_description", description: "", execute: run })),
  noExecute: await outcome(() => native.registerTool({ name: "no_execute", description: "d" })),
  notAnObject: await outcome(() => native.registerTool("tool")),
  schemaString: await outcome(() => native.registerTool({ name: "schema_string", description: "d", inputSchema: "{}", execute: run })),
  schemaRef: await outcome(() => native.registerTool({ name: "schema_ref", description: "d", inputSchema: { $ref: "\x23/x" }, execute: run })),
  abortedSignal: await outcome(() => native.registerTool({ name: "aborted", description: "d", execute: run }, { signal: AbortSignal.abort("why") })),
  schemaCycle: await outcome(() => { const s = { type: "object" }; s.self = s; return native.registerTool({ name: "schema_cycle", description: "d", inputSchema: s, execute: run }); }),
};
out.executeToolObject = {
  plain: await outcome(() => native.executeTool({ name: "echo" }, {})),
  madeUp: await outcome(() => native.executeTool({ name: "nobody", origin: location.origin, window }, {})),
  copy: await outcome(() => native.executeTool({ ...echo }, {})),
  string: await outcome(() => native.executeTool("echo", {})),
  nothing: await outcome(() => native.executeTool()),
};
out.classes = { ToolActivatedEvent: typeof globalThis.ToolActivatedEvent, ToolCancelEvent: typeof globalThis.ToolCancelEvent };
try {
  const event = new ToolActivatedEvent("toolactivated", { toolName: "x" });
  out.classes.constructed = [event.toolName, event.bubbles, event.cancelable, event.isTrusted];
} catch (error) { out.classes.constructed = ["sync", error.name]; }
const heard = [];
for (const type of ["toolactivated", "toolcancel"]) {
  window.addEventListener(type, (event) => heard.push(["window", type, event.toolName, event.constructor.name, event.target === native]));
  native.addEventListener(type, (event) => heard.push(["context", type, event.toolName, event.constructor.name]));
}
let release;
await native.registerTool({ name: "slow", description: "slow", execute(input, client) {
  heard.push(["runs"]); return new Promise((resolve) => { release = resolve; }); } });
const slow = (await native.getTools()).find((candidate) => candidate.name === "slow");
const stop = new AbortController();
const call = outcome(() => native.executeTool(slow, {}, { signal: stop.signal }));
while (!release) await new Promise((resolve) => setTimeout(resolve, 10));
heard.push(["aborting"]);
stop.abort();
out.aborted = await call;
heard.push(["settled"]);
await new Promise((resolve) => setTimeout(resolve, 50));
release("late");
await native.executeTool(echo, {});
out.events = heard;
return out;
"#;

/// Measures native WebMCP: `registerTool` returns a promise and refuses a duplicate name, an `exposedTo` string
/// and `"*"`; `executeTool` resolves with JSON text and turns every thrown error into an `UnknownError`; aborting
/// the signal unregisters; `document.modelContext` can be redefined and a kept reference still works.
pub async fn what_native_offers(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
        let facts = t.session.execute_async(NATIVE_FACTS, vec![json!(t.origin(Site::Widget))]).await?;
        eprintln!("native: {facts}");
        let expected = json!({
            "kind": "ModelContext",
            "registerReturnsPromise": true,
            "register": ["ok", "undefined"],
            "duplicate": ["InvalidStateError"],
            "exposedToString": ["TypeError"],
            "exposedToStar": ["SecurityError"],
            "exposedToEmpty": ["ok", "undefined"],
            "listed": ["fact_busy", "fact_double", "fact_empty"],
            "toolKeys": ["description", "inputSchema", "name", "origin", "title", "window"],
            // The schema comes back as an object (what the bridge's tool objects hold too), not its JSON text.
            "schemaListedAs": ["object", r#"{"type":"object","properties":{"x":{"type":"number"}}}"#],
            "result": "{\"doubled\":42}",
            "thrown": { "name": "UnknownError", "status": null, "retryAfter": null },
            "afterAbort": ["fact_busy", "fact_empty"],
            "replaced": true,
            "keptReferenceWorks": true,
        });
        check_eq(facts, expected, "what native WebMCP does in this Chromium")?;
        t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
        let facts = t.session.execute_async(NATIVE_CALL_FACTS, vec![]).await?;
        eprintln!("native calls: {facts}");
        let expected = json!({
            "aborted": [
                "AbortError",
                true
            ],
            "args": {
                "array": [
                    "ok",
                    "{\"type\":\"array\",\"input\":[1,2]}"
                ],
                "boolean": [
                    "TypeError",
                    false
                ],
                "jsonArrayText": [
                    "TypeError",
                    false
                ],
                "jsonText": [
                    "TypeError",
                    false
                ],
                "leftOut": [
                    "ok",
                    "{\"type\":\"object\",\"input\":{}}"
                ],
                "notJson": [
                    "TypeError",
                    false
                ],
                "nullish": [
                    "TypeError",
                    false
                ],
                "number": [
                    "TypeError",
                    false
                ],
                "proto": [
                    "ok",
                    "{\"type\":\"object\",\"input\":{\"__proto__\":{\"x\":1}}}"
                ],
                "schemaMissing": [
                    "ok",
                    "ran"
                ],
                "toJsonUndefined": [
                    "TypeError",
                    false
                ],
                "undefined": [
                    "ok",
                    "{\"type\":\"object\",\"input\":{}}"
                ]
            },
            "classes": {
                "ToolActivatedEvent": "function",
                "ToolCancelEvent": "function",
                "constructed": [
                    "x",
                    false,
                    false,
                    false
                ]
            },
            "events": [
                [
                    "runs"
                ],
                [
                    "context",
                    "toolactivated",
                    "slow",
                    "ToolActivatedEvent"
                ],
                [
                    "aborting"
                ],
                [
                    "settled"
                ],
                [
                    "context",
                    "toolcancel",
                    "slow",
                    "ToolCancelEvent"
                ],
                [
                    "context",
                    "toolactivated",
                    "echo",
                    "ToolActivatedEvent"
                ]
            ],
            "executeToolObject": {
                "copy": [
                    "ok",
                    "{\"type\":\"object\",\"input\":{}}"
                ],
                "madeUp": [
                    "TypeError",
                    false
                ],
                "nothing": [
                    "TypeError",
                    false
                ],
                "plain": [
                    "TypeError",
                    false
                ],
                "string": [
                    "TypeError",
                    false
                ]
            },
            "register": {
                "abortedSignal": [
                    "why",
                    false
                ],
                "duplicate": [
                    "InvalidStateError",
                    true
                ],
                "emptyDescription": [
                    "InvalidStateError",
                    true
                ],
                "emptyName": [
                    "InvalidStateError",
                    true
                ],
                "noDescription": [
                    "TypeError",
                    false
                ],
                "noExecute": [
                    "TypeError",
                    false
                ],
                "noName": [
                    "TypeError",
                    false
                ],
                "notAnObject": [
                    "TypeError",
                    false
                ],
                "schemaCycle": [
                    "TypeError",
                    false
                ],
                "schemaRef": [
                    "ok",
                    "<undefined>"
                ],
                "schemaString": [
                    "TypeError",
                    false
                ],
                "spaceName": [
                    "InvalidStateError",
                    true
                ]
            },
            "results": {
                "array": [
                    "ok",
                    "[1,\"a\"]"
                ],
                "boolean": [
                    "ok",
                    "true"
                ],
                "missing": [
                    "ok",
                    "undefined"
                ],
                "nested": [
                    "ok",
                    "{\"when\":\"1970-01-01T00:00:00.000Z\"}"
                ],
                "nullish": [
                    "ok",
                    "null"
                ],
                "number": [
                    "ok",
                    "5"
                ],
                "object": [
                    "ok",
                    "{\"a\":1}"
                ],
                "string": [
                    "ok",
                    "hi"
                ],
                "zero": [
                    "ok",
                    "0"
                ]
            }
        });
        check_eq(facts, expected, "what native WebMCP does for each difference")
    })
    .await
}

/// In the shop: registers two tools through `document.modelContext`, as the README shows: `readme_add` (returns
/// what it added) and `readme_busy` (throws 429, retry after 30).
const README_REGISTER: &str = r#"
document.modelContext.registerTool({
  name: "readme_add",
  description: "Add a product to the cart.",
  inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
  async execute({ sku }) { return { content: [{ type: "text", text: `Added ${sku}` }] }; },
});
document.modelContext.registerTool({
  name: "readme_busy",
  description: "Always rate limited.",
  execute() { throw Object.assign(new Error("slow down"), { status: 429, retryAfter: 30 }); },
});
return document.modelContext === window.__e2e && null;
"#;

/// The README's flow in a Chromium with native WebMCP: the shop (bridge, exposing to the widget) registers
/// through `document.modelContext`; the widget iframe of another origin lists the tools and calls them; the
/// result comes back and a thrown error keeps its status and retryAfter.
pub async fn readme_flow_works_where_native_exists(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        embed(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
        js(&t, Page::Top, README_REGISTER, vec![]).await?;
        let shop = t.origin(Site::Shop).to_owned();
        let widget = Page::Frame("w");
        let listed = js(&t, widget, "return await e2e.list({ fromOrigins: ['shop'] });", vec![]).await?;
        let expected = listing(&[("readme_add", &shop), ("readme_busy", &shop)]);
        check_eq(listed, expected, "the shop's tools as the widget lists them")?;
        let added = js(&t, widget, "return await e2e.call('readme_add', { sku: 'A1' });", vec![]).await?;
        check_eq(
            added,
            json!({ "ok": true, "value": { "content": [{ "type": "text", "text": "Added A1" }] } }),
            "readme_add called from the widget",
        )?;
        let busy = js(&t, widget, "return await e2e.call('readme_busy', {});", vec![]).await?;
        check(busy["ok"] == json!(false) && busy["status"] == json!(429) && busy["retryAfter"] == json!(30), || {
            format!("readme_busy called from the widget: expected status 429 and retryAfter 30, got {busy}")
        })
    })
    .await
}

/// On a page without the bridge yet: keeps the browser's `document.modelContext`, installs the bridge (exposing
/// to the widget), registers one tool through `document.modelContext` and one through the object `install()`
/// returned, reads the browser's registry through the kept reference, calls the first there, then unregisters
/// both (a signal, `unregisterTool`) and reads the registry again.
const THROUGH_THE_BRIDGE: &str = r#"
const native = document.modelContext;
const bridge = await import("/pkg/interpane.js");
await bridge.default();
const context = bridge.install({ exposeToolsTo: [args[0]] });
await context.ready;
const names = async () => (await native.getTools()).map((tool) => tool.name).sort();
const until = async (wanted) => {
  for (let i = 0; i < 100 && JSON.stringify(await names()) !== JSON.stringify(wanted); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return names();
};
const out = { replaced: document.modelContext === context && context !== native };
const stop = new AbortController();
document.modelContext.registerTool({
  name: "bridge_double", description: "Doubles x.",
  inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
  execute({ x }) { return { doubled: x * 2 }; },
}, { signal: stop.signal });
context.registerTool({ name: "bridge_named", description: "Says its name.", execute() { return "bridge_named"; } },
  { exposedTo: [args[0]] });
out.registered = await until(["bridge_double", "bridge_named"]);
const tool = (await native.getTools()).find((candidate) => candidate.name === "bridge_double");
out.nativeCall = tool ? await native.executeTool(tool, { x: 21 }) : null;
stop.abort();
context.unregisterTool("bridge_named");
out.unregistered = await until([]);
out.bridgeStillWorks = (await context.getTools()).map((candidate) => candidate.name);
// Native refuses to list (here by hand): the listing has the bridge's tools, and the page is told why.
context.registerTool({ name: "bridge_after", description: "Listed.", execute() { return "ok"; } });
native.getTools = () => Promise.reject(new DOMException("refused for this test", "NotAllowedError"));
const warned = [];
const warn = console.warn;
console.warn = (...parts) => warned.push(parts.join(" "));
try {
  out.whenNativeRefuses = (await context.getTools()).map((candidate) => candidate.name);
} finally {
  console.warn = warn;
  delete native.getTools;
}
out.warned = warned;
return out;
"#;

/// A tool registered through the bridge (through `document.modelContext` or `install()`'s object) is in the
/// browser's own registry, runs there, and leaves it when unregistered (signal abort, `unregisterTool`). A listing
/// that native refuses is warned of (it was an empty list, silently).
pub async fn bridge_tools_are_in_the_browsers_registry(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
        let seen = t.session.execute_async(THROUGH_THE_BRIDGE, vec![json!(t.origin(Site::Widget))]).await?;
        let expected = json!({
            "replaced": true,
            "registered": ["bridge_double", "bridge_named"],
            "nativeCall": "{\"doubled\":42}",
            "unregistered": [],
            "bridgeStillWorks": [],
            "whenNativeRefuses": ["bridge_after"],
            "warned": [
                "interpane: native WebMCP refused to list tools (NotAllowedError: refused for this test): listed the \
                 bridge's only"
            ],
        });
        check_eq(seen, expected, "the browser's registry around the bridge's registrations")
    })
    .await
}

/// Embeds the peer page `path` of `site` in `page` as iframe `#id` with `allow="tools *"` (native WebMCP lists a
/// cross-origin frame's tools only then); fails unless it reports ready.
async fn embed_with_tools(t: &Ctx, page: Page, id: &str, site: Site, path: &str) -> E2eResult<()> {
    let url = format!("{}{path}", t.origin(site));
    let body = "return await e2e.embed(args[0], args[1], 'tools *');";
    let state = js(t, page, body, vec![json!(id), json!(url)]).await?;
    check_eq(state, json!("ready"), &format!("state of the {site} frame #{id}"))
}

/// A test tool (common/e2e/tools.js) that doubles `x`.
fn double_tool(name: &str) -> Value {
    json!({ "name": name, "body": "return { doubled: args.x * 2 };",
            "inputSchema": { "type": "object", "properties": { "x": { "type": "number" } }, "required": ["x"] } })
}

/// A test tool that always throws 429, retry after 30.
fn busy_tool(name: &str) -> Value {
    json!({ "name": name,
            "body": "throw Object.assign(new Error('slow down'), { status: 429, retryAfter: 30 });" })
}

/// The names and paths of the tools of origin `args[0]` as the bridge page lists them, sorted.
const LISTED_PATHS: &str = r#"
const tools = await document.modelContext.getTools({ fromOrigins: [args[0]], timeoutMs: 1500 });
return tools.map((tool) => [tool.name, tool.path ?? null]).sort();
"#;

/// A bridge page (the shop) with two widget iframes of another origin, both `allow="tools *"`: `#n` runs native
/// WebMCP only (its tools registered with `document.modelContext`, exposed to the shop), `#b` runs the bridge. The
/// shop lists each tool once, the native-only frame's on native's path and the bridge frame's on the bridge's
/// (which native reaches too); a call on native's path resolves with the same kind of value as on the bridge's
/// (a string, the result's JSON text, which the peer page's describeOutcome requires and parses), a thrown error is native's UnknownError there, and keeps status and retryAfter on
/// the bridge's path.
pub async fn a_bridge_page_lists_and_calls_a_native_only_frame(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        embed_with_tools(&t, Page::Top, "n", Site::Widget, &peer_path("native", &[Site::Shop])).await?;
        embed_with_tools(&t, Page::Top, "b", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
        register(&t, Page::Frame("n"), double_tool("native_double"), json!({})).await?;
        register(&t, Page::Frame("n"), busy_tool("native_busy"), json!({})).await?;
        register(&t, Page::Frame("b"), double_tool("bridge_double"), json!({})).await?;
        register(&t, Page::Frame("b"), busy_tool("bridge_busy"), json!({})).await?;
        let widget = t.origin(Site::Widget).to_owned();
        let listed = js(&t, Page::Top, "return await e2e.list({ fromOrigins: ['widget'] });", vec![]).await?;
        let expected = listing(&[
            ("bridge_busy", &widget),
            ("bridge_double", &widget),
            ("native_busy", &widget),
            ("native_double", &widget),
        ]);
        check_eq(listed, expected, "the widget frames' tools as the shop lists them, each once")?;
        let paths = js(&t, Page::Top, LISTED_PATHS, vec![json!(widget)]).await?;
        let expected = json!([
            ["bridge_busy", "bridge"],
            ["bridge_double", "bridge"],
            ["native_busy", "native"],
            ["native_double", "native"]
        ]);
        check_eq(paths, expected, "the path each listed tool's calls take")?;
        let call = |name: &'static str, args: Value| {
            let t = &t;
            async move {
                let body = "return await e2e.call(args[0], args[1]);";
                js(t, Page::Top, body, vec![json!(name), args]).await
            }
        };
        let doubled = json!({ "ok": true, "value": { "doubled": 42 } });
        check_eq(call("native_double", json!({ "x": 21 })).await?, doubled.clone(), "native_double, native's path")?;
        check_eq(call("bridge_double", json!({ "x": 21 })).await?, doubled, "bridge_double, the bridge's path")?;
        let busy = call("native_busy", json!({})).await?;
        check(
            busy["ok"] == json!(false)
                && busy["name"] == json!("UnknownError")
                && busy["kind"] == json!("tool_error")
                && busy.get("status").is_none(),
            || format!("native_busy on native's path: expected UnknownError, code tool_error, no status; got {busy}"),
        )?;
        let busy = call("bridge_busy", json!({})).await?;
        check(busy["ok"] == json!(false) && busy["status"] == json!(429) && busy["retryAfter"] == json!(30), || {
            format!("bridge_busy on the bridge's path: expected status 429 and retryAfter 30, got {busy}")
        })?;
        let unchecked = call("bridge_double", json!({ "x": "21" })).await?;
        check(unchecked["kind"] == json!("invalid_args"), || {
            format!("bridge_double with a string x on the bridge's path: expected invalid_args, got {unchecked}")
        })
    })
    .await
}

/// A bridge page calls a native-only frame's tool (native's path) twice with one `callId`: native ignores `callId`,
/// but the call goes through the bridge's session like any other, so the tool runs once, the second call gets the
/// first one's result, and the page gets one `toolresult` for it.
pub async fn a_call_id_runs_once_on_natives_path_too(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        embed_with_tools(&t, Page::Top, "n", Site::Widget, &peer_path("native", &[Site::Shop])).await?;
        register(&t, Page::Frame("n"), double_tool("native_double"), json!({})).await?;
        let watch = "window.heardResults = []; document.modelContext.addEventListener('toolresult', (event) =>                      window.heardResults.push([event.name, event.status, event.callId]));                      return await e2e.list({ fromOrigins: ['widget'] });";
        js(&t, Page::Top, watch, vec![]).await?;
        let twice = "const options = { callId: 'order-7' };                      return [await e2e.call('native_double', { x: 21 }, options),                              await e2e.call('native_double', { x: 21 }, options)];";
        let doubled = json!({ "ok": true, "value": { "doubled": 42 } });
        check_eq(js(&t, Page::Top, twice, vec![]).await?, json!([doubled, doubled]), "both calls' outcomes")?;
        let runs = js(&t, Page::Frame("n"), "return e2e.runs.native_double ?? 0;", vec![]).await?;
        check_eq(runs, json!(1), "runs of native_double in the native-only frame")?;
        let heard = js(&t, Page::Top, "return window.heardResults;", vec![]).await?;
        check_eq(heard, json!([["native_double", "completed", "order-7"]]), "toolresult events in the shop")
    })
    .await
}

/// Records, in the page, every `toolresult` (name, status, the error's code) and `toolcancel` (tool name) of its
/// `document.modelContext`.
const RECORD_RESULTS: &str = r#"
window.heard = { results: [], cancels: [] };
document.modelContext.addEventListener("toolresult", (event) =>
  window.heard.results.push([event.name, event.status, event.error?.kind ?? null]));
document.modelContext.addEventListener("toolcancel", (event) => window.heard.cancels.push(event.toolName));
return true;
"#;

/// Waits (in the page, up to 10 s) until `args[0]` (an expression) holds; returns what `args[1]` reads then.
const WAIT_FOR: &str = r#"
const holds = new Function("e2e", `return (${args[0]});`);
for (let i = 0; i < 400 && !holds(e2e); i++) await new Promise((resolve) => setTimeout(resolve, 25));
return new Function("e2e", `return (${args[1]});`)(e2e);
"#;

/// A test tool that takes `{ sku: string }` (required) and returns it.
fn sku_tool(name: &str) -> Value {
    json!({ "name": name, "body": "return { sku: args.sku };",
            "inputSchema": { "type": "object", "properties": { "sku": { "type": "string" } }, "required": ["sku"] } })
}

/// A bridge page's tool called through native WebMCP — by a native-only frame of another origin and by the browser's
/// own agent (the DevTools protocol's `WebMCP.invokeTool`, as an agent built into the browser calls it) — gets what a
/// call on the bridge's path gets (issue 23). Before, native ran `execute` directly: `{sku: 5}`, `{}` and the agent's
/// `{sku: 7}` ran a tool whose schema requires a string `sku`, an aborted call never aborted the tool's signal, and no
/// `toolresult` fired. Now: arguments that break the schema are refused before `execute` runs (native hands the
/// refusal on as its `UnknownError`), a good call runs once, an abort by native's caller (the frame's signal, the
/// agent's cancel) aborts the tool's signal and fires `toolcancel`, and each call fires `toolresult` in the page.
pub async fn calls_through_native_get_the_bridges_checks_stops_and_results(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        register(&t, Page::Top, sku_tool("host_sku"), json!({})).await?;
        let slow = json!({ "name": "host_slow", "body": "return await page.untilAborted(signal);" });
        register(&t, Page::Top, slow, json!({})).await?;
        js(&t, Page::Top, RECORD_RESULTS, vec![]).await?;
        embed_with_tools(&t, Page::Top, "w", Site::Widget, &peer_path("native", &[Site::Shop])).await?;
        let widget = Page::Frame("w");
        js(&t, widget, "return await e2e.list({ fromOrigins: ['shop'] });", vec![]).await?;

        // A native-only frame: two calls that break the schema, one that keeps it.
        for (args, what) in [(json!({ "sku": 5 }), "{sku: 5}"), (json!({}), "{}")] {
            let refused = js(&t, widget, "return await e2e.call('host_sku', args[0]);", vec![args]).await?;
            check(refused["ok"] == json!(false) && refused["name"] == json!("UnknownError"), || {
                format!(
                    "host_sku with {what} from the native-only frame: expected native's UnknownError, got {refused}"
                )
            })?;
        }
        let good = js(&t, widget, "return await e2e.call('host_sku', { sku: 'a1' });", vec![]).await?;
        check_eq(good, json!({ "ok": true, "value": { "sku": "a1" } }), "host_sku with {sku: 'a1'} through native")?;

        // The browser's agent, with arguments that break the schema.
        t.session.to_top().await?;
        invoke_tool(&t.session, "host_sku", json!({ "sku": 7 })).await?;
        let results =
            js(&t, Page::Top, WAIT_FOR, vec![json!("window.heard.results.length >= 4"), json!("window.heard.results")])
                .await?;
        let invalid = json!(["host_sku", "failed", "invalid_args"]);
        let expected = json!([invalid, invalid, ["host_sku", "completed", null], invalid]);
        check_eq(results, expected, "toolresult events in the shop for the four calls through native")?;
        let runs = js(&t, Page::Top, "return e2e.runs.host_sku ?? 0;", vec![]).await?;
        check_eq(runs, json!(1), "runs of host_sku: only the call that kept the schema")?;

        // The frame aborts its call: the tool's signal aborts, toolcancel and a stopped toolresult fire.
        js(&t, widget, "return e2e.start('slow', 'host_slow', {});", vec![]).await?;
        js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.runs.host_slow === 1"), json!("e2e.runs.host_slow")]).await?;
        let aborted = js(&t, widget, "return await e2e.abort('slow');", vec![]).await?;
        check(aborted["outcome"]["name"] == json!("AbortError"), || format!("the frame's aborted call: {aborted}"))?;
        let aborts =
            js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.aborts.host_slow === 1"), json!("e2e.aborts.host_slow ?? 0")])
                .await?;
        check_eq(aborts, json!(1), "aborts of host_slow's signal after the frame aborted its call")?;

        // The agent starts a call and cancels it: the same.
        t.session.to_top().await?;
        let invocation = invoke_tool(&t.session, "host_slow", json!({})).await?;
        js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.runs.host_slow === 2"), json!("e2e.runs.host_slow")]).await?;
        t.session.to_top().await?;
        cancel_tool(&t.session, &invocation).await?;
        let aborts =
            js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.aborts.host_slow === 2"), json!("e2e.aborts.host_slow ?? 0")])
                .await?;
        check_eq(aborts, json!(2), "aborts of host_slow's signal after the agent cancelled its call")?;
        let heard =
            js(&t, Page::Top, WAIT_FOR, vec![json!("window.heard.results.length >= 6"), json!("window.heard")]).await?;
        check_eq(heard["cancels"].clone(), json!(["host_slow", "host_slow"]), "toolcancel events in the shop")?;
        let stopped = json!(["host_slow", "stopped", "cancelled"]);
        let last_two: Vec<Value> =
            heard["results"].as_array().map(|r| r.iter().skip(4).cloned().collect()).unwrap_or_default();
        check_eq(Value::Array(last_two), json!([stopped, stopped]), "the stopped calls' toolresult events")?;

        // The page reloads while the agent's call runs: the new page does not run it again, and reports it
        // interrupted (it may or may not have taken effect), as it does a call of its own.
        t.session.to_top().await?;
        invoke_tool(&t.session, "host_slow", json!({})).await?;
        js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.runs.host_slow === 3"), json!("e2e.runs.host_slow")]).await?;
        t.session.to_top().await?;
        t.session.client().refresh().await.doing("reloading the shop during a call through native")?;
        check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "the reloaded shop")?;
        let reported =
            js(&t, Page::Top, WAIT_FOR, vec![json!("e2e.results.length >= 1"), json!("e2e.results")]).await?;
        let interrupted = json!([{ "name": "host_slow", "status": "interrupted", "recovered": true }]);
        check_eq(reported, interrupted, "toolresult events of the reloaded shop")?;
        let runs = js(&t, Page::Top, "return e2e.runs.host_slow ?? 0;", vec![]).await?;
        check_eq(runs, json!(0), "runs of host_slow in the reloaded shop")
    })
    .await
}

/// The shop runs the bridge (exposing to the widget) and registers two tools through it; the widget iframe
/// (`allow="tools *"`) runs native WebMCP only: it lists them with `document.modelContext.getTools({ fromOrigins })`
/// and calls them with native's `executeTool` (JSON text back; a thrown error is native's UnknownError).
pub async fn a_native_only_frame_lists_and_calls_a_bridge_host(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        register(&t, Page::Top, double_tool("host_double"), json!({})).await?;
        register(&t, Page::Top, busy_tool("host_busy"), json!({})).await?;
        embed_with_tools(&t, Page::Top, "w", Site::Widget, &peer_path("native", &[Site::Shop])).await?;
        let shop = t.origin(Site::Shop).to_owned();
        let widget = Page::Frame("w");
        let listed = js(&t, widget, "return await e2e.list({ fromOrigins: ['shop'] });", vec![]).await?;
        check_eq(listed, listing(&[("host_busy", &shop), ("host_double", &shop)]), "the shop's tools, natively")?;
        let doubled = js(&t, widget, "return await e2e.call('host_double', { x: 21 });", vec![]).await?;
        check_eq(doubled, json!({ "ok": true, "value": { "doubled": 42 } }), "host_double through native")?;
        let busy = js(&t, widget, "return await e2e.call('host_busy', {});", vec![]).await?;
        check(busy["ok"] == json!(false) && busy["name"] == json!("UnknownError"), || {
            format!("host_busy through native: expected native's UnknownError, got {busy}")
        })
    })
    .await
}

/// The reverse roles of `a_bridge_page_lists_and_calls_a_native_only_frame`: the shop runs native WebMCP only (its
/// tools exposed to the widget), the widget iframe (`allow="tools *"`) runs the bridge and lists them on native's
/// path, with results of the bridge's kind (JSON text, as native gives) and native's UnknownError for a thrown error.
pub async fn a_bridge_frame_lists_and_calls_a_native_only_host(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("native", &[Site::Widget])).await?;
        register(&t, Page::Top, double_tool("host_double"), json!({})).await?;
        register(&t, Page::Top, busy_tool("host_busy"), json!({})).await?;
        embed_with_tools(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
        let shop = t.origin(Site::Shop).to_owned();
        let widget = Page::Frame("w");
        let listed = js(&t, widget, "return await e2e.list({ fromOrigins: ['shop'] });", vec![]).await?;
        check_eq(listed, listing(&[("host_busy", &shop), ("host_double", &shop)]), "the shop's tools, once each")?;
        let paths = js(&t, widget, LISTED_PATHS, vec![json!(shop)]).await?;
        let expected = json!([["host_busy", "native"], ["host_double", "native"]]);
        check_eq(paths, expected, "the path of the native-only shop's tools")?;
        let doubled = js(&t, widget, "return await e2e.call('host_double', { x: 21 });", vec![]).await?;
        check_eq(doubled, json!({ "ok": true, "value": { "doubled": 42 } }), "host_double on native's path")?;
        let busy = js(&t, widget, "return await e2e.call('host_busy', {});", vec![]).await?;
        check(
            busy["ok"] == json!(false) && busy["name"] == json!("UnknownError") && busy["kind"] == json!("tool_error"),
            || format!("host_busy on native's path: expected UnknownError with code tool_error, got {busy}"),
        )
    })
    .await
}

/// The reverse roles of `a_native_only_frame_lists_and_calls_a_bridge_host`: the shop runs native WebMCP only, the
/// widget iframe (`allow="tools *"`) runs the bridge, exposing to the shop; the shop lists the widget's tools with
/// `document.modelContext.getTools({ fromOrigins })` and calls them with native's `executeTool`.
pub async fn a_native_only_host_lists_and_calls_a_bridge_frame(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("native", &[Site::Widget])).await?;
        embed_with_tools(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
        register(&t, Page::Frame("w"), double_tool("frame_double"), json!({})).await?;
        register(&t, Page::Frame("w"), busy_tool("frame_busy"), json!({})).await?;
        let widget = t.origin(Site::Widget).to_owned();
        let listed = js(&t, Page::Top, "return await e2e.list({ fromOrigins: ['widget'] });", vec![]).await?;
        check_eq(
            listed,
            listing(&[("frame_busy", &widget), ("frame_double", &widget)]),
            "the widget's tools, natively",
        )?;
        let doubled = js(&t, Page::Top, "return await e2e.call('frame_double', { x: 21 });", vec![]).await?;
        check_eq(doubled, json!({ "ok": true, "value": { "doubled": 42 } }), "frame_double through native")?;
        let busy = js(&t, Page::Top, "return await e2e.call('frame_busy', {});", vec![]).await?;
        check(busy["ok"] == json!(false) && busy["name"] == json!("UnknownError"), || {
            format!("frame_busy through native: expected native's UnknownError, got {busy}")
        })
    })
    .await
}

/// On a page without the bridge yet: other code keeps the browser's `document.modelContext` and registers
/// `early_native` there (exposed to the widget); the bridge is installed (exposing to the widget); then that code
/// registers through its reference `late_double` and `late_busy` (exposed to the widget, with signals it keeps in
/// `window.__late`) and `late_private` (no `exposedTo`).
const OTHER_CODE_REGISTERS: &str = r#"
const native = document.modelContext;
const widget = args[0];
await native.registerTool({ name: "early_native", description: "Registered before install().",
  execute() { return "early"; } }, { exposedTo: [widget] });
const bridge = await import("/pkg/interpane.js");
await bridge.default();
const context = bridge.install({ exposeToolsTo: [widget] });
await context.ready;
window.__late = { double: new AbortController(), busy: new AbortController() };
await native.registerTool({ name: "late_double", description: "Doubles x.",
  inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
  execute({ x }) { return { doubled: x * 2 }; } }, { exposedTo: [widget], signal: window.__late.double.signal });
await native.registerTool({ name: "late_busy", description: "Always rate limited.",
  execute() { throw Object.assign(new Error("slow down"), { status: 429, retryAfter: 30 }); } },
  { exposedTo: [widget], signal: window.__late.busy.signal });
await native.registerTool({ name: "late_private", description: "Exposed to nobody.", execute() { return 1; } });
return (await native.getTools()).map((tool) => tool.name).sort();
"#;

/// Tools that other code registers with native after `install()` reach a window native does not reach (a widget
/// iframe without `allow="tools"`) through the bridge, each to exactly the origins of its own `exposedTo`: listed,
/// called with the bridge's argument checks, status and retryAfter, and gone once its signal aborts. A tool
/// registered with native before `install()`, and one without `exposedTo`, are not exposed.
pub async fn tools_registered_with_native_after_install_reach_windows_native_does_not(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        t.open(Site::Shop, "/e2e/peer.html?kind=none").await?;
        let widget = t.origin(Site::Widget).to_owned();
        let native = t.session.execute_async(OTHER_CODE_REGISTERS, vec![json!(widget)]).await?;
        let expected = json!(["early_native", "late_busy", "late_double", "late_private"]);
        check_eq(native, expected, "the shop's native registry")?;
        embed(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
        let shop = t.origin(Site::Shop).to_owned();
        let frame = Page::Frame("w");
        let list = "return await e2e.list({ fromOrigins: ['shop'] });";
        let listed = js(&t, frame, list, vec![]).await?;
        check_eq(listed, listing(&[("late_busy", &shop), ("late_double", &shop)]), "the shop's tools, in the widget")?;
        let doubled = js(&t, frame, "return await e2e.call('late_double', { x: 21 });", vec![]).await?;
        check_eq(doubled, json!({ "ok": true, "value": { "doubled": 42 } }), "late_double from the widget")?;
        let unchecked = js(&t, frame, "return await e2e.call('late_double', { x: 'a' });", vec![]).await?;
        check(unchecked["kind"] == json!("invalid_args"), || {
            format!("late_double with a string x: expected invalid_args, got {unchecked}")
        })?;
        let busy = js(&t, frame, "return await e2e.call('late_busy', {});", vec![]).await?;
        check(busy["ok"] == json!(false) && busy["status"] == json!(429) && busy["retryAfter"] == json!(30), || {
            format!("late_busy from the widget: expected status 429 and retryAfter 30, got {busy}")
        })?;
        go(&t, Page::Top).await?;
        t.session.execute_async("window.__late.double.abort(); return null;", vec![]).await?;
        let listed = js(&t, frame, list, vec![]).await?;
        check_eq(listed, listing(&[("late_busy", &shop)]), "the shop's tools once late_double's signal aborted")
    })
    .await
}
