//! The demo scenario through the pages (needs the bridge): the widget drives the shop, the shop pays through
//! pay, the attacker gets nothing. Counters are read from the server, where no page can fake them.

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::spy::check_no_wildcard_posts;
use interpane_e2e::{Case, Ctx, E2eResult, case, check, check_eq};
use serde_json::{Value, json};

pub fn cases() -> Vec<Case> {
    vec![
        case!("demo::widget_drives_the_shop_and_the_shop_pays", widget_drives_the_shop_and_the_shop_pays),
        case!("demo::evil_gets_nothing", evil_gets_nothing),
        case!("demo::sandboxed_evil_gets_nothing", sandboxed_evil_gets_nothing),
    ]
}

/// How long the attacker pages may take to run every attack.
const ATTACKS_TIMEOUT: Duration = Duration::from_secs(60);

const CHIPS: &str = "return [...document.querySelectorAll('.chip')].map((c) => \
    [c.dataset.tool, c.dataset.state, c.dataset.status ?? null, c.dataset.retryAfter ?? null]);";

/// Opens the shop with a short payment delay and enters the widget once both pages are ready.
async fn widget_in_shop(t: &Ctx) -> E2eResult<()> {
    t.open(Site::Shop, "/?payDelayMs=100").await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "shop page state")?;
    t.session.enter_frame_of("#widget-frame", t.origin(Site::Widget)).await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), "widget page state")
}

async fn run_command(t: &Ctx, command: &str) -> E2eResult<Value> {
    t.session.execute_async("return await window.__demo.run(args[0]);", vec![json!(command)]).await
}

/// Lists the shop's tools, adds to the cart, hits the rate limit (429 / 30 arrive intact), checks out
/// through pay; each tool ran exactly as often as called; no frame posted to '*'.
async fn widget_drives_the_shop_and_the_shop_pays(t: Ctx) -> E2eResult<()> {
    widget_in_shop(&t).await?;
    let mut listed = t.session.execute_async("return await window.__demo.refreshTools();", vec![]).await?;
    if let Value::Array(names) = &mut listed {
        names.sort_by_key(|name| name.as_str().unwrap_or_default().to_owned());
    }
    // request_demo is the shop's declarative form tool (a form with toolname), exposed like its other tools.
    let expected = json!(["add_to_cart", "checkout", "get_cart", "request_demo", "search_products"]);
    check_eq(listed, expected, "tools the widget sees")?;

    check_eq(run_command(&t, "add 2 margherita").await?, json!("completed"), "add 2 margherita")?;
    for attempt in 1..=3 {
        check_eq(run_command(&t, "search pizza").await?, json!("completed"), &format!("search {attempt}"))?;
    }
    check_eq(run_command(&t, "search pizza").await?, json!("failed"), "the fourth search")?;
    check_eq(run_command(&t, "checkout").await?, json!("completed"), "checkout")?;
    check_eq(
        t.session.execute(CHIPS, vec![]).await?,
        json!([
            ["add_to_cart", "completed", null, null],
            ["search_products", "completed", null, null],
            ["search_products", "completed", null, null],
            ["search_products", "completed", null, null],
            ["search_products", "failed", "429", "30"],
            ["checkout", "completed", null, null],
        ]),
        "the widget's chips",
    )?;
    let runs = [
        (Site::Shop, "add_to_cart", 1),
        (Site::Shop, "search_products", 4),
        (Site::Shop, "checkout", 1),
        (Site::Pay, "pay_invoice", 1),
    ];
    for (site, tool, expected) in runs {
        check_eq(t.counter(site, tool), expected, &format!("executions of {site}'s {tool}"))?;
    }
    check_no_wildcard_posts(&t.session).await.map(drop)
}

/// Reads the attacker page's results once it is done, and checks nothing leaked and nothing ran.
async fn attacker_results(t: &Ctx) -> E2eResult<()> {
    let waited = t.session.wait_for("window.__demo.state !== 'loading' && window.__demo.state", ATTACKS_TIMEOUT).await;
    let state = match waited {
        Ok(state) => state,
        Err(error) => {
            let frames = t.session.describe_frames().await?;
            return Err(interpane_e2e::E2eError::Check(format!("{error}\nframes:\n{frames}")));
        }
    };
    check_eq(state, json!("done"), "attacker page state")?;
    let results = t.session.execute("return window.__demo.results;", vec![]).await?;
    let rows = results.as_array().cloned().unwrap_or_default();
    check(rows.len() >= 20, || format!("expected at least 20 attacks, got {}", rows.len()))?;
    let leaked: Vec<&Value> = rows.iter().filter(|row| row["verdict"] != "blocked").collect();
    check(leaked.is_empty(), || format!("attacks not blocked: {leaked:?}"))?;
    for site in [Site::Shop, Site::Pay] {
        let executed: Vec<(String, u64)> =
            t.demo().counters_of(site).into_iter().filter(|(name, _)| name.starts_with(t.counter_prefix())).collect();
        check_eq(executed, vec![], &format!("{site} executions during the attacks"))?;
    }
    check_no_wildcard_posts(&t.session).await.map(drop)
}

async fn evil_gets_nothing(t: Ctx) -> E2eResult<()> {
    t.open(Site::Evil, "/").await?;
    attacker_results(&t).await
}

async fn sandboxed_evil_gets_nothing(t: Ctx) -> E2eResult<()> {
    t.open(Site::Evil, "/opaque.html").await?;
    attacker_results(&t).await
}
