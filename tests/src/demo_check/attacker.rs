//! The attacker pages: `evil /` (cross-origin attacks on the shop and pay it embeds) and `evil /opaque.html`
//! (the same from a sandboxed frame). Each must end with a verdict table where every row is blocked, and
//! the server must have counted no run of any shop or pay tool.

use std::time::Duration;

use interpane_demo_sites::Site;
use interpane_e2e::{E2eError, E2eResult, check, check_eq};
use serde::Deserialize;

use super::runner::Checks;
use super::spy_tally::{self, PageSpy};
use super::visit::Visit;

/// How long an attacker page may take to run every attack (each waits for replies that never come).
const ATTACKS_TIMEOUT: Duration = Duration::from_secs(90);

/// The issue asks for at least this many distinct attacks.
const MIN_ATTACKS: usize = 20;

/// One row of an attacker page's verdict table.
#[derive(Clone, Debug, Deserialize)]
struct Row {
    name: String,
    verdict: String,
    detail: Option<String>,
}

/// Opens `path` on the evil origin, checks its verdict table, and reads its spy.
pub async fn run(visit: &Visit, checks: &mut Checks, name: &str, path: &str) -> PageSpy {
    checks.run(name, nothing_got_through(visit, path)).await;
    spy_tally::read_page(&visit.session, &format!("evil {path}")).await
}

async fn nothing_got_through(v: &Visit, path: &str) -> E2eResult<String> {
    v.session.open(&v.url(Site::Evil, path)).await?;
    let state = match v
        .session
        .wait_for("window.__demo && window.__demo.state !== 'loading' && window.__demo.state", ATTACKS_TIMEOUT)
        .await
    {
        Ok(state) => state,
        Err(error) => return Err(v.with_frames(error).await),
    };
    if state != "done" {
        return Err(v.with_frames(E2eError::Check(format!("the attacker page ended as {state}, not done"))).await);
    }
    let raw = v.session.execute("return window.__demo.results;", vec![]).await?;
    let rows: Vec<Row> =
        serde_json::from_value(raw).map_err(|error| E2eError::Check(format!("unreadable verdict table: {error}")))?;
    let leaked: Vec<String> = rows
        .iter()
        .filter(|row| row.verdict != "blocked")
        .map(|row| format!("{} {}: {}", row.name, row.verdict, row.detail.as_deref().unwrap_or_default()))
        .collect();
    check(leaked.is_empty(), || format!("rows not blocked: {}", leaked.join("; ")))?;
    // Two rows are not attacks: every reply the victims sent, and the server's counters as the page read them.
    let attacks = rows.iter().filter(|row| row.name != "every-reply" && row.name != "server-counters").count();
    check(attacks >= MIN_ATTACKS, || format!("expected at least {MIN_ATTACKS} attacks, the table has {attacks}"))?;
    let on_screen = v
        .session
        .execute(
            "return [...document.querySelectorAll('#results tr[data-verdict]')].map((tr) => tr.dataset.verdict);",
            vec![],
        )
        .await?;
    let on_screen: Vec<String> = serde_json::from_value(on_screen).unwrap_or_default();
    check_eq(on_screen, vec!["blocked".to_owned(); rows.len()], "the verdicts the page shows")?;
    for site in [Site::Shop, Site::Pay] {
        let ran: Vec<(String, u64)> =
            v.demo().counters_of(site).into_iter().filter(|(name, _)| name.starts_with(v.prefix())).collect();
        check_eq(ran, vec![], &format!("{site} tool runs the server counted during the attacks"))?;
    }
    let summary = v.top_text("#summary").await?;
    Ok(format!("{attacks} attacks + 2 checks blocked; shop and pay ran nothing; page: \"{summary}\""))
}
