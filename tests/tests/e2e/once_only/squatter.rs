//! A page of the caller's origin in another tab that tries to take the caller's tab (docs/once-only.md §5,
//! docs/SECURITY.md): it hears every call announcement, sees every Web Lock name of the origin, squats every lock
//! it can see or guess and answers every duplicate-tab probe with everything it has learned. None of that may
//! make the caller's reload take a new tab id, and so run again a `callId` that already ran.

use interpane_demo_sites::Site;
use interpane_e2e::session::DEFAULT_WAIT;
use interpane_e2e::{Ctx, Doing, E2eResult, check, check_eq};
use serde_json::{Value, json};

use super::pages::{Layout, Pages};

/// How often the scenario runs: each reload of the squatted tab waits for the claim's timeout (3 s).
const SQUATTED_REPETITIONS: usize = 5;

/// The squatter, run in a document of the caller's origin in another tab. It learns every string it can read
/// (announcements on `interpane:calls`, where it says it listens and answers hellos as a bridge does, messages
/// on `webmcp-bridge`, the tab probe's channel, the names of `navigator.locks.query()`),
/// queues for every lock it sees (and for `webmcp:<string>:top` for every string it heard), and answers every
/// probe it hears, once with each string it learned in every field the probe has, and in `alive` and `proof`.
const SQUATTER: &str = r#"
if (window.__squat) return true;
const squat = { learned: new Set(), requested: new Set(), granted: [], probes: 0, answers: 0 };
window.__squat = squat;
const learn = (value, depth = 0) => {
  if (typeof value === "string") squat.learned.add(value);
  else if (value && typeof value === "object" && depth < 6) for (const v of Object.values(value)) learn(v, depth + 1);
};
const take = (name) => {
  if (squat.requested.has(name)) return;
  squat.requested.add(name);
  navigator.locks.request(name, () => { squat.granted.push(name); return new Promise(() => {}); }).catch(() => {});
};
squat.sweep = async () => {
  const state = await navigator.locks.query();
  for (const lock of [...state.held, ...state.pending]) {
    learn(lock.name);
    take(lock.name);
  }
  for (const value of [...squat.learned]) if (!value.startsWith("webmcp:")) take(`webmcp:${value}:top`);
  return [...squat.requested];
};
const calls = new BroadcastChannel("interpane:calls");
calls.onmessage = (event) => {
  // It answers every starting bridge's hello, as a bridge does, so that every page of the caller announces to it.
  if (event.data?.kind === "webmcp-call-watcher" && event.data.hello === true) {
    calls.postMessage({ kind: "webmcp-call-watcher" });
  }
  learn(event.data);
  squat.sweep();
};
calls.postMessage({ kind: "webmcp-call-watcher", hello: true });
const probes = new BroadcastChannel("webmcp-bridge");
probes.onmessage = (event) => {
  const message = event.data;
  learn(message);
  if (!message || typeof message !== "object" || "alive" in message || "proof" in message) return;
  squat.probes += 1;
  for (const value of [...squat.learned]) {
    const every = Object.fromEntries(Object.keys(message).map((key) => [key, value]));
    probes.postMessage({ ...message, alive: message.probe ?? value, proof: value });
    probes.postMessage({ ...every, alive: value, proof: value });
    squat.answers += 2;
  }
};
setInterval(() => squat.sweep(), 20);
return true;
"#;

/// The caller's tab (caller at the top, provider in its frame) calls and the call completes; a page of the same
/// origin in another tab has heard the call's announcement and queued for every lock it can see. The caller
/// reloads (the squatter gets the lock its old page let go, and answers the new page's probe), then calls again
/// with the same `callId`: the recorded result comes back, the tool does not run again, and the reloaded page
/// keeps its tab id. Before the fix, the squatter's answer made the reloaded page take a new tab id, and the
/// call ran twice.
pub async fn same_origin_page_cannot_take_a_reloaded_tab(t: Ctx) -> E2eResult<()> {
    let mut pages = Pages::open(&t, &t.session, Layout::CallerOnTop, "").await?;
    let client = t.session.client();
    let caller = client.window().await.doing("reading the window handle")?;
    let tab = pages.in_caller("return window.__once.tab();", vec![]).await?;
    let squatter = client.new_window(true).await.doing("opening the squatter's tab")?.handle;
    client.switch_to_window(squatter.clone()).await.doing("switching to the squatter")?;
    pages.lost_focus();
    // Any document of the shop's origin will do: the squatter needs no bridge.
    t.session.open(&t.url(Site::Shop, "/config.js")).await?;
    check_eq(t.session.execute(SQUATTER, vec![]).await?, json!(true), "the squatter started")?;

    for rep in 0..SQUATTED_REPETITIONS {
        let id = format!("s10r{rep:02}");
        client.switch_to_window(caller.clone()).await.doing("switching to the caller")?;
        pages.lost_focus();
        pages.call(&id, json!({})).await?;
        pages.expect(&id, &["pr.completed", "ev.completed"], &[("", 1), ("returned", 1)]).await?;

        client.switch_to_window(squatter.clone()).await.doing("switching to the squatter")?;
        pages.lost_focus();
        let heard = format!("window.__squat.learned.has({})", Value::String(id.clone()));
        t.session.wait_for(&heard, DEFAULT_WAIT).await?;
        let requested = t.session.execute_async("return await window.__squat.sweep();", vec![]).await?;
        let squats = requested.as_array().map_or(0, |names| names.len());
        check(squats > 0, || format!("the squatter saw no lock of the caller's tab: {requested}"))?;

        client.switch_to_window(caller.clone()).await.doing("switching to the caller")?;
        pages.lost_focus();
        pages.reload_caller().await?;
        check_eq(pages.retry(&id, json!({})).await?, "completed".to_owned(), &format!("retry of {id}"))?;
        pages.expect(&id, &["pr.completed", "ev.completed", "rp.completed"], &[("", 1), ("returned", 1)]).await?;
        let kept = pages.in_caller("return window.__once.tab();", vec![]).await?;
        check_eq(&kept, &tab, &format!("the caller's tab id after the reload of {id}"))?;
        pages.expect_nothing_pending().await?;
    }

    client.switch_to_window(squatter).await.doing("switching to the squatter")?;
    pages.lost_focus();
    let facts = "const s = window.__squat; return { granted: s.granted.length, probes: s.probes, \
        knowsTab: [...s.learned].some((v) => v.includes(arguments[0])) };";
    let facts = t.session.execute(facts, vec![tab.clone()]).await?;
    // Nothing another page can read tells the tab id (announcements, lock names, probes and their answers).
    check_eq(&facts["knowsTab"], &json!(false), "whether the squatter learned the caller's tab id")?;
    // The scenario is only a test if the squatter really held a lock and heard the reloaded pages' probes.
    check(facts["granted"].as_u64().unwrap_or(0) > 0, || format!("the squatter never got a lock: {facts}"))?;
    check(facts["probes"].as_u64().unwrap_or(0) > 0, || format!("the squatter heard no probe: {facts}"))?;
    client.close_window().await.doing("closing the squatter's tab")?;
    client.switch_to_window(caller).await.doing("switching back to the caller")?;
    pages.lost_focus();
    pages.finish("same_origin_page_cannot_take_a_reloaded_tab").await
}
