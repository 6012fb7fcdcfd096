//! The test pages of the cross-origin and interop cases (`/e2e/peer.html` on every site, driven through
//! `window.__e2e`, see `demo-sites/static/common/e2e/peer.js`), and the checks they share.

use std::time::{Duration, Instant};

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::spy::{FrameLog, PostRecord, spy_logs};
use interpane_e2e::{Ctx, E2eError, E2eResult, check, check_eq};
use serde_json::{Value, json};

/// How often a server counter is read while waiting for it.
const COUNTER_POLL: Duration = Duration::from_millis(20);

/// A page of a case: the top document of the current window, or one of its iframes (by element id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    Top,
    Frame(&'static str),
}

/// Who provides and who consumes in one direction of a case, and the sites of both.
#[derive(Clone, Copy, Debug)]
pub struct Direction {
    pub provider: Page,
    pub provider_site: Site,
    pub consumer: Page,
    pub consumer_site: Site,
    /// Prefixes the tool names of this direction, so that both directions can run on the same pages.
    pub tag: &'static str,
}

/// The shop at the top exposes to the widget, the widget iframe `#w` consumes.
pub const HOST_PROVIDES: Direction = Direction {
    provider: Page::Top,
    provider_site: Site::Shop,
    consumer: Page::Frame("w"),
    consumer_site: Site::Widget,
    tag: "host",
};

/// The widget iframe `#w` exposes to the shop, the shop at the top consumes.
pub const FRAME_PROVIDES: Direction = Direction {
    provider: Page::Frame("w"),
    provider_site: Site::Widget,
    consumer: Page::Top,
    consumer_site: Site::Shop,
    tag: "frame",
};

/// Both directions of a host page and its iframe.
pub const BOTH_DIRECTIONS: [Direction; 2] = [HOST_PROVIDES, FRAME_PROVIDES];

impl Direction {
    /// The name of this direction's tool `what`, e.g. `host_echo`.
    pub fn tool(&self, what: &str) -> String {
        format!("{}_{what}", self.tag)
    }
}

/// The query of a peer page: `kind=bridge|plain|none`, and `expose=` site names.
pub fn peer_path(kind: &str, expose: &[Site]) -> String {
    let expose: Vec<&str> = expose.iter().map(|site| site.name()).collect();
    format!("/e2e/peer.html?kind={kind}&expose={}", expose.join(","))
}

/// Opens the peer page of `site` at the top of the window and waits until it is ready.
pub async fn open_top(t: &Ctx, site: Site, path: &str) -> E2eResult<()> {
    t.open(site, path).await?;
    check_eq(t.session.wait_page_settled().await?, "ready".to_owned(), &format!("state of {site}{path}"))
}

/// Makes `page` the current frame (from the top of the current window).
pub async fn go(t: &Ctx, page: Page) -> E2eResult<()> {
    t.session.to_top().await?;
    if let Page::Frame(id) = page {
        t.session.enter_frame(&format!("#{id}")).await?;
    }
    Ok(())
}

/// Runs `body` (an async function body; `e2e` is the page's `window.__e2e`, `args` the arguments) in `page`.
pub async fn js(t: &Ctx, page: Page, body: &str, args: Vec<Value>) -> E2eResult<Value> {
    go(t, page).await?;
    t.session.execute_async(&format!("const e2e = window.__e2e; {body}"), args).await
}

/// Embeds the peer page `path` of `site` in `page` as iframe `#id`; fails unless it reports ready.
pub async fn embed(t: &Ctx, page: Page, id: &str, site: Site, path: &str) -> E2eResult<()> {
    let url = format!("{}{path}", t.origin(site));
    let state = js(t, page, "return await e2e.embed(args[0], args[1]);", vec![json!(id), json!(url)]).await?;
    check_eq(state, json!("ready"), &format!("state of the {site} frame #{id}"))
}

/// The host-and-iframe pair most cases use: the shop at the top exposing to the widget, the widget in iframe
/// `#w` exposing to the shop, both of `kind` (`bridge` or `plain`) as given.
pub async fn open_pair(t: &Ctx, top_kind: &str, frame_kind: &str) -> E2eResult<()> {
    open_top(t, Site::Shop, &peer_path(top_kind, &[Site::Widget])).await?;
    embed(t, Page::Top, "w", Site::Widget, &peer_path(frame_kind, &[Site::Shop])).await
}

/// Registers a tool in `page`: `tool` is `{ name, body, inputSchema?, ... }` (see common/e2e/tools.js),
/// `options` `{ exposedTo?: [site names] }`.
pub async fn register(t: &Ctx, page: Page, tool: Value, options: Value) -> E2eResult<()> {
    js(t, page, "return e2e.register(args[0], args[1]);", vec![tool, options]).await.map(drop)
}

/// Lists tools in `page` (`options` as getTools takes them, with site names); returns sorted `[name, origin]`.
pub async fn list(t: &Ctx, page: Page, options: Value) -> E2eResult<Value> {
    js(t, page, "return await e2e.list(args[0]);", vec![options]).await
}

/// Calls the listed tool `name` from `page`; returns the outcome (`{ ok, value }` or the error's fields).
pub async fn call(t: &Ctx, page: Page, name: &str, args: Value) -> E2eResult<Value> {
    js(t, page, "return await e2e.call(args[0], args[1]);", vec![json!(name), args]).await
}

/// `[name, origin]` pairs, sorted like `e2e.list` sorts them.
pub fn listing(entries: &[(&str, &str)]) -> Value {
    let mut entries: Vec<(&str, &str)> = entries.to_vec();
    entries.sort();
    Value::Array(entries.into_iter().map(|(name, origin)| json!([name, origin])).collect())
}

/// Waits until `site`'s counter `name` (this case's prefix added) is `expected`.
pub async fn wait_counter(t: &Ctx, site: Site, name: &str, expected: u64) -> E2eResult<()> {
    let started = Instant::now();
    loop {
        let value = t.counter(site, name);
        if value == expected {
            return Ok(());
        }
        if started.elapsed() > DEFAULT_WAIT {
            return Err(E2eError::Check(format!("{site}'s counter {name} stayed {value}, expected {expected}")));
        }
        tokio::time::sleep(COUNTER_POLL).await;
    }
}

/// Waits until `condition` (an expression over `e2e`) is truthy in `page`; returns its value.
pub async fn wait_in(t: &Ctx, page: Page, condition: &str) -> E2eResult<Value> {
    go(t, page).await?;
    t.session.wait_for(&format!("(() => {{ const e2e = window.__e2e; return {condition}; }})()"), DEFAULT_WAIT).await
}

/// The spy log of `page` (its own frame only).
pub async fn spy_log(t: &Ctx, page: Page) -> E2eResult<Vec<PostRecord>> {
    go(t, page).await?;
    let raw = t.session.execute("return window.__postMessageLog || null;", vec![]).await?;
    let records: Option<Vec<PostRecord>> =
        serde_json::from_value(raw).map_err(|error| E2eError::Check(format!("unreadable spy log: {error}")))?;
    records.ok_or_else(|| E2eError::Check(format!("{page:?} has no postMessage spy (is test mode on?)")))
}

/// Whether a frame shows a plain WebMCP peer page, whose own posts to '*' are the polyfill's habit, not ours.
fn is_plain_peer(log: &FrameLog) -> bool {
    log.url.contains("kind=plain")
}

/// The check of every page a case opened (in the current window): every frame has the spy; no `postMessage` of
/// the bridge (entries `via: "bridge"`, from its audit hook) named `'*'`; no other post to `'*'` either, except
/// in plain-peer pages. Fails too when no frame recorded a single bridge post, since then the hook saw nothing
/// and the check would prove nothing. Returns the logs.
pub async fn check_bridge_never_posts_to_star(t: &Ctx) -> E2eResult<Vec<FrameLog>> {
    let logs = spy_logs(&t.session).await?;
    let unspied: Vec<&str> = logs
        .iter()
        .filter(|log| log.records.is_none() && log.url.starts_with("http"))
        .map(|l| l.url.as_str())
        .collect();
    check(unspied.is_empty(), || format!("pages without the postMessage spy (is test mode on?): {unspied:?}"))?;
    let mut bridge_posts = 0;
    let mut wildcards = Vec::new();
    for log in &logs {
        for record in log.records.iter().flatten() {
            let by_bridge = record.via == "bridge";
            bridge_posts += usize::from(by_bridge);
            if record.target_origin.as_deref() == Some("*") && (by_bridge || !is_plain_peer(log)) {
                wildcards.push(format!("{} posted {} to '*' via {}", log.url, record.message_type, record.via));
            }
        }
        check(log.dropped == 0, || format!("{} dropped {} spy records", log.url, log.dropped))?;
    }
    check(wildcards.is_empty(), || format!("postMessage used '*': {}", wildcards.join("; ")))?;
    check(bridge_posts > 0, || "no frame recorded a post of the bridge: is its audit hook wired to the spy?".into())?;
    Ok(logs)
}

/// Whether `outcome` (a failed call's fields) has `code`; returns the outcome for a message.
pub fn check_code(outcome: &Value, code: &str, what: &str) -> E2eResult<()> {
    check(outcome["ok"] == json!(false) && outcome["kind"] == json!(code), || {
        format!("{what}: expected a failure with code {code:?}, got {outcome}")
    })
}
