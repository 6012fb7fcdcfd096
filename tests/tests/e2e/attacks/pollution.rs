//! Prototype pollution, both ways, and the garbage a malicious provider can put in an error's status and
//! retryAfter. The shop's origin (`/attack/pollution.html`) consumes an echo provider of the pay origin
//! (`/attack/echo.html`) and a provider of the evil origin that turned malicious (`/attack/malicious-provider.html`).

use interpane_demo_sites::Site;
use interpane_e2e::spy::check_no_wildcard_posts;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

/// The checks of a case that did not hold, each as one line.
#[derive(Default)]
struct Mismatches(Vec<String>);

impl Mismatches {
    fn expect(&mut self, what: &str, got: Value, expected: Value) {
        if got != expected {
            self.0.push(format!("{what}: expected {expected}, got {got}"));
        }
    }
}

/// `inspect()` of plain data: no own `__proto__` key, only plain prototypes, nothing inherited.
fn plain() -> Value {
    json!({ "ownProtoKeys": [], "oddPrototypes": [], "inheritedKeys": [] })
}

/// `prototypesNow()` of a page nothing was added to.
fn untouched() -> Value {
    json!({ "objectPrototypeAdded": [], "arrayPrototypeAdded": [], "functionPrototypeAdded": [], "inheritedByAFreshObject": [] })
}

const PROTO_REFUSED: &str =
    "a \"__proto__\" key is refused: code that copies the arguments into an object could give it another prototype";
const EXECUTE_REFUSES: &str = "executeTool: the arguments hold a \"__proto__\" key, which no provider accepts";

async fn open(t: &Ctx) -> E2eResult<()> {
    t.open(Site::Shop, "/attack/pollution.html").await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "pollution page state")?;
    for (css, site) in [("#echo-frame", Site::Pay), ("#malicious-frame", Site::Evil)] {
        t.session.enter_frame_of(css, t.origin(site)).await?;
        check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), &format!("{css} page state"))?;
        t.session.to_top().await?;
    }
    Ok(())
}

async fn js(t: &Ctx, body: &str, args: Vec<Value>) -> E2eResult<Value> {
    t.session.execute_async(body, args).await
}

/// Calls `tool` through the shop's bridge with `args` (JSON text, parsed in the page unless `as_text`); a result's
/// JSON text comes back parsed, as `result`.
async fn call(t: &Ctx, tool: &str, args: &str, as_text: bool) -> E2eResult<Value> {
    let body = "return await window.__pollution.call(args[0], args[1], { asText: args[2] });";
    let mut outcome = js(t, body, vec![json!(tool), json!(args), json!(as_text)]).await?;
    if let Some(text) = outcome.get("json").and_then(Value::as_str) {
        let result =
            serde_json::from_str(text).map_err(|error| E2eError::Check(format!("{tool}'s result: {error}")))?;
        if let Value::Object(fields) = &mut outcome {
            fields.remove("json");
            fields.insert("result".to_owned(), result);
        }
    }
    Ok(outcome)
}

/// A failed call as the shop's page sees it.
fn failed(name: &str, message: &str, own_keys: &[&str]) -> Value {
    json!({ "ok": false, "name": name, "message": message, "kind": null, "status": null, "retryAfter": null,
            "ownKeys": own_keys, "prototypeIsItsClass": true, "fields": plain() })
}

/// Arguments with `__proto__` never reach `execute`: the shop's bridge refuses them before sending, and the echo
/// provider refuses them when they come by hand. `constructor` and `prototype` keys arrive as own data; nothing
/// in either page's prototypes changes.
async fn arguments_reach_execute_as_plain_data(t: &Ctx) -> E2eResult<Vec<String>> {
    let mut found = Mismatches::default();
    let harmless = r#"{"constructor":{"prototype":{"polluted":"ctor"}},"prototype":{"polluted":"proto"},"nested":[{"constructor":{"name":"x"}}]}"#;
    let report = json!({ "json": harmless, "args": plain(), "constructorIsOwnData": "object",
                         "copyPrototypeIsObject": true, "prototypes": untouched() });
    let got = call(t, "echo_args", harmless, false).await?;
    found.expect("constructor and prototype keys", got, json!({ "ok": true, "result": report, "value": plain() }));

    let own_keys = ["message"];
    for (what, args, as_text) in [
        ("an own __proto__ key", r#"{"__proto__":{"polluted":"own"}}"#, false),
        ("a nested __proto__ key", r#"{"a":[{"b":{"__proto__":{"polluted":"nested"}}}]}"#, false),
        ("__proto__ in JSON text", r#"{"__proto__":{"polluted":"text"}}"#, true),
        ("an escaped __proto__ in JSON text", r#"{"\u005f_proto__":{"polluted":"escaped"}}"#, true),
    ] {
        found.expect(what, call(t, "echo_args", args, as_text).await?, failed("TypeError", EXECUTE_REFUSES, &own_keys));
    }

    for (what, message, path) in [
        (
            "by hand: args",
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","name":"echo_args","args":{"__proto__":{"polluted":1}}}"#,
            "args.__proto__",
        ),
        (
            "by hand: inputObject",
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","name":"echo_args","inputObject":{"x":[{"__proto__":{}}]}}"#,
            "inputObject.x[0].__proto__",
        ),
        (
            "by hand: escaped key in JSON text",
            r#"{"type":"WEBMCP_EXECUTE_TOOL_REQUEST","name":"echo_args","args":"{\"\\u005f_proto__\":1}"}"#,
            "args.__proto__",
        ),
    ] {
        let got = js(t, "return await window.__pollution.raw(args[0]);", vec![json!(message)]).await?;
        let refusal = json!([{ "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": "#0", "success": false, "code": "invalid_args",
            "error": format!("WEBMCP_EXECUTE_TOOL_REQUEST refused: {path}: {PROTO_REFUSED}") }]);
        found.expect(what, got, refusal);
    }
    check_eq(t.counter(Site::Pay, "echo_args"), 1, "runs of echo_args (only the call without __proto__)")?;
    Ok(found.0)
}

/// Lists both providers' tools in the shop's page, sorted by name.
async fn list_tools(t: &Ctx) -> E2eResult<Vec<Value>> {
    let listed = js(t, "return await window.__pollution.list();", vec![]).await?;
    let mut listed = listed.as_array().cloned().unwrap_or_default();
    listed.sort_by_key(|tool| tool["name"].as_str().unwrap_or_default().to_owned());
    Ok(listed)
}

/// The malicious provider's list, result and error carry `__proto__` keys everywhere: its tools are filed under
/// its own origin (whatever they claim), and nothing handed to the shop's page has prototype behaviour.
async fn poisoned_answers_stay_plain_data(t: &Ctx) -> E2eResult<Vec<String>> {
    let mut found = Mismatches::default();
    let listed: Vec<Value> = list_tools(t)
        .await?
        .into_iter()
        .map(|tool| {
            json!([
                tool["name"],
                tool["origin"],
                tool["inspected"]["oddPrototypes"],
                tool["inspected"]["inheritedKeys"]
            ])
        })
        .collect();
    let (pay, evil) = (t.origin(Site::Pay), t.origin(Site::Evil));
    let expected = json!([
        ["echo_args", pay, [], []],
        ["garbage_status", evil, [], []],
        ["poisoned_error", evil, [], []],
        ["poisoned_result", evil, [], []],
    ]);
    found.expect("the tools listed: names, origins, prototypes, inherited keys", Value::Array(listed), expected);

    let result = json!({ "content": [{ "type": "text", "text": "poisoned" }],
                         "constructor": { "prototype": { "polluted": "constructor" } }, "nested": [{ "deeper": {} }] });
    found.expect(
        "a poisoned result",
        call(t, "poisoned_result", "{}", false).await?,
        json!({ "ok": true, "result": result, "value": plain() }),
    );
    let mut error = failed("Error", "poisoned failure", &["code", "kind", "message"]);
    error["fields"] = plain();
    error["kind"] = json!("tool_error");
    found.expect("a poisoned error", call(t, "poisoned_error", "{}", false).await?, error);
    Ok(found.0)
}

/// A provider's status and retryAfter reach the caller only when valid: an integer status from 100 to 599; a
/// finite retryAfter >= 0, or a string holding one. Messages are cut at 1,000 characters.
async fn garbage_status_is_dropped(t: &Ctx) -> E2eResult<Vec<String>> {
    let rows = [
        (json!(429), json!(30), json!(429), json!(30)),
        (json!(503), json!("30"), json!(503), json!("30")),
        (json!(100), json!(0), json!(100), json!(0)),
        (json!(599), json!("1.5"), json!(599), json!("1.5")),
        (json!("429"), json!("abc"), Value::Null, Value::Null),
        (json!(99), json!(-1), Value::Null, Value::Null),
        (json!(600), json!("Infinity"), Value::Null, Value::Null),
        (json!(429.5), json!("-5"), Value::Null, Value::Null),
        (json!(1e9), json!("1e999"), Value::Null, Value::Null),
        (json!("$NaN"), json!("$Infinity"), Value::Null, Value::Null),
        (json!("$-Infinity"), json!("$NaN"), Value::Null, Value::Null),
        (Value::Null, json!({ "seconds": 30 }), Value::Null, Value::Null),
        (json!(true), json!([30]), Value::Null, Value::Null),
        (json!({ "code": 429 }), json!(true), Value::Null, Value::Null),
        (json!(-429), json!(""), Value::Null, Value::Null),
    ];
    let mut failures = Vec::new();
    for (status, retry_after, kept_status, kept_retry) in rows {
        let args = json!({ "status": status, "retryAfter": retry_after }).to_string();
        let got = call(t, "garbage_status", &args, false).await?;
        let kept = (got["status"].clone(), got["retryAfter"].clone(), got["kind"].clone(), got["message"].clone());
        let expected = (kept_status, kept_retry, json!("tool_error"), json!("garbage"));
        if kept != expected {
            failures.push(format!("status {status} and retryAfter {retry_after}: expected {expected:?}, got {kept:?}"));
        }
    }
    let long = call(t, "garbage_status", &json!({ "error": "y".repeat(5000) }).to_string(), false).await?;
    let length = long["message"].as_str().map(|message| message.chars().count());
    if length != Some(1000) {
        failures.push(format!("a 5,000-character error message: expected it cut to 1,000, got {length:?}"));
    }
    Ok(failures)
}

/// Arguments never carry prototype behaviour into `execute`; poisoned results and errors never pollute the
/// caller; garbage status and retryAfter are dropped; both pages' prototypes stay as they were.
pub async fn prototypes_stay_clean_in_both_directions(t: Ctx) -> E2eResult<()> {
    open(&t).await?;
    // Lists first: the calls below use the listed tools.
    let mut failures = poisoned_answers_stay_plain_data(&t).await?;
    failures.extend(arguments_reach_execute_as_plain_data(&t).await?);
    failures.extend(garbage_status_is_dropped(&t).await?);
    check(failures.is_empty(), || format!("{} checks failed:\n{}", failures.len(), failures.join("\n")))?;
    check_eq(
        js(&t, "return window.__pollution.prototypes();", vec![]).await?,
        untouched(),
        "the shop page's prototypes",
    )?;
    t.session.enter_frame_of("#echo-frame", t.origin(Site::Pay)).await?;
    let echo = t.session.execute("return window.__echo.prototypes();", vec![]).await?;
    check_eq(echo, untouched(), "the echo provider's prototypes")?;
    t.session.to_top().await?;
    check_no_wildcard_posts(&t.session).await.map(drop)
}

/// A malicious provider's tool list: the `inputSchema` and `annotations` the shop's page gets hold no `__proto__`
/// key, as results and errors do not (docs/SECURITY.md: "No prototype pollution"). Such a key is an own data
/// property, harmless in itself, but `Object.assign({}, tool.inputSchema)` or a for-in copy gives the copy the
/// provider's prototype.
pub async fn a_poisoned_tool_list_reaches_the_page_without_proto_keys(t: Ctx) -> E2eResult<()> {
    open(&t).await?;
    let evil = t.origin(Site::Evil);
    let poisoned_tool = |name: &str| {
        json!({ "name": name, "origin": evil, "schema": r#"{"type":"object","properties":{}}"#,
                "annotations": r#"{"readOnlyHint":true,"untrustedContentHint":false,"consequentialHint":false}"#,
                "inspected": plain() })
    };
    let echo = json!({ "name": "echo_args", "origin": t.origin(Site::Pay), "schema": r#"{"type":"object"}"#,
                       "annotations": "null", "inspected": plain() });
    let expected =
        vec![echo, poisoned_tool("garbage_status"), poisoned_tool("poisoned_error"), poisoned_tool("poisoned_result")];
    let (got, expected) = (Value::Array(list_tools(&t).await?), Value::Array(expected));
    check(got == expected, || {
        format!("the tools listed, as the shop's page gets them: expected {expected}, got {got}")
    })?;
    check_no_wildcard_posts(&t.session).await.map(drop)
}

/// A provider's tool list over the protocol's limits (more than 512 tools, a description over 4,096 characters,
/// a name listed twice) is refused whole: the shop's page lists none of that provider's tools. At the limits it
/// lists them all.
pub async fn a_malicious_providers_list_over_the_limits_is_refused(t: Ctx) -> E2eResult<()> {
    open(&t).await?;
    let mut failures = Vec::new();
    for (listing, expected) in [
        ("513 tools", 0),
        ("description of 4097", 0),
        ("same name twice", 0),
        ("512 tools", 512),
        ("description of 4096", 1),
    ] {
        t.session.enter_frame_of("#malicious-frame", t.origin(Site::Evil)).await?;
        t.session.execute("window.__listing = arguments[0]; return window.__listing;", vec![json!(listing)]).await?;
        t.session.to_top().await?;
        let listed = list_tools(&t).await?;
        let from_evil = listed.iter().filter(|tool| tool["origin"] == t.origin(Site::Evil)).count();
        if from_evil != expected {
            failures.push(format!("a list of {listing}: expected {expected} tools listed, got {from_evil}"));
        }
    }
    check(failures.is_empty(), || failures.join("\n"))?;
    check_no_wildcard_posts(&t.session).await.map(drop)
}
