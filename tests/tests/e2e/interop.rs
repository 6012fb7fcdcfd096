//! Interoperability with a plain WebMCP peer of another origin (needs the bridge): a page running
//! `/common/plain-webmcp-peer.js`, which talks like the GoogleChromeLabs webmcp-tools polyfill (requests and
//! replies to '*', `inputObject`, failures as `{ success: false, error }` only, no extensions), and a page running
//! the bridge list and call each other's tools in both directions. What they observe is in docs/protocol.md,
//! "What interoperates with the WebMCP polyfill".

use interpane_demo_sites::Site;
use interpane_e2e::spy::PostRecord;
use interpane_e2e::{Case, Ctx, E2eResult, case, check, check_eq};
use serde_json::{Value, json};

use crate::cross_origin::pages::{
    FRAME_PROVIDES, HOST_PROVIDES, Page, call, check_bridge_never_posts_to_star, check_code, embed, js, list, listing,
    open_pair, open_top, peer_path, register, spy_log, wait_counter, wait_in,
};

pub fn cases() -> Vec<Case> {
    vec![
        case!(
            "interop::a_bridge_host_and_a_plain_frame_use_each_others_tools",
            a_bridge_host_and_a_plain_frame_use_each_others_tools
        ),
        case!(
            "interop::a_plain_host_and_a_bridge_frame_use_each_others_tools",
            a_plain_host_and_a_bridge_frame_use_each_others_tools
        ),
        case!(
            "interop::a_claimed_origin_in_a_plain_tool_list_changes_nothing",
            a_claimed_origin_in_a_plain_tool_list_changes_nothing
        ),
        case!(
            "interop::a_removed_plain_provider_frame_interrupts_its_calls",
            a_removed_plain_provider_frame_interrupts_its_calls
        ),
        case!(
            "interop::a_navigated_plain_provider_frame_interrupts_its_calls",
            a_navigated_plain_provider_frame_interrupts_its_calls
        ),
    ]
}

/// The extensions of docs/protocol.md that a bridge sends only to a peer that said `"bridge": 1`.
const BRIDGE_ONLY: [&str; 5] =
    ["WEBMCP_CANCEL_TOOL", "WEBMCP_CALL_STATUS_REQUEST", "WEBMCP_CALL_ACK", "WEBMCP_CONNECT", "WEBMCP_GOING_AWAY"];

fn echo_tool(name: &str) -> Value {
    json!({ "name": name, "body": "return { echoed: args, ranAt: self.origin };" })
}

fn rate_limited_tool(name: &str) -> Value {
    let body = r#"throw Object.assign(new Error("Search is rate limited"), { status: 429, retryAfter: 30 });"#;
    json!({ "name": name, "body": body })
}

/// A bridge provider answers a plain consumer: it lists (the tools' `origin` field is the bridge's own), reads
/// `inputObject`, and its errors reach the plain consumer as a message (the plain peer keeps nothing else).
async fn plain_consumer_uses_bridge_tools(t: &Ctx, provider: Page, site: Site, consumer: Page) -> E2eResult<()> {
    let origin = t.origin(site).to_owned();
    register(t, provider, echo_tool("bridge_echo"), json!({})).await?;
    register(t, provider, rate_limited_tool("bridge_rate_limited"), json!({})).await?;
    let listed = list(t, consumer, json!({ "fromOrigins": [site.name()] })).await?;
    let expected = [("bridge_echo", origin.as_str()), ("bridge_rate_limited", origin.as_str())];
    check(listed.as_array().is_some_and(|l| expected.iter().all(|e| l.contains(&json!([e.0, e.1])))), || {
        format!("the plain consumer lists the bridge's tools under {origin}: {listed}")
    })?;
    let outcome = call(t, consumer, "bridge_echo", json!({ "sku": "margherita" })).await?;
    let expected = json!({ "ok": true, "value": { "echoed": { "sku": "margherita" }, "ranAt": origin } });
    check_eq(outcome, expected, "the plain consumer calls the bridge's tool (sent as inputObject)")?;
    let outcome = call(t, consumer, "bridge_rate_limited", json!({})).await?;
    let expected = json!({ "ok": false, "name": "Error", "message": "Search is rate limited" });
    check_eq(outcome, expected, "the bridge's error at the plain consumer")?;
    for name in ["bridge_echo", "bridge_rate_limited"] {
        check_eq(t.counter(site, name), 1, &format!("runs of {name}"))?;
    }
    Ok(())
}

/// A bridge consumer uses a plain provider: lists, calls (sending `args`), gets the error message with code
/// `tool_error` and nothing the plain peer did not send, and can stop a call (which rejects at once; the plain
/// peer is told nothing). Every request is a window message addressed to the plain page's origin; no port.
async fn bridge_consumer_uses_plain_tools(t: &Ctx, provider: Page, site: Site, consumer: Page) -> E2eResult<()> {
    let origin = t.origin(site).to_owned();
    register(t, provider, echo_tool("plain_echo"), json!({})).await?;
    let fails = r#"throw Object.assign(new Error("declined"), { status: 402 });"#;
    register(t, provider, json!({ "name": "plain_fails", "body": fails }), json!({})).await?;
    register(t, provider, json!({ "name": "plain_waits", "body": "return page.forever();" }), json!({})).await?;
    let listed = list(t, consumer, json!({ "fromOrigins": [site.name()] })).await?;
    let plain: Vec<&Value> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e[0].as_str().is_some_and(|n| n.starts_with("plain_")))
        .collect();
    let expected = listing(&[("plain_echo", &origin), ("plain_fails", &origin), ("plain_waits", &origin)]);
    check_eq(json!(plain), expected, "the plain peer's tools, filed under its origin")?;
    let mark = spy_log(t, consumer).await?.len();

    for n in 1..=2 {
        let outcome = call(t, consumer, "plain_echo", json!({ "n": n })).await?;
        let expected = json!({ "ok": true, "value": { "echoed": { "n": n }, "ranAt": origin } });
        check_eq(outcome, expected, &format!("call {n} of the plain peer's tool"))?;
    }
    let outcome = call(t, consumer, "plain_fails", json!({})).await?;
    let expected = json!({ "ok": false, "name": "Error", "message": "declined", "kind": "tool_error" });
    check_eq(outcome, expected, "the plain peer's error at the bridge")?;
    js(t, consumer, "return e2e.start('waits', 'plain_waits', {});", vec![]).await?;
    wait_counter(t, site, "plain_waits", 1).await?;
    let stopped = js(t, consumer, "return await e2e.abort('waits');", vec![]).await?;
    check_eq(stopped["when"].clone(), json!("before the next task"), "when the stopped call rejected")?;
    check_eq(stopped["outcome"]["name"].clone(), json!("AbortError"), "the stopped call's rejection")?;

    let posts = spy_log(t, consumer).await?.split_off(mark);
    let executes = |r: &&PostRecord| r.message_type == "WEBMCP_EXECUTE_TOOL_REQUEST";
    let by_bridge: Vec<&PostRecord> = posts.iter().filter(|r| r.via == "bridge").filter(executes).collect();
    check(
        by_bridge.len() == 4 && by_bridge.iter().all(|r| r.target_origin.as_deref() == Some(origin.as_str())),
        || format!("four execute requests, each a window message to {origin}: {posts:?}"),
    )?;
    let unexpected: Vec<&PostRecord> =
        posts.iter().filter(|r| r.via == "port" || BRIDGE_ONLY.contains(&r.message_type.as_str())).collect();
    check(unexpected.is_empty(), || format!("port traffic or extensions toward the plain peer: {unexpected:?}"))?;

    let received = js(t, provider, "return e2e.received();", vec![]).await?;
    let received = received.as_array().cloned().unwrap_or_default();
    let extensions: Vec<&Value> =
        received.iter().filter(|r| BRIDGE_ONLY.iter().any(|kind| r["type"] == json!(kind))).collect();
    check(extensions.is_empty(), || format!("the plain peer received bridge extensions: {extensions:?}"))?;
    let requests: Vec<&Value> = received.iter().filter(|r| r["type"] == json!("WEBMCP_EXECUTE_TOOL_REQUEST")).collect();
    let consumer_origin = t.origin(if site == Site::Shop { Site::Widget } else { Site::Shop });
    check(
        requests.len() == 4
            && requests.iter().all(|r| {
                r["origin"] == json!(consumer_origin)
                    && r["hasArgs"] == json!(true)
                    && r["hasInputObject"] == json!(false)
            }),
        || format!("the plain peer received four execute requests with args from {consumer_origin}: {requests:?}"),
    )?;
    for (name, runs) in [("plain_echo", 2), ("plain_fails", 1), ("plain_waits", 1), ("plain_waits.aborted", 0)] {
        check_eq(t.counter(site, name), runs, &format!("runs of {name}"))?;
    }
    Ok(())
}

/// The shop runs the bridge, the widget iframe the plain peer: each lists and calls the other's tools.
async fn a_bridge_host_and_a_plain_frame_use_each_others_tools(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "plain").await?;
    plain_consumer_uses_bridge_tools(&t, HOST_PROVIDES.provider, Site::Shop, HOST_PROVIDES.consumer).await?;
    bridge_consumer_uses_plain_tools(&t, FRAME_PROVIDES.provider, Site::Widget, FRAME_PROVIDES.consumer).await?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// The shop runs the plain peer, the widget iframe the bridge: each lists and calls the other's tools. A plain
/// consumer of another origin (evil, a sibling) gets nothing from the bridge.
async fn a_plain_host_and_a_bridge_frame_use_each_others_tools(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "plain", "bridge").await?;
    bridge_consumer_uses_plain_tools(&t, HOST_PROVIDES.provider, Site::Shop, HOST_PROVIDES.consumer).await?;
    plain_consumer_uses_bridge_tools(&t, FRAME_PROVIDES.provider, Site::Widget, FRAME_PROVIDES.consumer).await?;
    embed(&t, Page::Top, "e", Site::Evil, &peer_path("plain", &[])).await?;
    let listed = list(&t, Page::Frame("e"), json!({ "fromOrigins": ["widget"] })).await?;
    check_eq(listed, listing(&[]), "what a plain consumer of the evil origin gets from the bridge")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// A plain provider's tool list claims the tools come from pay. The bridge consumer files them under the origin
/// of the reply all the same: asking for pay's tools returns none of them; asking for the real origin does.
async fn a_claimed_origin_in_a_plain_tool_list_changes_nothing(t: Ctx) -> E2eResult<()> {
    let pay = t.origin(Site::Pay).to_owned();
    let cases = [
        // The plain peer in the widget iframe lies to the bridge at the top (the shop).
        (Site::Shop, "bridge", Site::Widget, "plain&claimOrigin=pay", Page::Frame("w"), Page::Top, "w"),
        // The plain peer at the top (the shop) lies to the bridge in the widget iframe.
        (Site::Shop, "plain&claimOrigin=pay", Site::Widget, "bridge", Page::Top, Page::Frame("w"), "parent"),
    ];
    for (top_site, top_kind, frame_site, frame_kind, liar, bridge, liar_window) in cases {
        let liar_site = if liar == Page::Top { top_site } else { frame_site };
        let liar_origin = t.origin(liar_site).to_owned();
        open_top(&t, top_site, &peer_path(top_kind, &[frame_site])).await?;
        embed(&t, Page::Top, "w", frame_site, &peer_path(frame_kind, &[top_site])).await?;
        register(&t, liar, echo_tool("claimed"), json!({})).await?;
        let request = json!({ "type": "WEBMCP_GET_TOOLS_REQUEST", "requestId": "raw-list" });
        let reply = js(
            &t,
            bridge,
            "return await e2e.raw(args[0], args[1], args[2]);",
            vec![json!(liar_window), request, json!(liar_origin)],
        )
        .await?;
        check_eq(reply["data"]["tools"][0]["origin"].clone(), json!(pay), "the origin the plain peer claims")?;
        check_eq(list(&t, bridge, json!({ "fromOrigins": ["pay"] })).await?, listing(&[]), "tools listed as pay's")?;
        let listed = list(&t, bridge, json!({ "fromOrigins": [liar_site.name()] })).await?;
        check_eq(listed, listing(&[("claimed", &liar_origin)]), "tools listed under the real origin")?;
        let outcome = call(&t, bridge, "claimed", json!({})).await?;
        check_eq(outcome["value"]["ranAt"].clone(), json!(liar_origin), "where the claimed tool ran")?;
        check_bridge_never_posts_to_star(&t).await?;
    }
    check_eq(t.counter(Site::Shop, "claimed") + t.counter(Site::Widget, "claimed"), 2, "runs of the claimed tools")
}

/// The shop (a bridge, at the top) calls a tool of a plain peer in the pay iframe that never finishes; returns
/// once the tool runs.
async fn start_endless_plain_call(t: &Ctx) -> E2eResult<()> {
    open_top(t, Site::Shop, &peer_path("bridge", &[])).await?;
    embed(t, Page::Top, "p", Site::Pay, &peer_path("plain", &[])).await?;
    register(t, Page::Frame("p"), json!({ "name": "endless", "body": "return page.forever();" }), json!({})).await?;
    list(t, Page::Top, json!({ "fromOrigins": ["pay"] })).await?;
    js(t, Page::Top, "return e2e.start('endless', 'endless', {});", vec![]).await?;
    wait_counter(t, Site::Pay, "endless", 1).await
}

/// Waits until the shop's pending call settles; checks it was interrupted.
async fn check_plain_call_interrupted(t: &Ctx) -> E2eResult<()> {
    let outcome = wait_in(t, Page::Top, "e2e.outcome('endless')").await?;
    check_code(&outcome, "interrupted", "the pending call")?;
    check_bridge_never_posts_to_star(t).await.map(drop)
}

/// A plain provider says nothing when it goes away; its removed iframe still interrupts the bridge's call.
async fn a_removed_plain_provider_frame_interrupts_its_calls(t: Ctx) -> E2eResult<()> {
    start_endless_plain_call(&t).await?;
    js(&t, Page::Top, "return e2e.removeFrame('p');", vec![]).await?;
    check_plain_call_interrupted(&t).await
}

/// A plain provider's iframe navigated to another origin while its tool runs: the bridge's call must not hang
/// (issue 4: a provider that goes away, "iframe removed, navigated, closed", interrupts its calls).
///
/// Regression test: a plain provider sends no `WEBMCP_GOING_AWAY`, and a navigated iframe's WindowProxy is not
/// `closed`, so the call stayed pending forever; the bridge now hears the frame element's `load`.
async fn a_navigated_plain_provider_frame_interrupts_its_calls(t: Ctx) -> E2eResult<()> {
    start_endless_plain_call(&t).await?;
    let url = format!("{}{}", t.origin(Site::Evil), peer_path("plain", &[]));
    let state = js(&t, Page::Top, "return await e2e.navigateFrame('p', args[0]);", vec![json!(url)]).await?;
    check_eq(state, json!("ready"), "the frame's new page")?;
    check_plain_call_interrupted(&t).await
}
