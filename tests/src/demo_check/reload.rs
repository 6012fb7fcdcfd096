//! A reload in the middle of a call runs it once (docs/once-only.md §2 and §3): the widget asks the shop to
//! check out, the shop is waiting for pay, and then the widget (the caller) or the shop (the provider, with the
//! widget and pay inside it) reloads. The tools ran exactly once, as the server counted, and the new widget
//! page reports the call's outcome with a chip: completed when only the widget reloaded (the shop kept running
//! it and the new page got the result), interrupted when the shop reloaded (the page running it went away).

use interpane_demo_sites::Site;
use interpane_e2e::{E2eError, E2eResult, check, check_eq};
use serde_json::json;

use super::runner::Checks;
use super::spy_tally::{self, PageSpy};
use super::visit::{Chip, RELOAD_WAIT, Visit, WAIT};

/// How long a payment takes in these checks: long enough to reload a page while it runs.
const PAY_DELAY_MS: u64 = 3000;

/// Which page reloads while the checkout runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reloaded {
    /// The widget frame: the caller.
    Widget,
    /// The shop, the top page: the provider of checkout and the caller of pay_invoice.
    Shop,
}

/// Runs the reload check of `reloaded` in `visit`; returns what the spy saw afterwards.
pub async fn run(visit: &Visit, checks: &mut Checks, reloaded: Reloaded) -> PageSpy {
    let (name, page) = match reloaded {
        Reloaded::Widget => ("widget reload mid-checkout runs once", "shop, widget reloaded"),
        Reloaded::Shop => ("shop reload mid-checkout runs once", "shop, reloaded"),
    };
    checks.run(name, reload_mid_checkout(visit, reloaded)).await;
    spy_tally::read_page(&visit.session, page).await
}

async fn reload_mid_checkout(v: &Visit, reloaded: Reloaded) -> E2eResult<String> {
    v.open_shop(&format!("/?payDelayMs={PAY_DELAY_MS}")).await?;
    v.run_expecting("add 1 diavola", "completed").await?;
    let call_id = v.session.execute(START_CHECKOUT, vec![]).await?;
    let call_id = call_id.as_str().unwrap_or_default().to_owned();
    check(!call_id.is_empty(), || "the checkout chip has no call id".to_owned())?;
    // pay_invoice counts its run first: from here the shop's checkout is waiting for the payment.
    v.wait_counter(Site::Pay, "pay_invoice", 1, WAIT).await?;
    match reloaded {
        Reloaded::Widget => reload_current_document(v).await?,
        Reloaded::Shop => {
            v.session.to_top().await?;
            reload_current_document(v).await?;
            v.expect_settled("reloaded shop", "ready").await?;
        }
    }
    v.enter_widget().await?;
    let (expected, shown) = match reloaded {
        // The shop kept running the call: the new widget page asks for it and gets the result (§2).
        Reloaded::Widget => ("completed", Some(outcome_chip(v).await?)),
        // The page running checkout went away (§3). The widget went with it: which widget page learns the
        // outcome depends on whether the old one heard the shop go away before it was unloaded itself.
        Reloaded::Shop => ("interrupted", v.chips().await?.into_iter().find(|chip| chip.tool == "checkout")),
    };
    if let Some(chip) = &shown {
        check_eq(
            (chip.tool.as_str(), chip.state.as_str(), chip.recovered.as_deref()),
            ("checkout", expected, Some("true")),
            &format!("the new widget page's chip (tool, state, recovered; it says \"{}\")", chip.detail),
        )?;
    }
    // The outcome stays recorded under the call's callId: the same callId again gets it, and runs nothing.
    let retried =
        v.session.execute_async(RETRY_CHECKOUT, vec![json!(call_id), json!(v.demo().origin(Site::Shop))]).await?;
    check_eq(retried.as_str().unwrap_or_default(), expected, "executeTool again with the same callId")?;
    check_eq(v.counter(Site::Shop, "checkout"), 1, "runs of the shop's checkout")?;
    check_eq(v.counter(Site::Pay, "pay_invoice"), 1, "runs of pay's pay_invoice")?;
    let seen = match &shown {
        Some(chip) => format!("new widget page: {} (recovered) \"{}\"", chip.state, chip.detail),
        None => "the old widget page settled it as it went away; the new one shows no chip".to_owned(),
    };
    Ok(format!("ran 1× each; same callId again: {expected}, no run; {seen}"))
}

/// Starts a checkout from the widget without waiting for it; returns the call's callId (on its chip).
const START_CHECKOUT: &str = "window.__demo.run('checkout'); \
    return document.querySelector('.chip[data-tool=\"checkout\"]')?.dataset.callId ?? null;";

/// Calls the shop's checkout again with the callId `args[0]` through the widget's bridge (the shop's origin is
/// `args[1]`); resolves to `completed` or the error's code.
const RETRY_CHECKOUT: &str = "const [callId, shop] = args; \
    const tools = await document.modelContext.getTools({ fromOrigins: [shop] }); \
    const checkout = tools.find((tool) => tool.name === 'checkout' && tool.origin === shop); \
    if (!checkout) throw new Error('the new widget page does not see the shop\\'s checkout'); \
    try { await document.modelContext.executeTool(checkout, {}, { callId }); return 'completed'; } \
    catch (error) { return error.kind ?? error.name ?? String(error); }";

/// Reloads the document of the current frame and waits until its successor has loaded.
async fn reload_current_document(v: &Visit) -> E2eResult<()> {
    v.session
        .execute(
            "document.documentElement.dataset.demoCheckOld = '1'; setTimeout(() => location.reload(), 0); return true;",
            vec![],
        )
        .await?;
    v.session
        .wait_for("!document.documentElement.dataset.demoCheckOld && document.readyState === 'complete'", RELOAD_WAIT)
        .await?;
    Ok(())
}

/// Waits until the widget shows the checkout call settled (the page that started it is gone, so the chip is
/// the one the bridge's `toolresult` event made), and returns it.
async fn outcome_chip(v: &Visit) -> E2eResult<Chip> {
    let settled = "(() => { const chip = document.querySelector('.chip[data-tool=\"checkout\"]'); \
        return chip && chip.dataset.state !== 'running' && chip.dataset.state; })()";
    if let Err(error) = v.session.wait_for(settled, RELOAD_WAIT).await {
        let chips = v.chips().await.map_or_else(|error| error.to_string(), |chips| chips.len().to_string());
        let journals = journals(v).await;
        let error = E2eError::Check(format!(
            "{error}\nchips on the new widget page: {chips}; the call's outcome was never reported\n{journals}"
        ));
        return Err(v.with_frames(error).await);
    }
    let chips = v.chips().await?;
    check_eq(chips.len(), 1, "chips on the new widget page")?;
    v.last_chip().await
}

/// The bridge journals (sessionStorage entries `webmcp:…`) of the widget and the shop, for a failure's text.
/// Leaves the session at the top.
async fn journals(v: &Visit) -> String {
    const READ: &str = "return Object.keys(sessionStorage).filter((key) => key.startsWith('webmcp:')).sort()\
        .map((key) => `  ${key} = ${sessionStorage.getItem(key)}`).join('\\n');";
    let mut text = String::new();
    for (page, enter_widget) in [("widget", true), ("shop", false)] {
        let entries = async {
            v.session.to_top().await?;
            if enter_widget {
                v.session.enter_frame("#widget-frame").await?;
            }
            v.session.execute(READ, vec![]).await
        }
        .await;
        let entries = match entries {
            Ok(entries) => entries.as_str().unwrap_or_default().to_owned(),
            Err(error) => format!("  unreadable: {error}"),
        };
        text.push_str(&format!("the {page}'s journal entries:\n{entries}\n"));
    }
    let _ = v.session.to_top().await;
    text
}
