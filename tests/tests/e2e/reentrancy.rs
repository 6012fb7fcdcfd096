//! Re-entrancy: page code that the bridge runs synchronously (listeners of its events, a tool's `execute`, and
//! built-ins the page replaced, which the bridge calls while it works) calls the bridge back at once. Each such call
//! settles as documented, nothing traps the wasm (a `RuntimeError`, "unreachable"), and the bridge keeps working
//! for later calls, its own page's and another origin's. Both browser modes (`E2E_NATIVE=1`).

use interpane_demo_sites::Site;
use interpane_e2e::{Case, Ctx, E2eResult, case, check, check_eq};
use serde_json::{Value, json};

use crate::cross_origin::pages::{HOST_PROVIDES, Page, call, check_bridge_never_posts_to_star, js, list, open_pair};

pub fn cases() -> Vec<Case> {
    vec![
        case!(
            "reentrancy::listeners_and_execute_that_call_the_bridge_back_leave_it_working",
            listeners_and_execute_that_call_the_bridge_back_leave_it_working
        ),
        case!(
            "reentrancy::built_ins_the_bridge_calls_while_it_works_may_call_it_back",
            built_ins_the_bridge_calls_while_it_works_may_call_it_back
        ),
    ]
}

/// Installed in the shop's page (the top): `window.__re`. `poke(place)` calls, synchronously and once per place
/// (so that a listener does not feed itself forever), every method of the bridge: `registerTool` twice (one tool
/// later unregistered by `unregisterTool`, one by aborting its signal), `getTools`, `executeTool` of the page's own
/// tool, and `executeTool` of a slow tool whose signal it aborts at once. What each call gives is kept in
/// `outcomes`, anything that looks like a trap of the wasm (or any exception) in `errors`.
const HARNESS: &str = r#"
const mc = document.modelContext;
const re = { errors: [], outcomes: [], pending: 0, pokes: {}, armed: {} };
window.__re = re;
const text = (error) => String(error?.stack ?? error);
const trap = (error) => /unreachable|RuntimeError|borrow/i.test(text(error));
window.addEventListener("error", (event) => re.errors.push(`error event: ${event.error?.stack ?? event.message}`));
window.addEventListener("unhandledrejection", (event) => re.errors.push(`unhandled rejection: ${text(event.reason)}`));
const track = (what, promise) => {
  re.pending += 1;
  Promise.resolve(promise)
    .then(
      (value) => re.outcomes.push([what, "resolved", Array.isArray(value) ? "an array" : typeof value]),
      (error) => {
        re.outcomes.push([what, "rejected", error?.name ?? typeof error]);
        if (trap(error)) re.errors.push(`${what}: ${text(error)}`);
      },
    )
    .finally(() => (re.pending -= 1));
};
re.poke = (place) => {
  re.pokes[place] = (re.pokes[place] ?? 0) + 1;
  if (re.pokes[place] > 1) return;
  try {
    const signal = new AbortController();
    const tool = (name) => ({ name, description: `registered in ${place}`, execute: () => "done" });
    track(`${place}: registerTool`, mc.registerTool(tool(`re_${place}_signal`), { signal: signal.signal }));
    track(`${place}: registerTool, then unregisterTool`, mc.registerTool(tool(`re_${place}_name`)));
    track(`${place}: getTools`, mc.getTools());
    track(`${place}: executeTool`, mc.executeTool(re.echo, { from: place }));
    const stop = new AbortController();
    track(`${place}: executeTool, aborted`, mc.executeTool(re.slow, {}, { signal: stop.signal }));
    stop.abort();
    re.outcomes.push([`${place}: unregisterTool`, "returned", mc.unregisterTool(`re_${place}_name`)]);
    signal.abort();
  } catch (error) {
    re.errors.push(`${place} threw: ${text(error)}`);
  }
};
const body = (name, run) => ({ name, description: `re-entrancy test tool ${name}`, execute: run });
await mc.registerTool(body("re_echo", (args) => ({ echoed: args })));
await mc.registerTool(body("re_slow", (args, { signal }) => new Promise((_, reject) => {
  signal.addEventListener("abort", () => reject(signal.reason), { once: true });
})));
await mc.registerTool(body("re_execute", () => { re.poke("execute"); return "ran"; }));
await mc.registerTool({
  name: "re_pattern",
  description: "a tool whose argument has a pattern, which the bridge checks with the page's RegExp",
  inputSchema: { type: "object", properties: { code: { type: "string", pattern: "^[a-z]+$" } } },
  execute: () => "checked",
});
const own = await mc.getTools();
const find = (name) => own.find((tool) => tool.name === name && tool.origin === self.origin);
[re.echo, re.slow, re.execute, re.pattern] = ["re_echo", "re_slow", "re_execute", "re_pattern"].map(find);
return own.filter((tool) => tool.origin === self.origin).map((tool) => tool.name).sort();
"#;

/// Where page code runs when the bridge calls it: outside the session's work (a listener, a tool, a built-in the
/// driver calls), or inside it (a built-in that the session's own work calls: the session is borrowed).
#[derive(Clone, Copy)]
enum Place {
    Outside(&'static str),
    Inside(&'static str),
}

/// What `poke(place)` must give: each method settles as it does when called from anywhere else, except that inside
/// the session's work (docs/architecture.md, "Rules the split keeps") `registerTool` rejects and `unregisterTool` returns
/// false, while the other calls wait in the driver's inbox and are handled right after.
fn expected_outcomes(place: Place) -> Vec<Value> {
    let (place, registered, unregistered) = match place {
        Place::Outside(place) => (place, json!(["resolved", "undefined"]), true),
        Place::Inside(place) => (place, json!(["rejected", "Error"]), false),
    };
    let registered = |what: &str| json!([format!("{place}: {what}"), registered[0], registered[1]]);
    vec![
        json!([format!("{place}: executeTool"), "resolved", "string"]),
        json!([format!("{place}: executeTool, aborted"), "rejected", "AbortError"]),
        json!([format!("{place}: getTools"), "resolved", "an array"]),
        registered("registerTool"),
        registered("registerTool, then unregisterTool"),
        json!([format!("{place}: unregisterTool"), "returned", unregistered]),
    ]
}

fn name(place: Place) -> &'static str {
    match place {
        Place::Outside(name) | Place::Inside(name) => name,
    }
}

/// Opens the shop (top) and the widget (`#w`), both bridges, and installs [`HARNESS`] in the shop.
async fn open(t: &Ctx) -> E2eResult<()> {
    open_pair(t, "bridge", "bridge").await?;
    let own = js(t, Page::Top, HARNESS, vec![]).await?;
    check_eq(own, json!(["re_echo", "re_execute", "re_pattern", "re_slow"]), "the shop's own tools before the test")
}

/// Waits until every place in `places` was poked and every call it made settled; then checks that each call settled
/// as [`expected_outcomes`] says, that nothing threw or trapped, and that no tool a place registered is left.
async fn check_places(t: &Ctx, places: &[Place]) -> E2eResult<()> {
    let condition = format!(
        "{} && window.__re.pending === 0",
        places
            .iter()
            .map(|place| format!("window.__re.pokes[{}]", json!(name(*place))))
            .collect::<Vec<_>>()
            .join(" && ")
    );
    let waited = crate::cross_origin::pages::wait_in(t, Page::Top, &condition).await;
    let state = js(
        t,
        Page::Top,
        "return { errors: window.__re.errors, outcomes: window.__re.outcomes, pokes: window.__re.pokes, keys: window.__re.keys };",
        vec![],
    )
    .await?;
    check(state["errors"] == json!([]), || format!("errors in the shop's page: {}", state["errors"]))?;
    waited.map_err(|error| interpane_e2e::E2eError::Check(format!("{error}; the page's state: {state}")))?;
    let mut outcomes: Vec<Value> = state["outcomes"].as_array().cloned().unwrap_or_default();
    outcomes.sort_by_key(Value::to_string);
    let mut expected: Vec<Value> = places.iter().flat_map(|place| expected_outcomes(*place)).collect();
    expected.sort_by_key(Value::to_string);
    check_eq(Value::Array(outcomes), Value::Array(expected), "what each call made from page code gave")
}

/// The bridge keeps working: the shop's own tools are what they were (every tool a place registered is gone
/// again), the shop calls its own tool, and the widget lists the shop's tools and calls one.
async fn check_still_working(t: &Ctx) -> E2eResult<()> {
    let own = js(
        t,
        Page::Top,
        "const tools = await document.modelContext.getTools(); \
         return tools.filter((tool) => tool.origin === self.origin).map((tool) => tool.name).sort();",
        vec![],
    )
    .await?;
    check_eq(own, json!(["re_echo", "re_execute", "re_pattern", "re_slow"]), "the shop's own tools afterwards")?;
    let echoed = js(
        t,
        Page::Top,
        "return JSON.parse(await document.modelContext.executeTool(window.__re.echo, { after: true }));",
        vec![],
    )
    .await?;
    check_eq(echoed, json!({ "echoed": { "after": true } }), "the shop's own call afterwards")?;
    let listed = list(t, HOST_PROVIDES.consumer, json!({ "fromOrigins": ["shop"] })).await?;
    let shop = t.origin(Site::Shop);
    let expected: Vec<Value> =
        ["re_echo", "re_execute", "re_pattern", "re_slow"].iter().map(|name| json!([name, shop])).collect();
    check_eq(listed, Value::Array(expected), "what the widget lists of the shop afterwards")?;
    let outcome = call(t, HOST_PROVIDES.consumer, "re_echo", json!({ "from": "widget" })).await?;
    check_eq(outcome, json!({ "ok": true, "value": { "echoed": { "from": "widget" } } }), "the widget's call")?;
    check_bridge_never_posts_to_star(t).await.map(drop)
}

/// Listeners of `toolchange`, `toolresult`, `toolactivated` and `toolcancel`, and a tool's `execute`, each call
/// every method of the bridge synchronously (see [`HARNESS`]): a registration (a `toolchange`), a call of a tool
/// whose `execute` pokes (`toolactivated`, then `toolresult`) and a stopped call of a running tool (`toolcancel`).
async fn listeners_and_execute_that_call_the_bridge_back_leave_it_working(t: Ctx) -> E2eResult<()> {
    open(&t).await?;
    js(
        &t,
        Page::Top,
        "const re = window.__re; const mc = document.modelContext; \
         for (const type of ['toolchange', 'toolresult', 'toolactivated', 'toolcancel']) \
           mc.addEventListener(type, () => re.poke(type)); \
         await mc.registerTool({ name: 're_trigger', description: 'changes the tools', execute: () => 'x' }); \
         const ran = await mc.executeTool(re.execute, {}); \
         const stop = new AbortController(); \
         const stopped = mc.executeTool(re.slow, {}, { signal: stop.signal }).catch((error) => error.name); \
         stop.abort(); \
         const name = await stopped; \
         mc.unregisterTool('re_trigger'); \
         return [ran, name];",
        vec![],
    )
    .await
    .and_then(|value| check_eq(value, json!(["ran", "AbortError"]), "the calls that made the events"))?;
    let places = ["toolchange", "toolresult", "toolactivated", "toolcancel", "execute"].map(Place::Outside);
    check_places(&t, &places).await?;
    check_still_working(&t).await
}

/// Built-ins that the page replaced and that the bridge calls while its state is borrowed call the bridge back:
/// `RegExp.prototype.exec` (the argument check of a tool's `pattern`), `Storage.prototype.setItem` (a journal's
/// write), `MessagePort.prototype.postMessage` (a batch to the widget's bridge) and
/// `EventTarget.prototype.removeEventListener` (of the signal of a tool that is unregistered). The page's `RegExp` is
/// `window.RegExp`: Firefox runs WebDriver scripts in a sandbox whose JavaScript built-ins are its own.
async fn built_ins_the_bridge_calls_while_it_works_may_call_it_back(t: Ctx) -> E2eResult<()> {
    open(&t).await?;
    js(
        &t,
        Page::Top,
        "const re = window.__re; const mc = document.modelContext; \
         const pageRegExp = window.RegExp; const exec = pageRegExp.prototype.exec; \
         pageRegExp.prototype.exec = function (...args) { \
           if (re.armed.regexp && this.source === '^[a-z]+$') { re.armed.regexp = false; re.poke('regexp'); } \
           return exec.apply(this, args); }; \
         const setItem = Storage.prototype.setItem; \
         Storage.prototype.setItem = function (...args) { \
           (re.keys ??= []).push(String(args[0])); \
           if (re.armed.storage && /^webmcp:log:/.test(String(args[0]))) { re.armed.storage = false; re.poke('storage'); } \
           return setItem.apply(this, args); }; \
         const post = MessagePort.prototype.postMessage; \
         MessagePort.prototype.postMessage = function (...args) { \
           if (re.armed.port) { re.armed.port = false; re.poke('port'); } \
           return post.apply(this, args); }; \
         const remove = EventTarget.prototype.removeEventListener; \
         EventTarget.prototype.removeEventListener = function (...args) { \
           if (re.armed.signal && this instanceof AbortSignal) { re.armed.signal = false; re.poke('signal'); } \
           return remove.apply(this, args); }; \
         re.armed.regexp = true; \
         const checked = await mc.executeTool(re.pattern, { code: 'abc' }); \
         const controller = new AbortController(); \
         await mc.registerTool({ name: 're_with_signal', description: 'unregistered by name', execute: () => 'x' }, \
           { signal: controller.signal }); \
         re.armed.signal = true; \
         const removed = mc.unregisterTool('re_with_signal'); \
         return [checked, removed, re.armed.regexp, re.armed.signal];",
        vec![],
    )
    .await
    .and_then(|value| check_eq(value, json!(["checked", true, false, false]), "the calls that ran the replaced built-ins"))?;
    // A journal's write and a batch to the widget's bridge: the widget lists the shop (a private port opens), then
    // calls a tool of the shop, which journals the call before it runs it and answers through that port.
    list(&t, HOST_PROVIDES.consumer, json!({ "fromOrigins": ["shop"] })).await?;
    js(&t, Page::Top, "window.__re.armed.storage = true; window.__re.armed.port = true; return true;", vec![]).await?;
    let outcome = call(&t, HOST_PROVIDES.consumer, "re_echo", json!({ "through": "port" })).await?;
    check_eq(
        outcome,
        json!({ "ok": true, "value": { "echoed": { "through": "port" } } }),
        "the call through the port",
    )?;
    let places = [Place::Inside("regexp"), Place::Inside("storage"), Place::Outside("signal"), Place::Outside("port")];
    check_places(&t, &places).await?;
    check_still_working(&t).await
}
