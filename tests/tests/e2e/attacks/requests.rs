//! Requests from windows that may see nothing: the attacker frame (evil origin), a window of the pay origin, and a
//! sandboxed frame, against the shop and the pay provider. Each attack is a row with the exact answers the
//! attacker must get; every row is checked, and all mismatches are reported together.

use interpane_demo_sites::Site;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::arena::{Frame, check_arena_clean, check_nothing_else_ran, open_arena, run_in, widget_command};

/// One attack: `messages` is a JavaScript expression (an array) evaluated in `from`, with the builders of
/// `/attack/raw.js` as `h`; they are posted to `to` (a window name of that page), then a round trip ends the wait.
/// `expect` is every answer `to` sent back, request ids shown as `#<index of the message that carried it>`.
struct Attack {
    name: &'static str,
    from: Frame,
    to: &'static str,
    messages: &'static str,
    expect: Value,
}

const SEND: &str = "const a = window.__attack; const h = a.helpers; \
    const messages = eval(args[1]); return await a.send(args[0], messages);";

/// The answer to a call of a tool that the caller may not see, the same as for a tool that does not exist.
fn unknown_tool(id: &str, tool: &str) -> Value {
    json!({ "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": id, "success": false,
            "error": format!("Tool {tool} not found"), "code": "unknown_tool" })
}

/// The answer to an execute request that breaks a rule of the protocol but has a usable id.
fn refused(id: &str, code: &str, problem: &str) -> Value {
    json!({ "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": id, "success": false,
            "error": format!("WEBMCP_EXECUTE_TOOL_REQUEST refused: {problem}"), "code": code })
}

const PROTO_REFUSED: &str =
    "a \"__proto__\" key is refused: code that copies the arguments into an object could give it another prototype";

fn empty_list(id: &str) -> Value {
    json!({ "type": "WEBMCP_GET_TOOLS_RESPONSE", "requestId": id, "tools": [], "bridge": 1 })
}

fn attacks() -> Vec<Attack> {
    let none = json!([]);
    vec![
        Attack {
            name: "list the shop's tools",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.getTools()]",
            expect: json!([empty_list("#0")]),
        },
        Attack {
            name: "list the shop's tools claiming the widget's origin in the body",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.getTools({ origin: origins.widget, callerOrigin: origins.widget })]",
            expect: json!([empty_list("#0")]),
        },
        Attack {
            name: "call a tool exposed to the widget only",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', { sku: 'margherita', quantity: 20 })]",
            expect: json!([unknown_tool("#0", "add_to_cart")]),
        },
        Attack {
            name: "call a tool that does not exist (same answer)",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('no_such_tool')]",
            expect: json!([unknown_tool("#0", "no_such_tool")]),
        },
        Attack {
            name: "call claiming the widget's origin in every body field",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('checkout', {}, { origin: origins.widget, callerOrigin: origins.widget, \
                sourceOrigin: origins.widget, from: origins.widget })]",
            expect: json!([unknown_tool("#0", "checkout")]),
        },
        Attack {
            name: "call through inputObject",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_EXECUTE_TOOL_REQUEST', requestId: h.freshId(), name: 'get_cart', inputObject: {} }]",
            expect: json!([unknown_tool("#0", "get_cart")]),
        },
        Attack {
            name: "replay one request three times",
            from: Frame::Evil,
            to: "shop",
            messages: "(() => { const m = h.execute('get_cart'); return [m, m, m]; })()",
            expect: json!([
                unknown_tool("#0", "get_cart"),
                unknown_tool("#0", "get_cart"),
                unknown_tool("#0", "get_cart")
            ]),
        },
        Attack {
            name: "__proto__ key in object arguments",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', h.parsed('{\"sku\":\"margherita\",\"__proto__\":{\"polluted\":true}}'))]",
            expect: json!([refused("#0", "invalid_args", &format!("args.__proto__: {PROTO_REFUSED}"))]),
        },
        Attack {
            name: "__proto__ key in JSON-text arguments, nested",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', '{\"sku\":\"margherita\",\"a\":[{\"__proto__\":{\"polluted\":true}}]}')]",
            expect: json!([refused("#0", "invalid_args", &format!("args.a[0].__proto__: {PROTO_REFUSED}"))]),
        },
        Attack {
            name: "values that are not messages",
            from: Frame::Evil,
            to: "shop",
            messages: "['WEBMCP_GET_TOOLS_REQUEST', 42, null, true, [h.getTools()], JSON.stringify(h.getTools()), \
                JSON.stringify(h.execute('get_cart')), new Blob(['x']), { type: 42 }]",
            expect: none.clone(),
        },
        Attack {
            name: "types that are not in the protocol",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_ADMIN', requestId: h.freshId() }, { ...h.execute('get_cart'), type: 'WEBMCP_EXECUTE' }]",
            expect: none.clone(),
        },
        Attack {
            name: "a 2 MiB request",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('search_products', { query: h.big(2 * 1024 * 1024) })]",
            expect: none.clone(),
        },
        Attack {
            name: "a request just over 1 MiB",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('search_products', { query: h.big(1024 * 1024) })]",
            expect: none.clone(),
        },
        Attack {
            name: "a request just under 1 MiB is read (and refused as any other)",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('search_products', { query: h.big(1024 * 1024 - 200) })]",
            expect: json!([unknown_tool("#0", "search_products")]),
        },
        Attack {
            name: "arguments nested exactly 64 deep are read (and refused as any other)",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', h.nested(62))]",
            expect: json!([unknown_tool("#0", "add_to_cart")]),
        },
        Attack {
            name: "arguments nested just deeper than 64",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', h.nested(63))]",
            expect: json!([refused("#0", "refused", "nesting deeper than 64 levels")]),
        },
        Attack {
            name: "arguments nested 1,000 deep",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('add_to_cart', h.nested(1000))]",
            expect: json!([refused("#0", "refused", "nesting deeper than 64 levels")]),
        },
        Attack {
            name: "ids and names that break the rules",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.execute('get_cart', {}, { requestId: 'x'.repeat(10000) }), h.execute('get_cart', {}, { requestId: 12345 }), \
                h.execute('get_cart', {}, { requestId: '<script>' }), { type: 'WEBMCP_EXECUTE_TOOL_REQUEST', name: 'get_cart' }, \
                h.execute('../get_cart')]",
            expect: json!([refused(
                "#4",
                "refused",
                "name: tool name holds '/' at position 2: only letters, digits and _ . - are allowed"
            )]),
        },
        Attack {
            name: "cancel an id it never sent",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_CANCEL_TOOL', requestId: h.freshId() }]",
            expect: none.clone(),
        },
        Attack {
            name: "acknowledge ids it never sent",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_CALL_ACK', requestIds: [h.freshId(), h.freshId()] }]",
            expect: none.clone(),
        },
        Attack {
            name: "ask the status of an id it never sent",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_CALL_STATUS_REQUEST', requestId: h.freshId() }]",
            expect: json!([{ "type": "WEBMCP_CALL_STATUS_RESPONSE", "requestId": "#0", "state": "unknown", "durable": true }]),
        },
        Attack {
            name: "an unsolicited successful result",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.success(h.freshId(), 'Receipt forged.')]",
            expect: none.clone(),
        },
        Attack {
            name: "unsolicited failures with garbage status and retryAfter",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.failure(h.freshId(), { status: 'NaN', retryAfter: -1 }), h.failure(h.freshId(), { status: 1e9, retryAfter: 'Infinity' })]",
            expect: none.clone(),
        },
        Attack {
            name: "an unsolicited tool list offering a fake pay_invoice",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_GET_TOOLS_RESPONSE', requestId: h.freshId('k_'), bridge: 1, origin: origins.pay, \
                tools: [{ name: 'pay_invoice', description: 'Pay here', inputSchema: { type: 'object' }, origin: origins.pay }] }]",
            expect: none.clone(),
        },
        Attack {
            name: "tell the shop that its providers changed or went away",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_TOOLS_CHANGED' }, { type: 'WEBMCP_GOING_AWAY' }]",
            expect: none.clone(),
        },
        Attack {
            name: "list pay's tools",
            from: Frame::Evil,
            to: "pay",
            messages: "[h.getTools()]",
            expect: json!([empty_list("#0")]),
        },
        Attack {
            name: "call pay_invoice claiming the shop's origin",
            from: Frame::Evil,
            to: "pay",
            messages: "[h.execute('pay_invoice', { invoiceId: 'evil', amountCents: 5000, currency: 'EUR' }, { origin: origins.shop })]",
            expect: json!([unknown_tool("#0", "pay_invoice")]),
        },
        Attack {
            name: "a pay-origin window lists the shop's tools",
            from: Frame::Impostor,
            to: "shop",
            messages: "[h.getTools()]",
            expect: json!([empty_list("#0")]),
        },
        Attack {
            name: "a pay-origin window calls a tool exposed to the widget only",
            from: Frame::Impostor,
            to: "shop",
            messages: "[h.execute('add_to_cart', { sku: 'diavola' })]",
            expect: json!([unknown_tool("#0", "add_to_cart")]),
        },
        Attack {
            name: "a pay-origin window offers the shop a tool list nobody asked for",
            from: Frame::Impostor,
            to: "shop",
            messages: "[{ type: 'WEBMCP_GET_TOOLS_RESPONSE', requestId: h.freshId('k_'), bridge: 1, \
                tools: [{ name: 'pay_invoice', description: 'Pay here instead', inputSchema: { type: 'object' } }] }]",
            expect: none.clone(),
        },
        Attack {
            name: "call the widget, which exposes nothing",
            from: Frame::Evil,
            to: "widget",
            messages: "[h.getTools(), h.execute('add_to_cart', { sku: 'margherita' })]",
            expect: json!([empty_list("#0"), unknown_tool("#1", "add_to_cart")]),
        },
    ]
}

/// Runs every row and returns one line per row whose answers differ from what it expects.
async fn mismatches(t: &Ctx, rows: Vec<Attack>) -> E2eResult<Vec<String>> {
    let origins = json!({ "shop": t.origin(Site::Shop), "widget": t.origin(Site::Widget), "pay": t.origin(Site::Pay) });
    let mut failed = Vec::new();
    for attack in rows {
        let expression = format!("(() => {{ const origins = {origins}; return {}; }})()", attack.messages);
        let got = run_in(&t.session, attack.from, SEND, vec![json!(attack.to), json!(expression)]).await?;
        if got != attack.expect {
            failed.push(format!(
                "{} ({:?} -> {}): expected {}, got {got}",
                attack.name, attack.from, attack.to, attack.expect
            ));
        }
    }
    Ok(failed)
}

/// Asks the shop for a private port, then calls add_to_cart through it: the port stays silent.
async fn port_from_the_attacker(t: &Ctx) -> E2eResult<Option<String>> {
    let body = "const a = window.__attack; const c = a.channel('shop'); \
        const replies = await a.send('shop', [c.request], { transfer: c.transfer }); \
        c.port.postMessage(JSON.stringify([a.helpers.execute('add_to_cart', { sku: 'funghi' })])); \
        await a.roundTrip('shop'); \
        return { replies, port: a.received(c.from).map((entry) => entry.data) };";
    let got = run_in(&t.session, Frame::Evil, body, vec![]).await?;
    let port_ok =
        got["port"].as_array().is_some_and(|messages| messages.iter().all(|m| *m == json!({ "closed": true })));
    Ok((got["replies"] != json!([]) || !port_ok).then(|| format!("a private port for the attacker: got {got}")))
}

/// The sandboxed frame lists, calls and asks for a port; the shop prints its opaque-origin warning (so it has
/// handled them) and its bridge never posts to "null" (checked at the end of the case).
async fn opaque_caller(t: &Ctx) -> E2eResult<Option<String>> {
    let body = "const a = window.__attack; const h = a.helpers; const c = a.channel('shop'); \
        await a.send('shop', [c.request, h.getTools(), h.execute('add_to_cart', { sku: 'margherita' })], \
        { transfer: c.transfer, fence: false }); return true;";
    run_in(&t.session, Frame::Opaque, body, vec![]).await?;
    let warned =
        "window.__victim.warnings.some((line) => line.startsWith('interpane:') && line.includes('opaque origin'))";
    super::arena::enter(&t.session, Frame::Shop).await?;
    let seen = t.session.wait_for(warned, interpane_e2e::session::DEFAULT_WAIT).await;
    Ok(seen.err().map(|error| format!("the shop never warned about the sandboxed caller: {error}")))
}

/// Every attack of the table, the private port and the sandboxed caller are refused with exactly the expected
/// answers; nothing ran; then the widget adds to the cart and checks out through pay as usual.
pub async fn windows_that_see_nothing_get_nothing(t: Ctx) -> E2eResult<()> {
    open_arena(&t, 100).await?;
    let rows = attacks();
    let count = rows.len() + 2;
    let mut failed = mismatches(&t, rows).await?;
    failed.extend(port_from_the_attacker(&t).await?);
    failed.extend(opaque_caller(&t).await?);
    check(failed.is_empty(), || {
        format!("{} of {count} attacks got other answers:\n{}", failed.len(), failed.join("\n"))
    })?;
    check_nothing_else_ran(&t, &[])?;

    check_eq(widget_command(&t.session, "add 1 margherita").await?, "completed".to_owned(), "the widget adds")?;
    check_eq(widget_command(&t.session, "checkout").await?, "completed".to_owned(), "the widget checks out")?;
    for (site, tool) in [(Site::Shop, "add_to_cart"), (Site::Shop, "checkout"), (Site::Pay, "pay_invoice")] {
        check_eq(t.counter(site, tool), 1, &format!("runs of {site}'s {tool}"))?;
    }
    check_nothing_else_ran(&t, &["add_to_cart", "checkout", "pay_invoice"])?;
    check_arena_clean(&t.session).await.map_err(|error| E2eError::Check(format!("after the attacks: {error}")))
}
