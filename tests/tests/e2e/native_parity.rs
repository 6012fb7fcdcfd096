//! The bridge's `document.modelContext` behaves as native WebMCP's where native's behaviour is measured
//! (`native::what_native_offers`; docs/native.md, "The bridge's `document.modelContext` and native's"). The cases
//! without a Chromium of their own run in the suite's mode: the bridge alone, or with native WebMCP beside it
//! (`E2E_NATIVE=1`); what they expect is the same in both.

use interpane_demo_sites::Site;
use interpane_e2e::{Case, Ctx, E2eResult, case, check_eq};
use serde_json::{Value, json};

use crate::cross_origin::pages::{Page, embed, js, open_top, peer_path, register};
use crate::native::{NATIVE_ENGINES, NATIVE_WHY, in_native_chromium};

pub fn cases() -> Vec<Case> {
    vec![
        case!("native_parity::results_are_strings_on_the_bridges_path", results_are_strings_on_the_bridges_path),
        case!(
            "native_parity::results_are_the_same_strings_on_natives_path",
            results_are_the_same_strings_on_natives_path
        )
        .only_in(NATIVE_ENGINES, NATIVE_WHY),
        case!("native_parity::native_answers_as_measured", native_answers_as_measured)
            .only_in(NATIVE_ENGINES, NATIVE_WHY),
        case!("native_parity::the_bridge_answers_as_native_does", the_bridge_answers_as_native_does),
    ]
}

/// Tools whose results are of each kind: `[name, body]`.
const RESULT_TOOLS: [(&str, &str); 8] = [
    ("result_string", "return 'hi';"),
    ("result_number", "return 5;"),
    ("result_boolean", "return true;"),
    ("result_null", "return null;"),
    ("result_missing", "return;"),
    ("result_array", "return [1, 'a'];"),
    ("result_object", "return { b: 1, a: { when: new Date(0) } };"),
    ("result_proto", "return JSON.parse('{\"a\":1,\"__proto__\":{\"polluted\":true}}');"),
];

/// In `args[0]`'s page: calls each tool named in `args[1]` of origin `args[0]` with `document.modelContext` and
/// returns, by name, `[typeof the result, the result]` or `["error", name]`.
const CALL_EACH: &str = r#"
const tools = await document.modelContext.getTools({ fromOrigins: [args[0]], timeoutMs: 1500 });
const out = {};
for (const name of args[1]) {
  const tool = tools.find((candidate) => candidate.name === name && candidate.origin === args[0]);
  if (!tool) { out[name] = ["not listed"]; continue; }
  try {
    const value = await document.modelContext.executeTool(tool, {});
    out[name] = [typeof value, value];
  } catch (error) {
    out[name] = ["error", error.name];
  }
}
return out;
"#;

/// What each result tool's call resolves with, as native gives it (measured in `native::what_native_offers`),
/// with `"undefined"` for a tool that returned nothing.
fn expected_results(undefined: &str) -> Value {
    json!({
        "result_string": ["string", "hi"],
        "result_number": ["string", "5"],
        "result_boolean": ["string", "true"],
        "result_null": ["string", "null"],
        "result_missing": ["string", undefined],
        "result_array": ["string", "[1,\"a\"]"],
        "result_object": ["string", "{\"b\":1,\"a\":{\"when\":\"1970-01-01T00:00:00.000Z\"}}"],
        "result_proto": ["string", "{\"a\":1}"],
    })
}

/// Registers the result tools in `page`.
async fn register_result_tools(t: &Ctx, page: Page) -> E2eResult<()> {
    for (name, body) in RESULT_TOOLS {
        register(t, page, json!({ "name": name, "body": body }), json!({})).await?;
    }
    Ok(())
}

fn result_names() -> Value {
    json!(RESULT_TOOLS.iter().map(|(name, _)| *name).collect::<Vec<_>>())
}

/// On the bridge's path, `executeTool` resolves with a string as native does: a string result as it is, any other
/// result as its JSON text, with its keys in the order the tool wrote them (a `"__proto__"` key left out). A tool
/// that returned nothing reads `"null"` (the wire carries JSON; native reads `"undefined"`). The same from another
/// origin's frame and for the page's own tools, and the `toolresult` event holds the same string.
pub async fn results_are_strings_on_the_bridges_path(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
    embed(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
    register_result_tools(&t, Page::Top).await?;
    let shop = t.origin(Site::Shop).to_owned();
    let from_widget = js(&t, Page::Frame("w"), CALL_EACH, vec![json!(shop), result_names()]).await?;
    check_eq(from_widget, expected_results("null"), "results of the shop's tools, called from the widget")?;
    let own = js(&t, Page::Top, CALL_EACH, vec![json!(shop), result_names()]).await?;
    check_eq(own, expected_results("null"), "results of the shop's tools, called by the shop")?;
    let event = r#"
const tool = (await document.modelContext.getTools({ fromOrigins: [args[0]] })).find((c) => c.name === "result_object");
const heard = new Promise((resolve) => document.modelContext.addEventListener("toolresult", resolve, { once: true }));
const value = await document.modelContext.executeTool(tool, {});
const event = await heard;
return [event.result === value, typeof event.result];
"#;
    let seen = js(&t, Page::Frame("w"), event, vec![json!(shop)]).await?;
    check_eq(seen, json!([true, "string"]), "the toolresult event's result: the string executeTool resolved with")
}

/// On native's path (a bridge page calling a native-only frame's tools, in a Chromium with native WebMCP), the
/// same strings as on the bridge's path, except that a tool that returned nothing reads `"undefined"` (native's
/// text, passed on as it is). Native does not drop a `"__proto__"` key: neither does the bridge on this path
/// (it is native's text).
pub async fn results_are_the_same_strings_on_natives_path(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
        let url = format!("{}{}", t.origin(Site::Widget), peer_path("native", &[Site::Shop]));
        let state =
            js(&t, Page::Top, "return await e2e.embed(args[0], args[1], 'tools *');", vec![json!("n"), json!(url)])
                .await?;
        check_eq(state, json!("ready"), "state of the native-only widget frame")?;
        register_result_tools(&t, Page::Frame("n")).await?;
        let widget = t.origin(Site::Widget).to_owned();
        let seen = js(&t, Page::Top, CALL_EACH, vec![json!(widget), result_names()]).await?;
        let mut expected = expected_results("undefined");
        expected["result_proto"] = json!(["string", "{\"a\":1,\"__proto__\":{\"polluted\":true}}"]);
        check_eq(seen, expected, "results of the native-only frame's tools, on native's path")
    })
    .await
}

/// The same calls of `document.modelContext` on a page with the bridge and on a page with native WebMCP only:
/// `registerTool` of valid and invalid tools, `executeTool` of the page's own tool with arguments of each kind and
/// with tool objects of each kind, a refusal by `inputSchema`, and the events of a call that is stopped. Each
/// outcome is `["ok", value]`, `["sync", name]` (thrown at once) or `[name, is a DOMException]` (a rejection).
const PARITY: &str = r#"
const mc = document.modelContext;
const outcome = (run) => {
  let promise;
  try { promise = run(); } catch (error) { return Promise.resolve(["sync", error.name]); }
  // The tag, not instanceof: Firefox runs WebDriver scripts in a sandbox whose Promise is not the page's.
  if (Object.prototype.toString.call(promise) !== "[object Promise]") return Promise.resolve(["not a promise", typeof promise]);
  return promise.then((value) => ["ok", value === undefined ? "<undefined>" : value],
    (error) => [error?.name ?? String(error), error instanceof DOMException]);
};
const run = () => "ran";
const out = {};
const echo = (input) => JSON.stringify({ type: Array.isArray(input) ? "array" : typeof input, input });
out.register = {
  ok: await outcome(() => mc.registerTool({ name: "p_echo", description: "echo", execute: echo })),
  duplicate: await outcome(() => mc.registerTool({ name: "p_echo", description: "again", execute: run })),
  noName: await outcome(() => mc.registerTool({ description: "d", execute: run })),
  emptyName: await outcome(() => mc.registerTool({ name: "", description: "d", execute: run })),
  spaceName: await outcome(() => mc.registerTool({ name: "a b", description: "d", execute: run })),
  noDescription: await outcome(() => mc.registerTool({ name: "p_no_description", execute: run })),
  emptyDescription: await outcome(() => mc.registerTool({ name: "p_empty_description", description: "", execute: run })),
  noExecute: await outcome(() => mc.registerTool({ name: "p_no_execute", description: "d" })),
  notAnObject: await outcome(() => mc.registerTool("tool")),
  schemaCycle: await outcome(() => { const s = { type: "object" }; s.self = s;
    return mc.registerTool({ name: "p_cycle", description: "d", inputSchema: s, execute: run }); }),
  abortedSignal: await outcome(() => mc.registerTool({ name: "p_aborted", description: "d", execute: run },
    { signal: AbortSignal.abort("why") })),
  schemaRef: await outcome(() => mc.registerTool({ name: "p_schema_ref", description: "d", execute: run,
    inputSchema: { type: "object", properties: { x: { $ref: "\x23/x" } } } })),
};
await mc.registerTool({ name: "p_schema", description: "schema", execute: run,
  inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } });
let release;
await mc.registerTool({ name: "p_slow", description: "slow",
  execute() { return new Promise((resolve) => { release = resolve; }); } });
const tools = await mc.getTools();
const tool = (name) => tools.find((candidate) => candidate.name === name);
const p_echo = tool("p_echo");
out.args = {
  leftOut: await outcome(() => mc.executeTool(p_echo)),
  undefined: await outcome(() => mc.executeTool(p_echo, undefined)),
  object: await outcome(() => mc.executeTool(p_echo, { a: 1 })),
  nullish: await outcome(() => mc.executeTool(p_echo, null)),
  number: await outcome(() => mc.executeTool(p_echo, 5)),
  boolean: await outcome(() => mc.executeTool(p_echo, true)),
  array: await outcome(() => mc.executeTool(p_echo, [1, 2])),
  notJson: await outcome(() => mc.executeTool(p_echo, "not json")),
  toJsonUndefined: await outcome(() => mc.executeTool(p_echo, { toJSON() { return undefined; } })),
};
out.tool = {
  plain: await outcome(() => mc.executeTool({ name: "p_echo" }, {})),
  madeUp: await outcome(() => mc.executeTool({ name: "nobody", origin: location.origin, window }, {})),
  copy: await outcome(() => mc.executeTool({ ...p_echo }, {})),
  string: await outcome(() => mc.executeTool("p_echo", {})),
  nothing: await outcome(() => mc.executeTool()),
};
out.schemaRefusal = await outcome(() => mc.executeTool(tool("p_schema"), {}));
const heard = [];
for (const type of ["toolactivated", "toolcancel"]) {
  window.addEventListener(type, () => heard.push(["window", type]));
  mc.addEventListener(type, (event) => heard.push(["context", type, event.toolName, event.bubbles, event.cancelable,
    typeof ToolActivatedEvent !== "function" || event instanceof (type === "toolcancel" ? ToolCancelEvent : ToolActivatedEvent)]));
}
const stop = new AbortController();
const call = outcome(() => mc.executeTool(tool("p_slow"), {}, { signal: stop.signal }));
while (!release) await new Promise((resolve) => setTimeout(resolve, 10));
await new Promise((resolve) => setTimeout(resolve, 50));
heard.push(["aborting"]);
stop.abort();
out.aborted = await call;
await new Promise((resolve) => setTimeout(resolve, 100));
release("late");
await mc.executeTool(p_echo, {});
await new Promise((resolve) => setTimeout(resolve, 50));
out.events = heard;
// The interfaces' names, as the spec gives them (the package's bundler shortens other names).
out.names = [Object.getPrototypeOf(mc).constructor.name, ToolActivatedEvent.name, ToolCancelEvent.name];
return out;
"#;

/// What native answers to [`PARITY`] (measured on Chromium 156 with `--enable-features=WebMCP`).
fn native_answers() -> Value {
    let echoed = |input: Value| {
        let kind = if input.is_array() { "array" } else { "object" };
        json!(["ok", format!("{{\"type\":\"{kind}\",\"input\":{input}}}")])
    };
    json!({
        "register": {
            "ok": ["ok", "<undefined>"],
            "duplicate": ["InvalidStateError", true],
            "noName": ["TypeError", false],
            "emptyName": ["InvalidStateError", true],
            "spaceName": ["InvalidStateError", true],
            "noDescription": ["TypeError", false],
            "emptyDescription": ["InvalidStateError", true],
            "noExecute": ["TypeError", false],
            "notAnObject": ["TypeError", false],
            "schemaCycle": ["TypeError", false],
            "schemaRef": ["ok", "<undefined>"],
            "abortedSignal": ["why", false],
        },
        "args": {
            "leftOut": echoed(json!({})),
            "undefined": echoed(json!({})),
            "object": echoed(json!({ "a": 1 })),
            "nullish": ["TypeError", false],
            "number": ["TypeError", false],
            "boolean": ["TypeError", false],
            "array": echoed(json!([1, 2])),
            "notJson": ["TypeError", false],
            "toJsonUndefined": ["TypeError", false],
        },
        "tool": {
            "plain": ["TypeError", false],
            "madeUp": ["TypeError", false],
            "copy": echoed(json!({})),
            "string": ["TypeError", false],
            "nothing": ["TypeError", false],
        },
        "schemaRefusal": ["ok", "ran"],
        "aborted": ["AbortError", true],
        "events": [
            ["context", "toolactivated", "p_slow", false, false, true],
            ["aborting"],
            ["context", "toolcancel", "p_slow", false, false, true],
            ["context", "toolactivated", "p_echo", false, false, true],
        ],
        "names": ["ModelContext", "ToolActivatedEvent", "ToolCancelEvent"],
    })
}

/// Native's answers to [`PARITY`]: the reference the bridge's are compared with. Fails when a Chromium update
/// changes one of them.
pub async fn native_answers_as_measured(t: Ctx) -> E2eResult<()> {
    in_native_chromium(t, |t| async move {
        open_top(&t, Site::Shop, &peer_path("native", &[])).await?;
        let answers = js(&t, Page::Top, PARITY, vec![]).await?;
        check_eq(answers, native_answers(), "native's answers")
    })
    .await
}

/// The bridge's `document.modelContext` answers [`PARITY`] as native does (in this run's mode), except where
/// docs/native.md justifies a difference: an `inputSchema` outside WebMCP's subset (`$ref`) is refused with a
/// `TypeError` (native 156 takes it; the platform tests refuse it), arguments that `inputSchema` refuses reject with
/// a `DOMException` `DataError` (native 156 does not check them; the WebMCP web-platform-tests expect `DataError`),
/// a made-up tool object of this page's window and origin rejects with a `DOMException` `UnknownError` (native
/// 156 throws a `TypeError`; the tests expect `UnknownError`), and `toolactivated`/`toolcancel` reach the window
/// too (native 156 fires them at `document.modelContext` only; the newer executeTool-events test expects both).
pub async fn the_bridge_answers_as_native_does(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[])).await?;
    let answers = js(&t, Page::Top, PARITY, vec![]).await?;
    let mut expected = native_answers();
    expected["register"]["schemaRef"] = json!(["TypeError", false]);
    expected["events"] = json!([
        ["context", "toolactivated", "p_slow", false, false, true],
        ["window", "toolactivated"],
        ["aborting"],
        ["context", "toolcancel", "p_slow", false, false, true],
        ["window", "toolcancel"],
        ["context", "toolactivated", "p_echo", false, false, true],
        ["window", "toolactivated"],
    ]);
    expected["schemaRefusal"] = json!(["DataError", true]);
    expected["tool"]["madeUp"] = json!(["UnknownError", true]);
    check_eq(answers, expected, "the bridge's answers, against native's")
}
