//! Regression cases of issue 13: two bridges that list and call each other at once (their port handshakes cross),
//! a refusal that went to another window of the caller's origin, and tool-change notices that reached origins
//! that see no tool. Each case is named after what broke.

use interpane_demo_sites::Site;
use interpane_e2e::{Ctx, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::pages::{
    Page, check_bridge_never_posts_to_star, check_code, embed, js, list, open_pair, open_top, peer_path, register,
    wait_in,
};

/// Fresh page pairs in the crossing case: the issue measured a hang in 3 of 10 runs.
const CROSSING_REPETITIONS: usize = 20;
/// Calls each side makes in one repetition.
const CALLS_EACH_WAY: usize = 3;
/// A call that takes longer than this counts as hung (it answers in milliseconds).
const HANG_MS: u64 = 5000;

/// The body both pages run when told to go: list the other page's tools, then call its tool a few times, each
/// call with a time limit so that a hung call shows as a `timeout` outcome.
const LIST_AND_CALL: &str = "async (e2e, from, tool, calls, hangMs) => { \
    const listed = await e2e.list({ fromOrigins: [from] }); const outcomes = []; \
    for (let i = 0; i < calls; i += 1) outcomes.push(await e2e.call(tool, { n: i }, { timeoutMs: hangMs })); \
    return { listed, outcomes }; }";

/// Two bridges that list and call each other as soon as both are told to go (the host tells its iframe, then
/// starts at once): their lists resolve within milliseconds of each other, so both run the private-port
/// handshake at the same time. Every call of both sides must complete, in every repetition. Before the fix, the
/// crossing handshakes replaced each other's port and closed it: later calls hung.
pub async fn two_bridges_that_list_and_call_each_other_at_once_never_hang(t: Ctx) -> E2eResult<()> {
    for rep in 0..CROSSING_REPETITIONS {
        open_pair(&t, "bridge", "bridge").await?;
        register(&t, Page::Top, json!({ "name": "add_to_cart", "body": "return { added: args.n };" }), json!({}))
            .await?;
        register(&t, Page::Frame("w"), json!({ "name": "pay_invoice", "body": "return { paid: args.n };" }), json!({}))
            .await?;
        let arm = format!(
            "window.__crossing = null; const run = {LIST_AND_CALL}; addEventListener('message', (event) => {{ \
               if (event.source !== parent || event.data?.type !== 'e2e-go') return; \
               run(e2e, 'shop', 'add_to_cart', args[0], args[1]).then((r) => (window.__crossing = r), \
                 (error) => (window.__crossing = {{ error: String(error) }})); }}); return true;"
        );
        js(&t, Page::Frame("w"), &arm, vec![json!(CALLS_EACH_WAY), json!(HANG_MS)]).await?;
        let go = format!(
            "const run = {LIST_AND_CALL}; document.getElementById('w').contentWindow.postMessage({{ type: 'e2e-go' }}, \
             args[2]); return await run(e2e, 'widget', 'pay_invoice', args[0], args[1]);"
        );
        let host =
            js(&t, Page::Top, &go, vec![json!(CALLS_EACH_WAY), json!(HANG_MS), json!(t.origin(Site::Widget))]).await?;
        let frame = wait_in(&t, Page::Frame("w"), "window.__crossing").await?;
        for (side, result, tool, key) in
            [("host", &host, "pay_invoice", "paid"), ("iframe", &frame, "add_to_cart", "added")]
        {
            let outcomes = result["outcomes"].as_array().cloned().unwrap_or_default();
            let expected: Vec<Value> =
                (0..CALLS_EACH_WAY).map(|n| json!({ "ok": true, "value": { key: n } })).collect();
            check_eq(
                Value::Array(outcomes),
                Value::Array(expected),
                &format!("repetition {rep}: the {side}'s calls of {tool}"),
            )?;
        }
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// Opens the shop (a bridge that exposes its tools to the widget) with a widget iframe that runs no library, and
/// makes the iframe a scripted bridge of raw messages: it notes the type of every message from the shop in
/// `window.__b.fromHost`, answers a tool list with its tool `frame_echo` as a bridge, runs `on_connect` for a
/// `WEBMCP_CONNECT` and `on_other` for anything else (scripts with `event`, `d` = its data, `b` = `window.__b`,
/// `shop` = the shop's origin and `batch(envelopes)` in scope).
async fn open_scripted_bridge_frame(t: &Ctx, on_connect: &str, on_other: &str) -> E2eResult<()> {
    open_top(t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
    embed(t, Page::Top, "w", Site::Widget, &peer_path("none", &[])).await?;
    let script = format!(
        "const shop = args[0]; const b = {{ fromHost: [], onOurPort: [] }}; window.__b = b; \
         const batch = (envelopes) => JSON.stringify(envelopes); \
         addEventListener('message', (event) => {{ \
           if (event.source !== parent || event.origin !== shop) return; const d = event.data; \
           b.fromHost.push(d?.type); \
           if (d?.type === 'WEBMCP_GET_TOOLS_REQUEST') {{ \
             parent.postMessage({{ type: 'WEBMCP_GET_TOOLS_RESPONSE', requestId: d.requestId, bridge: 1, \
               tools: [{{ name: 'frame_echo', description: 'echo', inputSchema: {{ type: 'object' }} }}] }}, shop); \
           }} else if (d?.type === 'WEBMCP_CONNECT') {{ {on_connect} }} else {{ {on_other} }} }}); return true;"
    );
    js(t, Page::Frame("w"), &script, vec![json!(t.origin(Site::Shop))]).await.map(drop)
}

/// A scripted bridge in the iframe (no library: raw messages) forces the crossing in the order that broke: it
/// answers the host's `WEBMCP_CONNECT` only after offering its own port, so the host receives the iframe's
/// `WEBMCP_CONNECT` first and its own `WEBMCP_CONNECTED` second. Afterwards a call must work each way, each on its
/// own port: the host's call on the port the host set up, the iframe's call on the port the iframe set up.
pub async fn crossing_port_handshakes_leave_a_working_port_each_way(t: Ctx) -> E2eResult<()> {
    let on_connect = "const theirs = event.ports[0]; \
        theirs.onmessage = (e) => { for (const m of JSON.parse(e.data)) { \
          if (m.type === 'WEBMCP_EXECUTE_TOOL_REQUEST') theirs.postMessage(batch([{ \
            type: 'WEBMCP_EXECUTE_TOOL_RESPONSE', requestId: m.requestId, success: true, \
            result: { echoedByFrame: m.args } }])); } }; \
        const channel = new MessageChannel(); b.ourPort = channel.port1; \
        channel.port1.onmessage = (e) => { for (const m of JSON.parse(e.data)) b.onOurPort.push(m); }; \
        parent.postMessage({ type: 'WEBMCP_CONNECT', requestId: 'p_frame_1' }, shop, [channel.port2]); \
        setTimeout(() => theirs.postMessage(batch([{ type: 'WEBMCP_CONNECTED', requestId: d.requestId }])), 100);";
    open_scripted_bridge_frame(&t, on_connect, "").await?;
    register(&t, Page::Top, json!({ "name": "host_echo", "body": "return { echoed: args };" }), json!({})).await?;
    let listed = list(&t, Page::Top, json!({ "fromOrigins": ["widget"] })).await?;
    check(listed.to_string().contains("frame_echo"), || {
        format!("the host lists the scripted iframe's tool: {listed}")
    })?;
    // Both handshakes done: the iframe got CONNECTED on its own port, the host on its.
    let connected = wait_in(
        &t,
        Page::Frame("w"),
        "window.__b.onOurPort.some((m) => m.type === 'WEBMCP_CONNECTED' && m.requestId === 'p_frame_1') && \
         new Promise((resolve) => setTimeout(() => resolve(true), 300))",
    )
    .await?;
    check_eq(connected, json!(true), "the host accepted the iframe's port")?;
    // The host calls the iframe's tool: on the host's port, answered there.
    let host_call =
        js(&t, Page::Top, "return await e2e.call('frame_echo', { a: 1 }, { timeoutMs: 3000 });", vec![]).await?;
    check_eq(host_call, json!({ "ok": true, "value": { "echoedByFrame": { "a": 1 } } }), "the host's call")?;
    // The iframe calls the host's tool on the iframe's port: the answer comes back on it.
    let frame_call = js(
        &t,
        Page::Frame("w"),
        "window.__b.ourPort.postMessage(JSON.stringify([{ type: 'WEBMCP_EXECUTE_TOOL_REQUEST', \
           requestId: 'c_frame_1', name: 'host_echo', args: { b: 2 } }])); \
         const deadline = Date.now() + 3000; while (Date.now() < deadline) { \
           const found = window.__b.onOurPort.find((m) => m.requestId === 'c_frame_1'); \
           if (found) return found; await new Promise((resolve) => setTimeout(resolve, 20)); } \
         return { hung: true, onOurPort: window.__b.onOurPort.map((m) => m.type) };",
        vec![],
    )
    .await?;
    check_eq(
        json!({ "success": frame_call["success"], "result": frame_call["result"] }),
        json!({ "success": true, "result": { "echoed": { "b": 2 } } }),
        &format!("the iframe's call on its own port (got {frame_call})"),
    )
}

/// Arguments that fail a tool's `inputSchema`, sent by one of two windows of the allowed origin, or by a frame of
/// the host's own origin: the `invalid_args` refusal reaches that window, not another one of its origin (nor the
/// host itself). Before the fix, it went to the first window of the origin and the caller waited forever.
pub async fn an_invalid_args_refusal_goes_to_the_window_that_asked(t: Ctx) -> E2eResult<()> {
    open_top(&t, Site::Shop, &peer_path("bridge", &[Site::Widget])).await?;
    let frames = [("w1", Site::Widget), ("w2", Site::Widget), ("s", Site::Shop)];
    for (id, site) in frames {
        embed(&t, Page::Top, id, site, &peer_path("bridge", &[])).await?;
    }
    let schema = json!({ "type": "object", "properties": { "size": { "enum": ["small", "large"] } },
        "required": ["size"] });
    register(&t, Page::Top, json!({ "name": "sized", "inputSchema": schema, "body": "return args.size;" }), json!({}))
        .await?;
    for (id, site) in frames {
        list(&t, Page::Frame(id), json!({ "fromOrigins": [site.name(), "shop"] })).await?;
    }
    // The last window of each origin asks first (the first window of the origin is where a misrouted answer went).
    for (id, _) in [frames[1], frames[2], frames[0]] {
        let outcome = js(
            &t,
            Page::Frame(id),
            "return await e2e.call('sized', { size: 'huge' }, { origin: 'shop', timeoutMs: 3000 });",
            vec![],
        )
        .await?;
        check_code(&outcome, "invalid_args", &format!("the call with invalid arguments from #{id}"))?;
    }
    check_eq(t.counter(Site::Shop, "sized"), 0, "runs of the tool with invalid arguments")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// A host with an allowed origin (the widget) and one that sees nothing (evil): both list the host's tools, then
/// the host adds and removes a tool only the widget may see. The widget hears of both changes; the evil frame
/// hears of none (it would learn when tools hidden from it come and go).
pub async fn tool_change_notices_skip_origins_that_see_no_tool(t: Ctx) -> E2eResult<()> {
    open_pair(&t, "bridge", "bridge").await?;
    embed(&t, Page::Top, "e", Site::Evil, &peer_path("bridge", &[])).await?;
    list(&t, Page::Frame("w"), json!({ "fromOrigins": ["shop"] })).await?;
    let evil_list = list(&t, Page::Frame("e"), json!({ "fromOrigins": ["shop"] })).await?;
    check_eq(evil_list, json!([]), "what the evil frame lists")?;
    let before = js(&t, Page::Frame("e"), "return e2e.toolchanges;", vec![]).await?;
    let widget_before = js(&t, Page::Frame("w"), "return e2e.toolchanges;", vec![]).await?;
    register(&t, Page::Top, json!({ "name": "secret_tool" }), json!({ "exposedTo": ["widget"] })).await?;
    let widget_after = widget_before.as_u64().unwrap_or(0) + 1;
    wait_in(&t, Page::Frame("w"), &format!("e2e.toolchanges >= {widget_after}")).await?;
    js(&t, Page::Top, "return e2e.unregister('secret_tool');", vec![]).await?;
    wait_in(&t, Page::Frame("w"), &format!("e2e.toolchanges >= {}", widget_after + 1)).await?;
    // Time for a notice to the evil frame to arrive and be acted on (the relist waits 300 ms).
    js(&t, Page::Top, "await new Promise((resolve) => setTimeout(resolve, 1000)); return true;", vec![]).await?;
    let after = js(&t, Page::Frame("e"), "return e2e.toolchanges;", vec![]).await?;
    check_eq(after, before, "toolchange events in the evil frame while tools hidden from it came and went")?;
    check_bridge_never_posts_to_star(&t).await.map(drop)
}

/// A provider's port closes while a call waits on it (a scripted bridge in the iframe closes the port instead of
/// answering): the host's call does not hang. The host drops the port, asks by window how the call ended, and
/// settles it with the answer the iframe gives by window.
pub async fn a_call_waiting_on_a_port_that_closes_is_settled(t: Ctx) -> E2eResult<()> {
    let on_connect = "const theirs = event.ports[0]; \
        theirs.onmessage = (e) => { for (const m of JSON.parse(e.data)) { \
          if (m.type === 'WEBMCP_EXECUTE_TOOL_REQUEST') { b.args = m.args; theirs.close(); } } }; \
        theirs.postMessage(batch([{ type: 'WEBMCP_CONNECTED', requestId: d.requestId }]));";
    let on_other = "if (d?.type === 'WEBMCP_CALL_STATUS_REQUEST') { \
        parent.postMessage({ type: 'WEBMCP_EXECUTE_TOOL_RESPONSE', requestId: d.requestId, success: true, \
          result: { answeredByWindow: b.args } }, shop); }";
    open_scripted_bridge_frame(&t, on_connect, on_other).await?;
    list(&t, Page::Top, json!({ "fromOrigins": ["widget"] })).await?;
    wait_in(&t, Page::Frame("w"), "window.__b.fromHost.includes('WEBMCP_CONNECT')").await?;
    // The CONNECTED answer has had its time to arrive.
    js(&t, Page::Top, "await new Promise((resolve) => setTimeout(resolve, 300)); return true;", vec![]).await?;
    let outcome =
        js(&t, Page::Top, "return await e2e.call('frame_echo', { a: 1 }, { timeoutMs: 8000 });", vec![]).await?;
    let heard = js(&t, Page::Frame("w"), "return window.__b.fromHost;", vec![]).await?;
    check_eq(
        outcome,
        json!({ "ok": true, "value": { "answeredByWindow": { "a": 1 } } }),
        &format!("the call whose port closed (the iframe heard {heard})"),
    )
}

/// A consumer that says `"utf8Batches": 1` in its `WEBMCP_CONNECT` (a scripted one in the iframe, raw messages)
/// gets the shop's batches as UTF-8 bytes. A port message that is no batch (a `DataView`; bytes that are not UTF-8)
/// is refused with a console warning, and the port keeps working after it.
pub async fn a_port_message_that_is_no_batch_is_refused_and_the_port_keeps_working(t: Ctx) -> E2eResult<()> {
    open_scripted_bridge_frame(&t, "", "").await?;
    // A tool the iframe's origin sees: the shop accepts a port only from such an origin.
    register(&t, Page::Top, json!({ "name": "host_echo", "body": "return { echoed: args };" }), json!({})).await?;
    js(
        &t,
        Page::Top,
        "window.__warned = []; const warn = console.warn; \
         console.warn = (...parts) => { window.__warned.push(parts.join(' ')); return warn.apply(console, parts); }; \
         return true;",
        vec![],
    )
    .await?;
    js(
        &t,
        Page::Frame("w"),
        "const b = window.__b; const channel = new MessageChannel(); b.ourPort = channel.port1; \
         channel.port1.onmessage = (e) => { const bytes = Object.prototype.toString.call(e.data) === '[object Uint8Array]'; \
           for (const m of JSON.parse(bytes ? new TextDecoder().decode(e.data) : e.data)) b.onOurPort.push({ bytes, m }); }; \
         parent.postMessage({ type: 'WEBMCP_CONNECT', requestId: 'p_bytes', utf8Batches: 1 }, args[0], [channel.port2]); \
         return true;",
        vec![json!(t.origin(Site::Shop))],
    )
    .await?;
    let connected = wait_in(
        &t,
        Page::Frame("w"),
        "window.__b.onOurPort.find((r) => r.m.type === 'WEBMCP_CONNECTED' && r.m.requestId === 'p_bytes')",
    )
    .await?;
    check_eq(
        connected,
        json!({ "bytes": true, "m": { "type": "WEBMCP_CONNECTED", "requestId": "p_bytes", "utf8Batches": 1 } }),
        "the shop accepts the port, as bytes, saying it reads bytes too",
    )?;
    js(
        &t,
        Page::Frame("w"),
        "const port = window.__b.ourPort; port.postMessage(new DataView(new ArrayBuffer(4))); \
         port.postMessage(new Uint8Array([0x5b, 0xff, 0xfe, 0x5d])); \
         port.postMessage(new TextEncoder().encode(JSON.stringify([{ type: 'WEBMCP_GET_TOOLS_REQUEST', \
           requestId: 'g_after', bridge: 1 }]))); return true;",
        vec![],
    )
    .await?;
    let answer = wait_in(
        &t,
        Page::Frame("w"),
        "((r) => r && { bytes: r.bytes, type: r.m.type })(window.__b.onOurPort.find((r) => r.m.requestId === 'g_after'))",
    )
    .await?;
    check_eq(
        answer,
        json!({ "bytes": true, "type": "WEBMCP_GET_TOOLS_RESPONSE" }),
        "the port still answers after the refused messages",
    )?;
    let warned = wait_in(
        &t,
        Page::Top,
        "window.__warned.some((w) => w.includes('a port message that is neither a string nor UTF-8 bytes, unread'))",
    )
    .await?;
    check_eq(warned, json!(true), "the shop warned of the message that was no batch")
}

/// Reloads in one repetition of the reload case.
const RELOAD_REPETITIONS: usize = 5;

/// The iframe reloads while the host's port handshake with it is under way (the host navigates it in the task in
/// which its first list resolved, before the iframe's `WEBMCP_CONNECTED` can arrive). The host and the iframe's
/// new page then list and call each other: no call hangs on the port that died with the old page.
pub async fn a_frame_that_reloads_mid_handshake_is_called_on_its_new_page(t: Ctx) -> E2eResult<()> {
    let url = format!("{}{}", t.origin(Site::Widget), peer_path("bridge", &[Site::Shop]));
    open_pair(&t, "bridge", "bridge").await?;
    register(&t, Page::Top, json!({ "name": "host_echo", "body": "return { host: args.n };" }), json!({})).await?;
    let frame_tool = json!({ "name": "frame_echo", "body": "return { frame: args.n };" });
    register(&t, Page::Frame("w"), frame_tool.clone(), json!({})).await?;
    for rep in 0..RELOAD_REPETITIONS {
        let state = js(
            &t,
            Page::Top,
            "await e2e.list({ fromOrigins: ['widget'] }); return await e2e.navigateFrame('w', args[0]);",
            vec![json!(url)],
        )
        .await?;
        check_eq(state, json!("ready"), &format!("repetition {rep}: the iframe's new page"))?;
        register(&t, Page::Frame("w"), frame_tool.clone(), json!({})).await?;
        let sides = [
            ("host", Page::Top, "widget", "frame_echo", "frame"),
            ("iframe", Page::Frame("w"), "shop", "host_echo", "host"),
        ];
        for (side, page, provider, tool, key) in sides {
            let outcome = js(
                &t,
                page,
                "await e2e.list({ fromOrigins: [args[0]] }); \
                 return await e2e.call(args[1], { n: args[2] }, { origin: args[0], timeoutMs: 8000 });",
                vec![json!(provider), json!(tool), json!(rep)],
            )
            .await?;
            check_eq(
                outcome,
                json!({ "ok": true, "value": { key: rep } }),
                &format!("repetition {rep}: the {side}'s call"),
            )?;
        }
    }
    check_bridge_never_posts_to_star(&t).await.map(drop)
}
