//! Stolen call ids. Guessing an id is hopeless (96 random bits or more), so the case hands the attackers the real
//! ids of two calls in flight, as a thief who learned them would have them: the widget's checkout call to the shop,
//! and the shop's pay_invoice call to pay. With them the attacker (evil origin) and a window of the pay origin that
//! nobody asked cancel, acknowledge, ask the status of, replay, and answer those calls, and tell their callers that
//! the providers went away. None of it counts: both calls end with the real result, each tool ran once.

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::arena::{
    Frame, check_arena_clean, check_nothing_else_ran, enter, open_arena, run_in, widget_chips, widget_command,
};

/// How long pay takes to pay: the window in which the attacks run, while both calls are in flight.
const PAY_DELAY_MS: u64 = 4000;

/// How long the checkout may take once the attacks are done.
const CHECKOUT_WAIT: Duration = Duration::from_secs(30);

/// The ids the shop saw: the widget's call of `tool` (in) and the shop's call of pay_invoice (out), once both exist.
const STOLEN: &str = "(() => { const seen = window.__victim.seen; \
    const widget = seen.find((e) => e.dir === 'in' && e.type === 'WEBMCP_EXECUTE_TOOL_REQUEST' && e.name === 'checkout'); \
    const pay = seen.find((e) => e.dir === 'out' && e.type === 'WEBMCP_EXECUTE_TOOL_REQUEST' && e.name === 'pay_invoice'); \
    return widget && pay && { widget: widget.requestId, pay: pay.requestId }; })()";

/// Sends `messages` (an expression with `W` and `P`, the stolen ids, and the builders `h`) from `from` to `to`.
async fn attack(t: &Ctx, from: Frame, to: &str, messages: &str, ids: &Value) -> E2eResult<Value> {
    let body = format!(
        "const a = window.__attack; const h = a.helpers; const W = args[1].widget; const P = args[1].pay; \
         return await a.send(args[0], {messages});"
    );
    run_in(&t.session, from, &body, vec![json!(to), ids.clone()]).await
}

/// One row: who sends what to whom, and the exact answers (ids as `#<index of the message that carried it>`).
struct Theft {
    name: &'static str,
    from: Frame,
    to: &'static str,
    messages: &'static str,
    expect: Value,
}

fn thefts() -> Vec<Theft> {
    let none = json!([]);
    vec![
        Theft {
            name: "cancel, acknowledge, ask the status of and replay the widget's call at the shop",
            from: Frame::Evil,
            to: "shop",
            messages: "[{ type: 'WEBMCP_CANCEL_TOOL', requestId: W }, { type: 'WEBMCP_CALL_STATUS_REQUEST', requestId: W }, \
                { type: 'WEBMCP_CALL_ACK', requestIds: [W] }, { type: 'WEBMCP_EXECUTE_TOOL_REQUEST', requestId: W, name: 'checkout', args: {} }]",
            // The stranger's cancel leaves no record (it sees no tool), so its status query finds nothing of its own.
            expect: json!([
                { "type": "WEBMCP_CALL_STATUS_RESPONSE", "requestId": "#0", "state": "unknown", "durable": true },
                { "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": "#0", "success": false, "code": "unknown_tool",
                  "error": "Tool checkout not found" },
            ]),
        },
        Theft {
            name: "answer the widget's call, report it unknown, interrupted, and its provider gone",
            from: Frame::Evil,
            to: "widget",
            messages: "[h.success(W, 'Receipt FORGED.'), { type: 'WEBMCP_CALL_STATUS_RESPONSE', requestId: W, state: 'unknown', durable: true }, \
                h.failure(W, { code: 'interrupted' }), { type: 'WEBMCP_GOING_AWAY' }]",
            expect: none.clone(),
        },
        Theft {
            name: "answer the shop's call to pay, report it unknown, and pay gone",
            from: Frame::Evil,
            to: "shop",
            messages: "[h.success(P, 'Receipt FORGED.'), { type: 'WEBMCP_CALL_STATUS_RESPONSE', requestId: P, state: 'unknown', durable: false }, \
                { type: 'WEBMCP_GOING_AWAY' }]",
            expect: none.clone(),
        },
        Theft {
            name: "cancel, ask the status of and replay the shop's call at pay",
            from: Frame::Evil,
            to: "pay",
            messages: "[{ type: 'WEBMCP_CANCEL_TOOL', requestId: P }, { type: 'WEBMCP_CALL_STATUS_REQUEST', requestId: P }, \
                { type: 'WEBMCP_EXECUTE_TOOL_REQUEST', requestId: P, name: 'pay_invoice', \
                  args: { invoiceId: 'evil', amountCents: 1, currency: 'EUR' } }]",
            expect: json!([
                { "type": "WEBMCP_CALL_STATUS_RESPONSE", "requestId": "#0", "state": "unknown", "durable": true },
                { "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": "#0", "success": false, "code": "unknown_tool",
                  "error": "Tool pay_invoice not found" },
            ]),
        },
        Theft {
            name: "from a pay window the shop never asked: answer, fail, report unknown and go away",
            from: Frame::Impostor,
            to: "shop",
            messages: "[h.success(P, 'Receipt FORGED by another pay window.'), h.failure(P, { code: 'interrupted' }), \
                { type: 'WEBMCP_CALL_STATUS_RESPONSE', requestId: P, state: 'unknown', durable: true }, { type: 'WEBMCP_GOING_AWAY' }]",
            expect: none,
        },
    ]
}

/// Both calls were still waiting when every forgery had been handled (the round trips prove the handling).
async fn check_still_in_flight(t: &Ctx, ids: &Value) -> E2eResult<()> {
    enter(&t.session, Frame::Shop).await?;
    let answered = t
        .session
        .execute(
            "return window.__victim.seen.some((e) => e.dir === 'in' && e.type === 'WEBMCP_EXECUTE_TOOL_RESPONSE' \
             && e.requestId === arguments[0]);",
            vec![ids["pay"].clone()],
        )
        .await?;
    let chips = widget_chips(&t.session).await?;
    let checkout = chips.as_array().and_then(|chips| chips.last()).cloned().unwrap_or_default();
    let pending = answered == json!(false) && checkout[1] == "running";
    check(pending, || {
        format!(
            "a call ended before the attacks were done (pay answered: {answered}, checkout chip: {checkout}); raise PAY_DELAY_MS"
        )
    })
}

/// The widget's checkout and the shop's payment survive every use of their stolen ids; each tool ran once; a
/// replayed real answer does not settle anything twice; the widget keeps working.
pub async fn stolen_ids_do_not_steer_calls_in_flight(t: Ctx) -> E2eResult<()> {
    open_arena(&t, PAY_DELAY_MS).await?;
    check_eq(widget_command(&t.session, "add 1 margherita").await?, "completed".to_owned(), "the widget adds")?;
    run_in(
        &t.session,
        Frame::Widget,
        "window.__demo.run('checkout').then((state) => { window.__e2eCheckout = state; }); return true;",
        vec![],
    )
    .await?;
    enter(&t.session, Frame::Shop).await?;
    let ids = t.session.wait_for(STOLEN, interpane_e2e::session::DEFAULT_WAIT).await?;

    let mut failed = Vec::new();
    let rows = thefts();
    let count = rows.len();
    for theft in rows {
        let got = attack(&t, theft.from, theft.to, theft.messages, &ids).await?;
        if got != theft.expect {
            failed.push(format!(
                "{} ({:?} -> {}): expected {}, got {got}",
                theft.name, theft.from, theft.to, theft.expect
            ));
        }
    }
    check_still_in_flight(&t, &ids).await?;
    check(failed.is_empty(), || {
        format!("{} of {count} thefts got other answers:\n{}", failed.len(), failed.join("\n"))
    })?;

    enter(&t.session, Frame::Widget).await?;
    let state = t.session.wait_for("window.__e2eCheckout", CHECKOUT_WAIT).await?;
    check_eq(state, json!("completed"), "the widget's checkout")?;
    let chips = widget_chips(&t.session).await?;
    let detail = chips[1][2].as_str().unwrap_or_default().to_owned();
    check(detail.contains("Receipt rcpt-inv-") && !detail.contains("FORGED"), || {
        format!("the checkout's result is not pay's real receipt: {detail:?}")
    })?;
    for (site, tool) in [(Site::Shop, "add_to_cart"), (Site::Shop, "checkout"), (Site::Pay, "pay_invoice")] {
        check_eq(t.counter(site, tool), 1, &format!("runs of {site}'s {tool}"))?;
    }

    // A real answer, replayed to the widget by the attacker after its call settled, settles nothing again.
    enter(&t.session, Frame::Shop).await?;
    let real = t
        .session
        .execute(
            "const seen = window.__victim.seen; \
             const asked = new Set(seen.filter((e) => e.dir === 'in' && e.type === 'WEBMCP_EXECUTE_TOOL_REQUEST').map((e) => e.requestId)); \
             return seen.filter((e) => e.dir === 'out' && e.type === 'WEBMCP_EXECUTE_TOOL_RESPONSE' && asked.has(e.requestId)).map((e) => e.data);",
            vec![],
        )
        .await?;
    check(real.as_array().is_some_and(|answers| answers.len() == 2), || format!("the shop's two answers: {real}"))?;
    let replayed =
        run_in(&t.session, Frame::Evil, "return await window.__attack.send('widget', args[0]);", vec![real]).await?;
    check_eq(replayed, json!([]), "what the widget answered to the replayed answers")?;
    check_eq(widget_chips(&t.session).await?, chips, "the widget's chips after the replay")?;

    check_eq(widget_command(&t.session, "cart").await?, "completed".to_owned(), "the widget's next call")?;
    check_nothing_else_ran(&t, &["add_to_cart", "checkout", "pay_invoice", "get_cart"])?;
    check_arena_clean(&t.session).await.map_err(|error| E2eError::Check(format!("after the thefts: {error}")))
}
