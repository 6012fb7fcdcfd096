//! Which tab and frame this page is, so that it resumes its own calls and nobody else's (docs/once-only.md §5).
//!
//! The tab id lives in sessionStorage, which browsers copy into a duplicated tab (and into a window opened with
//! `window.open`). The copy is told apart from a reload with a Web Lock of the tab and the frame slot: the
//! original page holds it for as long as it lives and, asked on a BroadcastChannel with a fresh nonce, proves that
//! it knows the tab id; the old page of a reload is gone and releases it.
//!
//! The tab id decides which journal entries are this page's, so it never leaves this tab's sessionStorage: the
//! lock's name and the proofs are one-way functions of it (js/tab_claim.js), and call announcements carry the tab's
//! public label instead, a random value stored beside it and renewed with it, which decides nothing. What the tab's
//! page does with what it learns is decided by the policy (`claim_step`).

use std::rc::Rc;

use interpane_policy::journal::{ClaimEvent, ClaimStep, ConsumerJournal, Owner, ProviderJournal, claim_step};
use interpane_policy::log_store::LogStore;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::driver::Driver;
use crate::store::{AliveMarker, RawStore};
use crate::{console, js, random};

const TAB_KEY: &str = "webmcp:tab";
/// The tab's public label, renewed with the tab id.
const LABEL_KEY: &str = "webmcp:tab-label";

/// The tab probe's channel keeps the name it had before the project was renamed (interpane, 0.1.0), as do the
/// `webmcp:` storage keys: a page still on an earlier version and a duplicate of it on this one must find each
/// other's tab claim, or both could resume the same call.
const CHANNEL: &str = "webmcp-bridge";
/// How long a page whose lock is held waits for the holder's proof (a live page of the tab answers within
/// milliseconds) or for the lock, before it concludes that the holder is not of its tab and keeps the tab.
const CLAIM_TIMEOUT_MS: u32 = 3000;

fn new_tab_id() -> String {
    random::random_id("t").unwrap_or_else(|_| format!("t{}", js_sys::Date::now() as u64))
}

fn new_label() -> String {
    random::random_id("l").unwrap_or_else(|_| format!("l{}", js_sys::Date::now() as u64))
}

/// Claims the tab `tab` for this page in `slot`: `true` unless a live page of the same tab and slot proved itself
/// (this page is a copy). The policy decides each step; js/tab_claim.js does the locking, probing and proving.
async fn claim(tab: &str, slot: &str) -> bool {
    let decide = Closure::<dyn FnMut(String, bool) -> JsValue>::new(|event: String, proven: bool| {
        let event = match event.as_str() {
            "taken" => ClaimEvent::LockTaken,
            "held" => ClaimEvent::LockHeld,
            "answer" => ClaimEvent::Answer { proven },
            "timeout" => ClaimEvent::TimedOut,
            _ => return JsValue::from_str("wait"),
        };
        JsValue::from_str(match claim_step(event) {
            ClaimStep::Owner => "owner",
            ClaimStep::Duplicate => "duplicate",
            ClaimStep::Probe => "probe",
            ClaimStep::Wait => "wait",
        })
    });
    let answer =
        JsFuture::from(js::claim_lock(tab, slot, CHANNEL, CLAIM_TIMEOUT_MS, decide.as_ref().unchecked_ref())).await;
    // js/tab_claim.js never calls `decide` once the claim has settled, so it may go now.
    drop(decide);
    answer.ok().and_then(|a| a.as_string()).as_deref() != Some("duplicate")
}

/// Learns who this page is, opens its journals and resumes its calls; work that needs the journals waits.
pub(crate) fn claim_owner(driver: Rc<Driver>) {
    wasm_bindgen_futures::spawn_local(async move {
        let session = driver.options.session_storage;
        let slot = js::frame_path();
        let (mut raw, problem) = RawStore::open(session);
        if let Some(problem) = problem {
            console::warn(&format!(
                "sessionStorage is unavailable ({problem}): the call journal lives in memory, so a reload of this page \
                 cannot resume its calls (see docs/once-only.md §7)"
            ));
        }
        let stored = raw.get(TAB_KEY).filter(|t| Owner::new(t.clone(), "top").is_ok());
        // A label goes with the tab id it was made with: a new tab id gets a new label.
        let mut label = stored
            .as_ref()
            .and(raw.get(LABEL_KEY))
            .filter(|l| Owner::new(l.clone(), "top").is_ok())
            .unwrap_or_else(new_label);
        let mut tab = stored.unwrap_or_else(new_tab_id);
        if let RawStore::Session(storage) = &raw {
            let _ = storage.set_item(TAB_KEY, &tab);
            let _ = storage.set_item(LABEL_KEY, &label);
            if !claim(&tab, &slot).await {
                // A copy of a live tab: its calls are the original's, not ours.
                tab = new_tab_id();
                label = new_label();
                let _ = storage.set_item(TAB_KEY, &tab);
                let _ = storage.set_item(LABEL_KEY, &label);
                claim(&tab, &slot).await;
            }
        }
        let owner = match Owner::new(tab, slot) {
            Ok(owner) => owner,
            Err(error) => {
                console::warn(&format!("cannot name this page for its journal ({error}); using memory only"));
                raw = RawStore::Memory(Default::default());
                match Owner::new(new_tab_id(), "top") {
                    Ok(owner) => owner,
                    Err(_) => return,
                }
            }
        };
        let now = js_sys::Date::now() as u64;
        let config = driver.options.journal.clone();
        let mut consumer_log =
            LogStore::open(&mut raw, &format!("webmcp:log:c:{}:{}:", owner.tab(), owner.slot()), now);
        let mut provider_log =
            LogStore::open(&mut raw, &format!("webmcp:log:p:{}:{}:", owner.tab(), owner.slot()), now);
        for discarded in consumer_log.take_discarded().into_iter().chain(provider_log.take_discarded()) {
            console::warn(&format!(
                "discarded a journal record it cannot read ({}: {})",
                discarded.key, discarded.reason
            ));
        }
        let (mut consumer, recoveries) = ConsumerJournal::open(consumer_log, owner.clone(), config.clone(), now);
        // Entries are encoded when the store flushes (batched), each once in its latest state.
        consumer.defer_writes();
        let alive = match &raw {
            RawStore::Session(storage) => Some(AliveMarker::new(storage.clone(), &owner)),
            RawStore::Memory(_) => None,
        };
        let mut provider = ProviderJournal::open(provider_log, owner, config, now);
        provider.defer_writes();
        if let Some(alive) = &alive {
            if alive.previous_page_crashed() {
                console::warn(
                    "the previous page of this frame did not go away cleanly (a crash?): for a day, this page will not run a re-sent call it cannot prove it never received",
                );
                provider.previous_page_crashed(now);
            }
            alive.alive();
        }
        for warning in consumer.take_warnings().into_iter().chain(provider.take_warnings()) {
            console::warn(&format!("journal: {warning}"));
        }
        *driver.alive.borrow_mut() = alive;
        driver.open_journals(raw, consumer, provider, label, recoveries);
    });
}
