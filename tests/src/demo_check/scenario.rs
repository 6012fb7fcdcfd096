//! The demo's main scenario, as a visitor sees it: the widget lists the shop's tools, fills the cart, hits the
//! search rate limit, and checks out; the shop pays through pay. Counters come from the server.

use interpane_demo_sites::Site;
use interpane_e2e::{E2eResult, check, check_eq};
use serde_json::json;

use super::runner::Checks;
use super::spy_tally::{self, PageSpy};
use super::visit::{Visit, sorted_names};

/// The shop's tools, as the widget's origin may see them (`request_demo` is its declarative form tool).
const SHOP_TOOLS: [&str; 5] = ["add_to_cart", "checkout", "get_cart", "request_demo", "search_products"];

/// Runs the main scenario's checks in order; returns what the spy saw.
pub async fn run(visit: &Visit, checks: &mut Checks) -> PageSpy {
    checks.run("widget lists the shop's tools", widget_lists_the_shop_tools(visit)).await;
    checks.run("add to cart (counter 1)", add_to_cart(visit)).await;
    checks.run("rate limit shows 429 / retryAfter 30", rate_limit(visit)).await;
    checks.run("checkout pays through pay", checkout_pays_through_pay(visit)).await;
    spy_tally::read_page(&visit.session, "shop").await
}

async fn widget_lists_the_shop_tools(v: &Visit) -> E2eResult<String> {
    // The default search limit (3 per 30 s), so that the rate limit answers retryAfter 30; a short payment.
    v.open_shop("/?payDelayMs=150").await?;
    let listed = sorted_names(&v.session.execute_async("return await window.__demo.refreshTools();", vec![]).await?);
    check_eq(listed.as_slice(), SHOP_TOOLS.map(str::to_owned).as_slice(), "the tools the widget lists")?;
    let shown = v
        .session
        .execute("return [...document.querySelectorAll('#tools li[data-tool]')].map((li) => li.dataset.tool);", vec![])
        .await?;
    check_eq(sorted_names(&shown), listed.clone(), "the tools the widget shows")?;
    Ok(format!("{} (listed and shown)", listed.join(", ")))
}

async fn add_to_cart(v: &Visit) -> E2eResult<String> {
    v.enter_widget().await?;
    v.run_expecting("add 2 margherita", "completed").await?;
    let chip = v.last_chip().await?;
    check_eq(chip.tool.as_str(), "add_to_cart", "the last chip's tool")?;
    // The shop runs the bridge: its tools take the bridge's path with native WebMCP too (docs/native.md).
    check_eq(chip.path.as_deref(), Some("bridge"), "the path the last chip shows")?;
    check_eq(v.counter(Site::Shop, "add_to_cart"), 1, "runs of the shop's add_to_cart")?;
    let line = v.top_text("#cart-lines li[data-sku='margherita']").await?;
    check(line.starts_with("2 × Margherita"), || format!("the shop's cart shows {line:?}, not 2 × Margherita"))?;
    Ok(format!("completed via bridge, ran 1×; shop cart: {line}; chip: \"{}\"", chip.detail))
}

async fn rate_limit(v: &Visit) -> E2eResult<String> {
    v.enter_widget().await?;
    for _ in 0..3 {
        v.run_expecting("search pizza", "completed").await?;
    }
    v.run_expecting("search pizza", "failed").await?;
    let chip = v.last_chip().await?;
    check_eq(
        (chip.tool.as_str(), chip.status.as_deref(), chip.retry_after.as_deref()),
        ("search_products", Some("429"), Some("30")),
        "the fourth search's chip (tool, status, retryAfter)",
    )?;
    check(chip.detail.contains("status 429 · retry after 30 s"), || {
        format!("the chip's text does not show status and retry-after: {:?}", chip.detail)
    })?;
    check_eq(v.counter(Site::Shop, "search_products"), 4, "runs of the shop's search_products")?;
    Ok(format!("4th search failed: \"{}\"; ran 4×", chip.detail))
}

async fn checkout_pays_through_pay(v: &Visit) -> E2eResult<String> {
    v.enter_widget().await?;
    v.run_expecting("checkout", "completed").await?;
    let chips = v.chips().await?;
    let states: Vec<(&str, &str)> = chips.iter().map(|chip| (chip.tool.as_str(), chip.state.as_str())).collect();
    check_eq(
        states,
        vec![
            ("add_to_cart", "completed"),
            ("search_products", "completed"),
            ("search_products", "completed"),
            ("search_products", "completed"),
            ("search_products", "failed"),
            ("checkout", "completed"),
        ],
        "the widget's chips",
    )?;
    let receipt = chips.last().map(|chip| chip.detail.clone()).unwrap_or_default();
    check(receipt.contains("Receipt rcpt-"), || format!("the checkout chip shows no receipt: {receipt:?}"))?;
    check_eq(v.counter(Site::Shop, "checkout"), 1, "runs of the shop's checkout")?;
    check_eq(v.counter(Site::Pay, "pay_invoice"), 1, "runs of pay's pay_invoice")?;
    check_eq(v.top_text("#cart-total").await?.as_str(), "€0.00", "the shop's cart total after paying")?;
    v.session.enter_frame_of("#pay-frame", v.demo().origin(Site::Pay)).await?;
    let paid = v
        .session
        .execute("return [...document.querySelectorAll('#invoices li.paid')].map((li) => li.textContent);", vec![])
        .await?;
    let paid = paid.as_array().cloned().unwrap_or_default();
    check(paid.len() == 1, || format!("pay's page should list one paid invoice, lists {}", json!(paid)))?;
    v.session.to_top().await?;
    let invoice = paid.first().and_then(|line| line.as_str()).unwrap_or_default().to_owned();
    Ok(format!("checkout 1×, pay_invoice 1×; chip: \"{receipt}\"; pay shows \"{invoice}\""))
}
