//! Console hygiene, read in the victim shop's own console (console.warn is wrapped before the bridge loads): every
//! kind of refusal is visible to the page's developer, once per kind and origin (then at most once a minute, which
//! the policy's unit tests show with a clock; a case cannot wait a minute), and a flood is not a flood of logs.

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::arena::{
    Frame, bridge_warnings, check_arena_clean, check_nothing_else_ran, enter, open_arena, run_in, widget_command,
};

/// `count` copies of the message `one` builds (a JavaScript expression with the builders `h`), sent from `from`
/// to the shop; a round trip (a call of an unknown tool: the same kind as the first step) ends each step.
struct Step {
    what: &'static str,
    from: Frame,
    one: &'static str,
    count: usize,
}

const STEP: &str = "const a = window.__attack; const h = a.helpers; const origins = args[2]; \
    const messages = Array.from({ length: args[1] }, () => eval(args[0])); \
    await a.send('shop', messages, { fence: args[3] }); return true;";

/// Refusals of every kind the shop can see from the evil origin, in the order of the warnings they cause.
const EVIL_STEPS: [Step; 6] = [
    Step {
        what: "calls of a tool it may not see",
        from: Frame::Evil,
        one: "h.execute('add_to_cart', { sku: 'margherita' })",
        count: 20,
    },
    Step { what: "malformed requests", from: Frame::Evil, one: "h.execute('../get_cart')", count: 20 },
    Step {
        what: "oversized requests",
        from: Frame::Evil,
        one: "h.execute('search_products', { query: h.big(1100 * 1024) })",
        count: 5,
    },
    Step {
        what: "requests nested too deep",
        from: Frame::Evil,
        one: "h.execute('add_to_cart', h.nested(100))",
        count: 10,
    },
    Step {
        what: "__proto__ in arguments",
        from: Frame::Evil,
        one: "h.execute('add_to_cart', h.parsed('{\"__proto__\":{}}'))",
        count: 10,
    },
    Step { what: "unsolicited results", from: Frame::Evil, one: "h.success(h.freshId(), 'forged')", count: 10 },
];

/// The warnings the steps must cause, exactly, for `origin`.
fn evil_warnings(evil: &str) -> Vec<String> {
    [
        "a call of add_to_cart, a tool it cannot see".to_owned(),
        "a malformed message (name: tool name holds '/' at position 2: only letters, digits and _ . - are allowed)".to_owned(),
        "a malformed message (message is over 1048576 bytes; not read)".to_owned(),
        "a malformed message (nesting deeper than 64 levels)".to_owned(),
        "a malformed message (args.__proto__: a \"__proto__\" key is refused: code that copies the arguments into an object \
         could give it another prototype)"
            .to_owned(),
        "a call result nobody waits for".to_owned(),
    ]
    .into_iter()
    .map(|what| format!("interpane: refused {what} from {evil}"))
    .collect()
}

async fn run_step(t: &Ctx, step: &Step, fence: bool) -> E2eResult<()> {
    let origins = json!({ "shop": t.origin(Site::Shop), "widget": t.origin(Site::Widget), "pay": t.origin(Site::Pay) });
    run_in(&t.session, step.from, STEP, vec![json!(step.one), json!(step.count), origins, json!(fence)])
        .await
        .map(drop)
        .map_err(|error| E2eError::Check(format!("{} ({} from {:?}): {error}", step.what, step.count, step.from)))
}

/// The bridge warnings printed since `seen` were counted.
async fn new_warnings(t: &Ctx, seen: &mut usize) -> E2eResult<Vec<String>> {
    let all = bridge_warnings(&t.session).await?;
    let fresh = all.get(*seen..).map(<[String]>::to_vec).unwrap_or_default();
    *seen = all.len();
    Ok(fresh)
}

/// Refusals of six kinds from the attacker, of one kind from a window of the pay origin and from a sandboxed frame:
/// one warning each, word for word. The same refusals again, then a burst of 3,000 mixed messages: one more
/// warning only, for the one kind the burst adds (tool lists beyond the rate limit).
pub async fn refusals_warn_once_per_kind_and_origin(t: Ctx) -> E2eResult<()> {
    open_arena(&t, 100).await?;
    let evil = t.origin(Site::Evil).to_owned();
    let mut seen = 0;
    let before = new_warnings(&t, &mut seen).await?;
    check_eq(before, Vec::<String>::new(), "bridge warnings before any attack")?;

    for step in &EVIL_STEPS {
        run_step(&t, step, true).await?;
    }
    check_eq(new_warnings(&t, &mut seen).await?, evil_warnings(&evil), "warnings after the attacker's refusals")?;

    let impostor =
        Step { what: "calls from a pay window", from: Frame::Impostor, one: "h.execute('checkout', {})", count: 20 };
    run_step(&t, &impostor, true).await?;
    let pay = t.origin(Site::Pay);
    let expected = vec![format!("interpane: refused a call of checkout, a tool it cannot see from {pay}")];
    check_eq(new_warnings(&t, &mut seen).await?, expected, "warnings after a pay-origin window's refusals")?;

    let opaque = Step { what: "requests from a sandboxed frame", from: Frame::Opaque, one: "h.getTools()", count: 20 };
    run_step(&t, &opaque, false).await?;
    enter(&t.session, Frame::Shop).await?;
    let warned = format!("window.__victim.warnings.filter((line) => line.startsWith('interpane:')).length > {seen}");
    t.session.wait_for(&warned, DEFAULT_WAIT).await?;
    let expected = vec![
        "interpane: refused a message from an opaque origin (a sandboxed frame): it cannot be answered without '*' from null"
            .to_owned(),
    ];
    check_eq(new_warnings(&t, &mut seen).await?, expected, "warnings after a sandboxed frame's requests")?;

    for step in &EVIL_STEPS {
        run_step(&t, step, true).await?;
    }
    run_step(&t, &impostor, true).await?;
    check_eq(new_warnings(&t, &mut seen).await?, Vec::<String>::new(), "warnings after the same refusals again")?;

    let burst = Step {
        what: "a burst of every kind, and tool list requests",
        from: Frame::Evil,
        one: "[h.getTools(), h.getTools(), h.execute('add_to_cart'), h.execute('../x'), h.execute('get_cart', h.nested(70)), \
              h.success(h.freshId(), 'x')][Math.floor(Math.random() * 6)]",
        count: 3000,
    };
    run_step(&t, &burst, true).await?;
    let expected = vec![format!("interpane: refused tool list requests beyond the rate limit from {evil}")];
    let after_burst = new_warnings(&t, &mut seen).await?;
    eprintln!(
        "console: {seen} bridge warnings in all after {} refused messages",
        refused_so_far(&impostor, &opaque, &burst)
    );
    check_eq(after_burst, expected, "warnings after a burst of 3,000 messages")?;

    check_nothing_else_ran(&t, &[])?;
    check_eq(widget_command(&t.session, "add 1 margherita").await?, "completed".to_owned(), "the widget's call")?;
    let warned_widget: Value = run_in(
        &t.session,
        Frame::Shop,
        "return window.__victim.warnings.filter((line) => line.includes(args[0]));",
        vec![json!(t.origin(Site::Widget))],
    )
    .await?;
    check(warned_widget == json!([]), || format!("the widget's legitimate traffic caused warnings: {warned_widget}"))?;
    check_arena_clean(&t.session).await
}

fn refused_so_far(impostor: &Step, opaque: &Step, burst: &Step) -> usize {
    2 * EVIL_STEPS.iter().map(|step| step.count).sum::<usize>() + 2 * impostor.count + opaque.count + burst.count
}
