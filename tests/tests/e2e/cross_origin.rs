//! Cross-origin cases with real windows of different origins (needs the bridge): a host page and its iframe in
//! both directions (the host exposes tools to the iframe; the host consumes the iframe's tools), siblings of other
//! origins, and an opener with its popup. Every case ends with the check that no post of the bridge named '*'.

#[path = "cross_origin/defects.rs"]
mod defects;
#[path = "cross_origin/leaving.rs"]
mod leaving;
#[path = "cross_origin/pages.rs"]
pub mod pages;

use interpane_demo_sites::Site;
use interpane_e2e::{Case, Ctx, E2eResult, case, check, check_eq};
use serde_json::{Value, json};

use pages::{
    BOTH_DIRECTIONS, Direction, Page, call, check_bridge_never_posts_to_star, check_code, embed, js, list, listing,
    open_pair, open_top, peer_path, register, spy_log, wait_counter, wait_in,
};

pub fn cases() -> Vec<Case> {
    vec![
        case!("cross::list_and_call_in_both_directions", list_and_call_in_both_directions),
        case!("cross::a_host_shows_each_origin_exactly_its_tools", a_host_shows_each_origin_exactly_its_tools),
        case!("cross::an_iframe_shows_each_origin_exactly_its_tools", an_iframe_shows_each_origin_exactly_its_tools),
        case!("cross::errors_arrive_intact_in_both_directions", errors_arrive_intact_in_both_directions),
        case!(
            "cross::abort_rejects_at_once_and_aborts_the_tools_signal",
            abort_rejects_at_once_and_aborts_the_tools_signal
        ),
        case!(
            "cross::toolchange_reaches_the_consumer_in_both_directions",
            toolchange_reaches_the_consumer_in_both_directions
        ),
        case!("cross::a_removed_provider_frame_interrupts_its_calls", a_removed_provider_frame_interrupts_its_calls),
        case!(
            "cross::a_navigated_provider_frame_interrupts_its_calls",
            a_navigated_provider_frame_interrupts_its_calls
        ),
        case!("cross::an_opener_and_its_popup_call_each_other", an_opener_and_its_popup_call_each_other),
        case!(
            "cross::results_are_made_safe_and_capped_in_both_directions",
            results_are_made_safe_and_capped_in_both_directions
        ),
        case!(
            "cross::bridges_talk_on_their_private_port_after_the_first_list",
            bridges_talk_on_their_private_port_after_the_first_list
        ),
        case!(
            "cross::invalid_arguments_are_refused_before_the_tool_runs",
            invalid_arguments_are_refused_before_the_tool_runs
        ),
        case!(
            "cross::two_bridges_that_list_and_call_each_other_at_once_never_hang",
            defects::two_bridges_that_list_and_call_each_other_at_once_never_hang
        ),
        case!(
            "cross::crossing_port_handshakes_leave_a_working_port_each_way",
            defects::crossing_port_handshakes_leave_a_working_port_each_way
        ),
        case!(
            "cross::a_port_message_that_is_no_batch_is_refused_and_the_port_keeps_working",
            defects::a_port_message_that_is_no_batch_is_refused_and_the_port_keeps_working
        ),
        case!(
            "cross::an_invalid_args_refusal_goes_to_the_window_that_asked",
            defects::an_invalid_args_refusal_goes_to_the_window_that_asked
        ),
        case!(
            "cross::a_frame_that_reloads_mid_handshake_is_called_on_its_new_page",
            defects::a_frame_that_reloads_mid_handshake_is_called_on_its_new_page
        ),
        case!(
            "cross::a_call_waiting_on_a_port_that_closes_is_settled",
            defects::a_call_waiting_on_a_port_that_closes_is_settled
        ),
        case!(
            "cross::a_parent_hears_of_a_same_origin_frames_new_tool",
            a_parent_hears_of_a_same_origin_frames_new_tool
        ),
        case!(
            "cross::a_frames_tool_for_a_third_origin_is_no_change_for_its_parent",
            a_frames_tool_for_a_third_origin_is_no_change_for_its_parent
        ),
        case!(
            "cross::tool_change_notices_skip_origins_that_see_no_tool",
            defects::tool_change_notices_skip_origins_that_see_no_tool
        ),
        case!(
            "cross::a_same_origin_caller_that_navigates_away_stops_the_run",
            leaving::a_same_origin_caller_that_navigates_away_stops_the_run
        ),
        case!(
            "cross::a_cross_origin_caller_that_navigates_away_stops_the_run",
            leaving::a_cross_origin_caller_that_navigates_away_stops_the_run
        ),
        case!(
            "cross::a_same_origin_caller_navigated_by_its_parent_stops_the_run",
            leaving::a_same_origin_caller_navigated_by_its_parent_stops_the_run
        ),
        case!("cross::a_removed_same_origin_caller_stops_the_run", leaving::a_removed_same_origin_caller_stops_the_run),
        case!(
            "cross::a_removed_cross_origin_caller_stops_the_run",
            leaving::a_removed_cross_origin_caller_stops_the_run
        ),
        case!("cross::a_caller_popup_that_closes_stops_the_run", leaving::a_caller_popup_that_closes_stops_the_run),
    ]
}

/// A tool that returns its arguments and the origin of the page that ran it.
fn echo_tool(name: &str) -> Value {
    json!({ "name": name, "body": "return { echoed: args, ranAt: self.origin };" })
}

/// In each direction: the consumer lists exactly the provider's tool (filed under the provider's origin, besides
/// its own page's tools), calls it, gets the result computed in the provider's origin; the tool ran once.
async fn list_and_call_in_both_directions(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    let mut registered: Vec<(String, Site)> = Vec::new();
    for dir in BOTH_DIRECTIONS {
        let name = dir.tool("echo");
        register(&t, dir.provider, echo_tool(&name), json!({})).await?;
        registered.push((name.clone(), dir.provider_site));
        // The consumer's own page's tools are listed too: the other direction's tool, when it lives there.
        let expected: Vec<(&str, &str)> = registered
            .iter()
            .filter(|(_, site)| *site == dir.provider_site || *site == dir.consumer_site)
            .map(|(name, site)| (name.as_str(), t.origin(*site)))
            .collect();
        let listed = list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;
        check_eq(listed, listing(&expected), &format!("{name}: what the {} lists", dir.consumer_site))?;
        let outcome = call(&t, dir.consumer, &name, json!({ "sku": "margherita", "n": 2 })).await?;
        let expected = json!({ "ok": true, "value": {
            "echoed": { "sku": "margherita", "n": 2 }, "ranAt": t.origin(dir.provider_site) } });
        check_eq(outcome, expected, &format!("{name}: the call's outcome"))?;
        check_eq(t.counter(dir.provider_site, &name), 1, &format!("{name}: runs"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// `EXECUTE` of `name` sent by hand from `page` to `target` (a window name of peer.js) at `target_origin`;
/// returns the response's data with its request id and the tool's name replaced by placeholders, so that the
/// answers about two different tools can be compared.
async fn raw_execute(t: &Ctx, page: Page, target: &str, target_origin: &str, name: &str) -> E2eResult<Value> {
    let request_id = format!("raw-{name}");
    let message = json!({ "type": "WEBMCP_EXECUTE_TOOL_REQUEST", "requestId": request_id, "name": name, "args": {} });
    let reply = js(
        t,
        page,
        "return await e2e.raw(args[0], args[1], args[2]);",
        vec![json!(target), message, json!(target_origin)],
    )
    .await?;
    check_eq(reply["origin"].clone(), json!(target_origin), &format!("origin of the answer about {name}"))?;
    let text = reply["data"].to_string().replace(&request_id, "<id>").replace(name, "<tool>");
    serde_json::from_str(&text).map_err(|error| interpane_e2e::E2eError::Check(error.to_string()))
}

/// The shop (top) exposes to widget and pay: a tool without `exposedTo` (both), one for the widget, one for pay.
/// The widget, pay and evil iframes each list exactly what they may; an invisible tool called by hand gets the
/// same answer as a tool that does not exist; nothing ran.
async fn a_host_shows_each_origin_exactly_its_tools(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget, Site::Pay])).await?;
    register(&t, Page::Top, echo_tool("for_listed"), json!({})).await?;
    register(&t, Page::Top, echo_tool("for_widget"), json!({ "exposedTo": ["widget"] })).await?;
    register(&t, Page::Top, echo_tool("for_pay"), json!({ "exposedTo": ["pay"] })).await?;
    for (id, site) in [("w", Site::Widget), ("p", Site::Pay), ("e", Site::Evil)] {
        embed(&t, Page::Top, id, site, &peer_path("bridge", &[])).await?;
    }
    let shop = t.origin(Site::Shop).to_owned();
    let every_origin = json!({ "fromOrigins": ["shop", "widget", "pay", "evil"] });
    let seen = [
        (Page::Frame("w"), listing(&[("for_listed", &shop), ("for_widget", &shop)])),
        (Page::Frame("p"), listing(&[("for_listed", &shop), ("for_pay", &shop)])),
        (Page::Frame("e"), listing(&[])),
    ];
    for (page, expected) in seen {
        check_eq(list(&t, page, every_origin.clone()).await?, expected, &format!("tools {page:?} sees"))?;
    }
    let unknown = raw_execute(&t, Page::Frame("e"), "parent", &shop, "no_such_tool").await?;
    check_eq(
        (unknown["success"].clone(), unknown["code"].clone()),
        (json!(false), json!("unknown_tool")),
        "an unknown tool",
    )?;
    let invisible = [
        (Page::Frame("e"), "for_listed"),
        (Page::Frame("e"), "for_widget"),
        (Page::Frame("p"), "for_widget"),
        (Page::Frame("w"), "for_pay"),
    ];
    for (page, name) in invisible {
        let answer = raw_execute(&t, page, "parent", &shop, name).await?;
        check_eq(answer, unknown.clone(), &format!("answer to {page:?} calling {name} (as to an unknown tool)"))?;
    }
    let outcome = call(&t, Page::Frame("p"), "for_pay", json!({})).await?;
    check_eq(outcome["ok"].clone(), json!(true), "pay calls for_pay")?;
    for (name, runs) in [("for_listed", 0), ("for_widget", 0), ("for_pay", 1)] {
        check_eq(t.counter(Site::Shop, name), runs, &format!("runs of {name}"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// The shop (top) embeds pay, which exposes one tool to the shop (its `exposeToolsTo`) and one to the widget
/// (`exposedTo`), and two siblings: the widget and evil. Each sees exactly its tool; evil sees nothing; a call of
/// the widget's tool by the shop gets the unknown-tool answer.
async fn an_iframe_shows_each_origin_exactly_its_tools(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[])).await?;
    embed(&t, Page::Top, "p", Site::Pay, &peer_path("bridge", &[Site::Shop])).await?;
    register(&t, Page::Frame("p"), echo_tool("for_shop"), json!({})).await?;
    register(&t, Page::Frame("p"), echo_tool("for_widget"), json!({ "exposedTo": ["widget"] })).await?;
    embed(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[])).await?;
    embed(&t, Page::Top, "e", Site::Evil, &peer_path("bridge", &[])).await?;
    let pay = t.origin(Site::Pay).to_owned();
    let from_pay = json!({ "fromOrigins": ["pay"] });
    let seen = [
        (Page::Top, listing(&[("for_shop", &pay)])),
        (Page::Frame("w"), listing(&[("for_widget", &pay)])),
        (Page::Frame("e"), listing(&[])),
    ];
    for (page, expected) in seen {
        check_eq(list(&t, page, from_pay.clone()).await?, expected, &format!("tools {page:?} sees"))?;
    }
    for (page, name) in [(Page::Top, "for_shop"), (Page::Frame("w"), "for_widget")] {
        check_eq(call(&t, page, name, json!({})).await?["ok"].clone(), json!(true), &format!("{page:?} calls {name}"))?;
    }
    let unknown = raw_execute(&t, Page::Top, "p", &pay, "no_such_tool").await?;
    let invisible = raw_execute(&t, Page::Top, "p", &pay, "for_widget").await?;
    check_eq(invisible, unknown, "answer to the shop calling for_widget (as to an unknown tool)")?;
    for (name, runs) in [("for_shop", 1), ("for_widget", 1)] {
        check_eq(t.counter(Site::Pay, name), runs, &format!("runs of {name}"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// What each thrown error becomes at the caller, in another origin.
fn error_table(dir: &Direction) -> Vec<(String, &'static str, Value)> {
    let rows = [
        (
            "rate_limited",
            r#"throw Object.assign(new Error("Search is rate limited"), { status: 429, retryAfter: 30 });"#,
            json!({ "name": "Error", "message": "Search is rate limited", "kind": "tool_error", "status": 429, "retryAfter": 30 }),
        ),
        (
            "string_retry",
            r#"throw Object.assign(new TypeError("slow down"), { status: 503, retryAfter: "30" });"#,
            json!({ "name": "TypeError", "message": "slow down", "kind": "tool_error", "status": 503, "retryAfter": "30" }),
        ),
        (
            "garbage_numbers",
            r#"throw Object.assign(new RangeError("out of range"), { status: 42, retryAfter: -1 });"#,
            json!({ "name": "RangeError", "message": "out of range", "kind": "tool_error" }),
        ),
        (
            "garbage_kinds",
            r#"throw Object.assign(new Error("kinds"), { status: "429", retryAfter: "soon" });"#,
            json!({ "name": "Error", "message": "kinds", "kind": "tool_error" }),
        ),
        (
            "garbage_fractions",
            r#"throw Object.assign(new Error("fractions"), { status: 429.5, retryAfter: Infinity });"#,
            json!({ "name": "Error", "message": "fractions", "kind": "tool_error" }),
        ),
        (
            "custom_name",
            r#"throw Object.assign(new Error("declined"), { name: "PaymentDeclined", status: 402 });"#,
            json!({ "name": "Error", "message": "declined", "kind": "tool_error", "status": 402 }),
        ),
        (
            "throws_string",
            r#"throw "just a string";"#,
            json!({ "name": "Error", "message": "just a string", "kind": "tool_error" }),
        ),
    ];
    rows.into_iter()
        .map(|(what, body, mut expected)| {
            expected["ok"] = json!(false);
            (dir.tool(what), body, expected)
        })
        .collect()
}

/// Errors cross origins with their message, standard name, valid status and retryAfter (a numeric string stays a
/// string); invalid fields are dropped and the message stays.
async fn errors_arrive_intact_in_both_directions(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let table = error_table(&dir);
        for (name, body, _) in &table {
            register(&t, dir.provider, json!({ "name": name, "body": body }), json!({})).await?;
        }
        list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;
        for (name, _, expected) in table {
            check_eq(call(&t, dir.consumer, &name, json!({})).await?, expected, &format!("outcome of {name}"))?;
            check_eq(t.counter(dir.provider_site, &name), 1, &format!("runs of {name}"))?;
        }
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Aborting the caller's signal rejects before the next task with an AbortError; the provider's tool, in another
/// origin, sees its own signal abort (it counts that on its server).
async fn abort_rejects_at_once_and_aborts_the_tools_signal(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let name = dir.tool("waits");
        let body = "await page.untilAborted(signal); return 'finished after the abort';";
        register(&t, dir.provider, json!({ "name": name, "body": body }), json!({})).await?;
        list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;
        js(&t, dir.consumer, "return e2e.start(args[0], args[0], {});", vec![json!(name)]).await?;
        wait_counter(&t, dir.provider_site, &name, 1).await?;
        let stopped = js(&t, dir.consumer, "return await e2e.abort(args[0]);", vec![json!(name)]).await?;
        check_eq(stopped["when"].clone(), json!("before the next task"), &format!("{name}: when the call rejected"))?;
        check_eq(stopped["outcome"]["name"].clone(), json!("AbortError"), &format!("{name}: the rejection's name"))?;
        wait_counter(&t, dir.provider_site, &format!("{name}.aborted"), 1).await?;
        check_eq(t.counter(dir.provider_site, &name), 1, &format!("{name}: runs"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// The consumer lists; the provider registers a tool, then unregisters it by aborting its signal: each time the
/// consumer's `toolchange` fires and its next list shows the change. A call of the tool object listed before the
/// unregistration rejects as native's does, with a `DOMException` `UnknownError` (kind `unknown_tool`).
async fn toolchange_reaches_the_consumer_in_both_directions(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let name = dir.tool("late");
        let from = json!({ "fromOrigins": [dir.provider_site.name()] });
        check_eq(list(&t, dir.consumer, from.clone()).await?, listing(&[]), &format!("{name}: the first list"))?;
        let before = js(&t, dir.consumer, "return e2e.toolchanges;", vec![]).await?;
        register(&t, dir.provider, echo_tool(&name), json!({})).await?;
        let after_register =
            wait_in(&t, dir.consumer, &format!("e2e.toolchanges > {before} && e2e.toolchanges")).await?;
        let expected = listing(&[(&name, t.origin(dir.provider_site))]);
        check_eq(list(&t, dir.consumer, from.clone()).await?, expected, &format!("{name}: listed after registering"))?;
        js(&t, dir.provider, "return e2e.unregister(args[0]);", vec![json!(name)]).await?;
        wait_in(&t, dir.consumer, &format!("e2e.toolchanges > {after_register}")).await?;
        let stale = call(&t, dir.consumer, &name, json!({})).await?;
        check_code(&stale, "unknown_tool", &format!("{name}: a call of the tool object listed before"))?;
        check_eq(stale["name"].clone(), json!("UnknownError"), &format!("{name}: the name of that refusal"))?;
        check_eq(list(&t, dir.consumer, from).await?, listing(&[]), &format!("{name}: listed after unregistering"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// A parent whose page never called `getTools()` hears `toolchange` when its same-origin frame registers a tool (as
/// with native WebMCP, and as the web-platform-tests expect), and its next `getTools()` (no `fromOrigins`) lists it,
/// not the tool a widget frame registered meanwhile. (The frame said it is here when it became ready; the parent's
/// bridge listed it then, which makes it one of the windows the frame tells of changes.)
async fn a_parent_hears_of_a_same_origin_frames_new_tool(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[])).await?;
    embed(&t, Page::Top, "s", Site::Shop, &peer_path("bridge", &[])).await?;
    embed(&t, Page::Top, "w", Site::Widget, &peer_path("bridge", &[Site::Shop])).await?;
    // The frames said they are here when they became ready, and the parent listed them then (a toolchange): let
    // that pass (it is debounced, 300 ms) before the tools come.
    let settle = "await new Promise((resolve) => setTimeout(resolve, 1500)); return e2e.toolchanges;";
    let before = js(&t, Page::Top, settle, vec![]).await?;
    register(&t, Page::Frame("w"), echo_tool("widget_late"), json!({})).await?;
    register(&t, Page::Frame("s"), echo_tool("sibling_late"), json!({})).await?;
    wait_in(&t, Page::Top, &format!("e2e.toolchanges > {before}")).await?;
    let listed = list(&t, Page::Top, json!({})).await?;
    check_eq(listed, listing(&[("sibling_late", t.origin(Site::Shop))]), "the shop's list without fromOrigins")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Records the types of the messages in every batch a page posts on a port (`window.__portTypes`): the spy log
/// gives a port post's JavaScript type only.
const RECORD_PORT_TYPES: &str = "window.__portTypes = []; const post = MessagePort.prototype.postMessage; \
    MessagePort.prototype.postMessage = function (data, ...rest) { \
      try { const text = typeof data === 'string' ? data : new TextDecoder().decode(data); \
        for (const m of JSON.parse(text)) window.__portTypes.push(m.type); } catch {} \
      return post.call(this, data, ...rest); }; return true;";

/// How many `WEBMCP_TOOLS_CHANGED` `page` posted to the shop: in batches on a port (it has one port, the shop's),
/// or by window at the shop's origin.
async fn notices_to_shop(t: &Ctx, page: Page) -> E2eResult<u64> {
    let count = "return window.__portTypes.filter((type) => type === 'WEBMCP_TOOLS_CHANGED').length;";
    let on_port = js(t, page, count, vec![]).await?.as_u64().unwrap_or(0);
    let shop = t.origin(Site::Shop);
    let log = spy_log(t, page).await?;
    let notice = |r: &&interpane_e2e::spy::PostRecord| {
        r.message_type == "WEBMCP_TOOLS_CHANGED" && r.target_origin.as_deref() == Some(shop)
    };
    Ok(on_port + log.iter().filter(notice).count() as u64)
}

/// A window hears of a change only when what it can list changed (issue 37; web-platform-tests'
/// exposedTo-cross-origin-child, "Iframe exposes tool to origin that is neither its own nor its parent's"): the
/// widget frame, whose tool the shop listed, registers a tool exposed to pay only and tells the shop nothing (it told
/// every window that saw any of its tools, so the shop listed again and fired `toolchange`); its next tool, exposed
/// to the shop, is announced, fires `toolchange` and is listed. The widget's notices to the shop travel in batches on
/// their private port (or by window at the shop's origin), which are counted where the widget posts them, so that
/// nothing waits for a notice that should not come.
async fn a_frames_tool_for_a_third_origin_is_no_change_for_its_parent(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    let (frame, widget) = (Page::Frame("w"), t.origin(Site::Widget));
    js(&t, frame, RECORD_PORT_TYPES, vec![]).await?;
    let from = json!({ "fromOrigins": ["widget"] });
    register(&t, frame, echo_tool("for_shop"), json!({ "exposedTo": ["shop"] })).await?;
    check_eq(list(&t, Page::Top, from.clone()).await?, listing(&[("for_shop", widget)]), "the shop's first list")?;
    // The widget answers the shop's WEBMCP_CONNECT on the port it was given: from then on, the port is theirs.
    wait_in(&t, frame, "window.__postMessageLog.some((r) => r.via === 'port')").await?;
    let before = notices_to_shop(&t, frame).await?;
    let changes = js(&t, Page::Top, "return e2e.toolchanges;", vec![]).await?;

    register(&t, frame, echo_tool("for_pay"), json!({ "exposedTo": ["pay"] })).await?;
    check_eq(
        notices_to_shop(&t, frame).await?,
        before,
        "the widget's notices to the shop after its tool for pay only",
    )?;

    register(&t, frame, echo_tool("for_shop_too"), json!({ "exposedTo": ["shop"] })).await?;
    check(notices_to_shop(&t, frame).await? > before, || {
        "the widget told the shop nothing of a tool for it".to_owned()
    })?;
    wait_in(&t, Page::Top, &format!("e2e.toolchanges > {changes}")).await?;
    let listed = list(&t, Page::Top, from).await?;
    check_eq(listed, listing(&[("for_shop", widget), ("for_shop_too", widget)]), "the shop's list at the end")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// The shop (top) calls a tool of the pay iframe that never finishes; returns once the tool runs.
async fn start_endless_call(t: &Ctx) -> E2eResult<()> {
    open_top(t, Site::Shop, &peer_path("bridge", &[])).await?;
    embed(t, Page::Top, "p", Site::Pay, &peer_path("bridge", &[Site::Shop])).await?;
    register(t, Page::Frame("p"), json!({ "name": "endless", "body": "return page.forever();" }), json!({})).await?;
    list(t, Page::Top, json!({ "fromOrigins": ["pay"] })).await?;
    js(t, Page::Top, "return e2e.start('endless', 'endless', {});", vec![]).await?;
    wait_counter(t, Site::Pay, "endless", 1).await
}

/// Waits until the shop's pending call settles; checks it was interrupted.
async fn check_interrupted(t: &Ctx) -> E2eResult<()> {
    let outcome = wait_in(t, Page::Top, "e2e.outcome('endless')").await?;
    check_code(&outcome, "interrupted", "the pending call")?;
    check_eq(outcome["name"].clone(), json!("UnknownError"), "the name of an interrupted call's error (native's)")?;
    check_bridge_never_posts_to_star(t).await.map(drop)
}

/// An iframe removed while its tool runs: the caller's promise rejects with code "interrupted".
async fn a_removed_provider_frame_interrupts_its_calls(t: Ctx) -> E2eResult<()> {
    start_endless_call(&t).await?;
    js(&t, Page::Top, "return e2e.removeFrame('p');", vec![]).await?;
    check_interrupted(&t).await
}

/// An iframe navigated to another origin while its tool runs: the caller's promise rejects with "interrupted".
async fn a_navigated_provider_frame_interrupts_its_calls(t: Ctx) -> E2eResult<()> {
    start_endless_call(&t).await?;
    let url = format!("{}{}", t.origin(Site::Evil), peer_path("bridge", &[Site::Shop]));
    let state = js(&t, Page::Top, "return await e2e.navigateFrame('p', args[0]);", vec![json!(url)]).await?;
    check_eq(state, json!("ready"), "the frame's new page")?;
    check_interrupted(&t).await
}

/// Switches the session to the opener or to the popup, waiting for the popup to exist. By `window.opener`, not by
/// position: the order of WebDriver's window handles is each engine's own (WebKitWebDriver's is not the order of
/// opening).
pub(crate) async fn switch_to_window(t: &Ctx, window: Window) -> E2eResult<()> {
    let client = t.session.client();
    let want_popup = window == Window::Popup;
    let started = std::time::Instant::now();
    while started.elapsed() < interpane_e2e::session::DEFAULT_WAIT {
        let handles = client.windows().await.map_err(|e| interpane_e2e::E2eError::Check(e.to_string()))?;
        for handle in handles {
            client.switch_to_window(handle).await.map_err(|e| interpane_e2e::E2eError::Check(e.to_string()))?;
            if t.session.execute("return window.opener !== null;", vec![]).await? == json!(want_popup) {
                return Ok(());
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Err(interpane_e2e::E2eError::Check(format!("no {window:?} window")))
}

/// The two windows of a popup case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    /// The case's own window, which opened the popup.
    Opener,
    /// The window it opened.
    Popup,
}

/// The shop opens the widget in a popup. The popup lists and calls the opener's tool; the opener lists the popup's
/// tools only when it names the popup (`windows`), and calls them; closing the popup interrupts a call in flight.
async fn an_opener_and_its_popup_call_each_other(t: Ctx) -> E2eResult<()> {
    let (shop, widget) = (t.origin(Site::Shop).to_owned(), t.origin(Site::Widget).to_owned());
    open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
    register(&t, Page::Top, echo_tool("opener_tool"), json!({})).await?;
    let url = format!("{widget}{}", peer_path("bridge", &[Site::Shop]));
    let state = js(&t, Page::Top, "return await e2e.openPopup(args[0]);", vec![json!(url)]).await?;
    check_eq(state, json!("ready"), "the popup's page")?;

    switch_to_window(&t, Window::Popup).await?;
    register(&t, Page::Top, echo_tool("popup_tool"), json!({})).await?;
    register(&t, Page::Top, json!({ "name": "popup_endless", "body": "return page.forever();" }), json!({})).await?;
    let popup_tools = [("opener_tool", shop.as_str()), ("popup_endless", &widget), ("popup_tool", &widget)];
    let listed = list(&t, Page::Top, json!({ "fromOrigins": ["shop"] })).await?;
    check_eq(listed, listing(&popup_tools), "what the popup lists")?;
    let outcome = call(&t, Page::Top, "opener_tool", json!({ "from": "popup" })).await?;
    check_eq(outcome["value"]["ranAt"].clone(), json!(shop), "the popup calls the opener's tool")?;
    check_bridge_never_posts_to_star(&t).await?;

    switch_to_window(&t, Window::Opener).await?;
    let listed = list(&t, Page::Top, json!({ "fromOrigins": ["widget"] })).await?;
    check_eq(listed, listing(&[("opener_tool", &shop)]), "what the opener lists without naming the popup")?;
    let listed = list(&t, Page::Top, json!({ "fromOrigins": ["widget"], "windows": ["popup"] })).await?;
    check_eq(listed, listing(&popup_tools), "what the opener lists")?;
    let outcome = call(&t, Page::Top, "popup_tool", json!({ "from": "opener" })).await?;
    check_eq(outcome["value"]["ranAt"].clone(), json!(widget), "the opener calls the popup's tool")?;
    js(&t, Page::Top, "return e2e.start('endless', 'popup_endless', {});", vec![]).await?;
    wait_counter(&t, Site::Widget, "popup_endless", 1).await?;
    js(&t, Page::Top, "return e2e.closePopup();", vec![]).await?;
    let outcome = wait_in(&t, Page::Top, "e2e.outcome('endless')").await?;
    check_code(&outcome, "interrupted", "the call in flight when the popup closed")?;
    for (site, name) in [(Site::Shop, "opener_tool"), (Site::Widget, "popup_tool")] {
        check_eq(t.counter(site, name), 1, &format!("runs of {name}"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Results that cannot be posted as they are arrive made safe; a result over the cap arrives as a preview.
async fn results_are_made_safe_and_capped_in_both_directions(t: Ctx) -> E2eResult<()> {
    let messy = r#"const cycle = { name: "loop" }; cycle.self = cycle;
        return { when: new Date(0), nothing: undefined, list: [undefined, 1], fn() {}, sym: Symbol("s"),
                 dialog: document.createElement("dialog"), big: 12345678901234567890n, cycle };"#;
    let safe = json!({ "when": "1970-01-01T00:00:00.000Z", "list": [null, 1], "dialog": "[dialog]",
        "big": "12345678901234567890", "cycle": { "name": "loop", "self": "[circular]" } });
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let tools = [
            (dir.tool("messy"), messy.to_owned()),
            (dir.tool("undefined"), "return undefined;".to_owned()),
            (dir.tool("huge"), r#"return { content: [{ type: "text", text: "x".repeat(40000) }] };"#.to_owned()),
        ];
        for (name, body) in &tools {
            register(&t, dir.provider, json!({ "name": name, "body": body }), json!({})).await?;
        }
        list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;
        let outcome = call(&t, dir.consumer, &tools[0].0, json!({})).await?;
        check_eq(outcome, json!({ "ok": true, "value": safe }), "a messy result")?;
        let outcome = call(&t, dir.consumer, &tools[1].0, json!({})).await?;
        check_eq(outcome, json!({ "ok": true, "value": null }), "undefined")?;
        let outcome = call(&t, dir.consumer, &tools[2].0, json!({})).await?;
        check_eq(outcome["value"]["truncated"].clone(), json!(true), "a result over the cap is truncated")?;
        let preview = outcome["value"]["preview"].as_str().unwrap_or_default();
        check(preview.starts_with(r#"{"content":[{"type":"text","text":"xxxx"#), || {
            format!("the preview starts with the result's JSON: {}", preview.chars().take(60).collect::<String>())
        })?;
        check((1000..=30_000).contains(&preview.chars().count()), || {
            format!("the preview holds 1000 to 30000 characters, not {}", preview.chars().count())
        })?;
        let keys: Vec<&String> = outcome["value"].as_object().map(|o| o.keys().collect()).unwrap_or_default();
        check_eq(keys, vec![&"preview".to_owned(), &"truncated".to_owned()], "the truncated result's fields")?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Records of `log` from `from` on.
fn since(log: &[interpane_e2e::spy::PostRecord], from: usize) -> Vec<interpane_e2e::spy::PostRecord> {
    log.get(from..).map(<[_]>::to_vec).unwrap_or_default()
}

/// After the first list, two bridges use their private port: a later list and call post no window message of
/// either bridge (the spy logs port posts only, in both frames), and still work.
async fn bridges_talk_on_their_private_port_after_the_first_list(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    let dir = pages::FRAME_PROVIDES;
    let name = dir.tool("ping");
    register(&t, dir.provider, echo_tool(&name), json!({})).await?;
    // Long enough for a loaded machine: the port is set up when the frame's answer comes in time (it came after the
    // default 500 ms once, in a CI run with other work on both cores, and the case then waited for a port in vain).
    // The listing ends when the frame answers, so a quick answer does not wait.
    list(&t, dir.consumer, json!({ "fromOrigins": ["widget"], "timeoutMs": 5000 })).await?;
    // The provider answers WEBMCP_CONNECT on the port it was given: from then on, the pair has its port.
    wait_in(&t, dir.provider, "window.__postMessageLog.some((r) => r.via === 'port')").await?;
    check_eq(call(&t, dir.consumer, &name, json!({ "n": 1 })).await?["ok"].clone(), json!(true), "the first call")?;
    let consumer_mark = spy_log(&t, dir.consumer).await?.len();
    let provider_mark = spy_log(&t, dir.provider).await?.len();

    let listed = list(&t, dir.consumer, json!({ "fromOrigins": ["widget"] })).await?;
    check_eq(listed, listing(&[(&name, t.origin(Site::Widget))]), "the second list")?;
    let outcome = call(&t, dir.consumer, &name, json!({ "n": 2 })).await?;
    check_eq(outcome["value"]["echoed"].clone(), json!({ "n": 2 }), "the second call")?;
    for (page, mark) in [(dir.consumer, consumer_mark), (dir.provider, provider_mark)] {
        let posts = since(&spy_log(&t, page).await?, mark);
        let by_window: Vec<_> = posts.iter().filter(|r| r.via != "port").collect();
        check(by_window.is_empty(), || {
            format!("{page:?} posted window messages after the port was up: {by_window:?}")
        })?;
        check(posts.len() >= 2, || format!("{page:?} posted {} port messages for a list and a call", posts.len()))?;
    }
    check_eq(t.counter(Site::Widget, &name), 2, "runs")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Arguments that break the tool's schema are refused with code "invalid_args" and the tool never runs; valid
/// ones run it.
async fn invalid_arguments_are_refused_before_the_tool_runs(t: Ctx) -> E2eResult<()> {
    let schema = json!({ "type": "object", "properties": { "size": { "enum": ["small", "medium", "large"] } },
        "required": ["size"] });
    open_pair(&t, "bridge", "bridge").await?;
    for dir in BOTH_DIRECTIONS {
        let name = dir.tool("sized");
        let tool = json!({ "name": name, "inputSchema": schema, "body": "return args.size;" });
        register(&t, dir.provider, tool, json!({})).await?;
        list(&t, dir.consumer, json!({ "fromOrigins": [dir.provider_site.name()] })).await?;
        for args in [json!({ "size": "huge" }), json!({}), json!({ "size": 3 })] {
            let outcome = call(&t, dir.consumer, &name, args.clone()).await?;
            check_code(&outcome, "invalid_args", &format!("{name} with {args}"))?;
            let message = outcome["message"].as_str().unwrap_or_default();
            check(message.contains("size"), || format!("{name} with {args}: the message names the field: {message}"))?;
        }
        check_eq(t.counter(dir.provider_site, &name), 0, &format!("{name}: runs with invalid arguments"))?;
        let outcome = call(&t, dir.consumer, &name, json!({ "size": "large" })).await?;
        check_eq(outcome, json!({ "ok": true, "value": "large" }), &format!("{name} with valid arguments"))?;
        check_eq(t.counter(dir.provider_site, &name), 1, &format!("{name}: runs"))?;
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}
