//! Cases that prove the harness and the demo's origins, before any bridge is involved.

use interpane_demo_sites::Site;
use interpane_e2e::session::{DEFAULT_WAIT, js_string};
use interpane_e2e::spy::{check_no_wildcard_posts, spy_logs, wildcard_posts};
use interpane_e2e::{Case, Ctx, E2eResult, case, check, check_eq};
use serde_json::{Value, json};

pub fn cases() -> Vec<Case> {
    vec![
        case!("harness::four_origins_are_distinct_and_secure", four_origins_are_distinct_and_secure),
        case!("harness::iframe_sees_its_parents_origin", iframe_sees_its_parents_origin),
        case!("harness::session_storage_works_in_a_cross_site_iframe", session_storage_works_in_a_cross_site_iframe),
        case!("harness::spy_records_the_bridge_hook_and_ports", spy_records_the_bridge_hook_and_ports),
        case!("harness::counters_refuse_other_origins", counters_refuse_other_origins),
    ]
}

/// Each site's page reports its own origin; the four differ; each is a secure context (loopback), which
/// Web Locks and other APIs the bridge may use require.
async fn four_origins_are_distinct_and_secure(t: Ctx) -> E2eResult<()> {
    let mut seen = Vec::new();
    for site in Site::ALL {
        t.open(site, "/").await?;
        let reported = t.session.wait_for("document.getElementById('origin')?.textContent", DEFAULT_WAIT).await?;
        let facts = t.session.execute("return [location.origin, self.origin, isSecureContext];", vec![]).await?;
        let expected = t.origin(site);
        check_eq(reported.as_str(), Some(expected), &format!("origin shown by the {site} page"))?;
        check_eq(
            facts,
            json!([expected, expected, true]),
            &format!("{site}: [location.origin, self.origin, isSecureContext]"),
        )?;
        seen.push(expected.to_owned());
    }
    seen.sort();
    seen.dedup();
    check_eq(seen.len(), 4, "distinct origins")
}

/// A cross-origin iframe (the widget in the shop) receives its parent's postMessage with the parent's origin
/// as `event.origin` and the parent as `event.source`.
async fn iframe_sees_its_parents_origin(t: Ctx) -> E2eResult<()> {
    let shop = t.origin(Site::Shop).to_owned();
    let widget = t.origin(Site::Widget).to_owned();
    t.open(Site::Shop, "/").await?;
    t.session.wait_for("document.getElementById('widget-frame').src", DEFAULT_WAIT).await?;
    t.session.enter_frame_of("#widget-frame", &widget).await?;
    t.session
        .execute(
            "window.__pings = []; addEventListener('message', (e) => { if (e.data && e.data.type === 'e2e-ping') \
             window.__pings.push({ origin: e.origin, fromParent: e.source === parent, nonce: e.data.nonce }); }); \
             return true;",
            vec![],
        )
        .await?;
    t.session.to_top().await?;
    let post = format!(
        "document.getElementById('widget-frame').contentWindow.postMessage({{ type: 'e2e-ping', nonce: arguments[0] }}, {});",
        js_string(&widget)
    );
    t.session.execute(&post, vec![json!("n-1")]).await?;
    t.session.enter_frame_of("#widget-frame", &widget).await?;
    let pings = t.session.wait_for("window.__pings.length > 0 && window.__pings", DEFAULT_WAIT).await?;
    check_eq(pings, json!([{ "origin": shop, "fromParent": true, "nonce": "n-1" }]), "messages the widget received")
}

/// sessionStorage works inside the cross-site widget iframe (no SecurityError), survives the top page's
/// reload, and is partitioned: the widget opened at the top level does not see the iframe's entry.
async fn session_storage_works_in_a_cross_site_iframe(t: Ctx) -> E2eResult<()> {
    let widget = t.origin(Site::Widget).to_owned();
    t.open(Site::Shop, "/").await?;
    t.session.enter_frame_of("#widget-frame", &widget).await?;
    let stored = t
        .session
        .execute("sessionStorage.setItem('e2e', 'in the iframe'); return sessionStorage.getItem('e2e');", vec![])
        .await?;
    check_eq(stored, json!("in the iframe"), "sessionStorage read back in the iframe")?;

    t.open(Site::Shop, "/").await?;
    t.session.enter_frame_of("#widget-frame", &widget).await?;
    let after_reload = t.session.execute("return sessionStorage.getItem('e2e');", vec![]).await?;
    check_eq(after_reload, json!("in the iframe"), "the iframe's entry after the shop reloaded")?;

    t.open(Site::Widget, "/").await?;
    let top_level = t.session.execute("return sessionStorage.getItem('e2e');", vec![]).await?;
    check_eq(top_level, Value::Null, "the entry seen by the widget at the top level (partitioned: none)")
}

/// The test-mode spy records what the bridge's audit hook reports and MessagePort posts, with their target
/// origins, and the '*' check finds a wildcard post. It does not see a page's own window.postMessage (it does not
/// wrap it: see spy.js), nor a post to a cross-origin window, which runs a function the browser makes for the
/// caller (shown here, so that a change is noticed).
async fn spy_records_the_bridge_hook_and_ports(t: Ctx) -> E2eResult<()> {
    let shop = t.origin(Site::Shop).to_owned();
    let widget = t.origin(Site::Widget).to_owned();
    t.open(Site::Shop, "/").await?;
    t.session.wait_for("document.getElementById('widget-frame').src", DEFAULT_WAIT).await?;
    t.session.enter_frame_of("#widget-frame", &widget).await?;
    t.session.to_top().await?;
    t.session
        .execute(
            "window[Symbol.for('interpane.postObserver')](location.origin, { type: 'e2e-bridge' }); \
             new MessageChannel().port1.postMessage({ type: 'e2e-port' }); \
             window.postMessage({ type: 'e2e-self' }, location.origin); \
             document.getElementById('widget-frame').contentWindow.postMessage({ type: 'e2e-cross' }, arguments[0]); \
             return true;",
            vec![json!(widget)],
        )
        .await?;
    let logs = check_no_wildcard_posts(&t.session).await?;
    let top = logs.iter().find(|log| log.path.is_empty()).map(|log| log.records.clone());
    // The page's own window.postMessage is not wrapped (see spy.js): only the bridge's hook and ports are seen.
    let expected = json!([
        { "via": "bridge", "targetOrigin": shop, "type": "e2e-bridge" },
        { "via": "port", "targetOrigin": null, "type": "e2e-port" },
    ]);
    let expected: Vec<interpane_e2e::spy::PostRecord> =
        serde_json::from_value(expected).map_err(|e| interpane_e2e::E2eError::Check(e.to_string()))?;
    let top_e2e = top
        .flatten()
        .map(|records| records.into_iter().filter(|r| r.message_type.starts_with("e2e-")).collect::<Vec<_>>());
    check_eq(top_e2e, Some(expected), "the shop's spy log")?;
    let cross_seen = logs.iter().flat_map(|log| log.records.iter().flatten()).any(|r| r.message_type == "e2e-cross");
    check(!cross_seen, || "a spy saw a post to a cross-origin window: the spy's documented limit changed".into())?;
    check(logs.len() >= 3, || format!("expected the shop and its two frames, got {logs:?}"))?;

    t.session
        .execute("window[Symbol.for('interpane.postObserver')]('*', { type: 'e2e-wildcard' }); return true;", vec![])
        .await?;
    let logs = spy_logs(&t.session).await?;
    let wildcards: Vec<String> = wildcard_posts(&logs).iter().map(|(_, r)| r.message_type.clone()).collect();
    check_eq(wildcards, vec!["e2e-wildcard".to_owned()], "wildcard posts found")?;
    check(check_no_wildcard_posts(&t.session).await.is_err(), || "the '*' check passed a page that used '*'".into())
}

/// A page of another origin (evil) can neither count nor reset the shop's counters; the shop's own page can.
async fn counters_refuse_other_origins(t: Ctx) -> E2eResult<()> {
    let name = format!("{}probe", t.counter_prefix());
    let increment = json!(format!("{}/__counter/{name}", t.origin(Site::Shop)));
    let reset = json!(format!("{}/__counters/reset", t.origin(Site::Shop)));
    let post_from_evil = "await fetch(args[0], { method: 'POST', mode: 'no-cors' }); return true;";

    t.open(Site::Evil, "/").await?;
    check_eq(t.session.execute_async(post_from_evil, vec![increment.clone()]).await?, json!(true), "evil's POST sent")?;
    check_eq(t.counter(Site::Shop, "probe"), 0, "shop counter after evil's POST")?;

    t.open(Site::Shop, "/").await?;
    let own_post = "const r = await fetch(args[0], { method: 'POST' }); return (await r.json()).value;";
    let value = t.session.execute_async(own_post, vec![json!(format!("/__counter/{name}"))]).await?;
    check_eq(value, json!(1), "value returned to the shop's own page")?;
    check_eq(t.counter(Site::Shop, "probe"), 1, "shop counter after the shop's own POST")?;

    t.open(Site::Evil, "/").await?;
    check_eq(t.session.execute_async(post_from_evil, vec![reset]).await?, json!(true), "evil's reset sent")?;
    check_eq(t.counter(Site::Shop, "probe"), 1, "shop counter after evil's reset")?;

    t.reset_counters();
    check_eq(t.counter(Site::Shop, "probe"), 0, "after the harness reset this case's counters")
}
