//! Which tab and frame this page is, so that it resumes its own calls and nobody else's (docs/once-only.md §5).
//!
//! The tab id lives in sessionStorage, which browsers copy into a duplicated tab (and into a window opened with
//! `window.open`). The copy is told apart from a reload with a Web Lock of the tab and the frame slot: the
//! original page holds it for as long as it lives and, asked on a BroadcastChannel with a fresh nonce, proves that
//! it knows the tab id; the old page of a reload is gone and releases it.
//!
//! The tab id decides which journal entries are this page's, so it never leaves this tab's sessionStorage: the
//! lock's name and the proofs are one-way functions of it (js/tab_claim.js), and call announcements carry the tab's
//! public label instead, a random value stored beside it and renewed with it, which decides nothing. The claim —
//! its messages, its state and each decision — is the policy's `TabClaim`; this file hands it the browser's events
//! and js/tab_claim.js carries out its effects.

use std::cell::RefCell;
use std::rc::Rc;

use interpane_policy::journal::Owner;
use interpane_policy::session::{Entropy, EntropyError, id_text};
use interpane_policy::tab_probe::{self, ClaimEffect, ClaimInput, ClaimOutcome, Nonce, TabClaim};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::driver::Driver;
use crate::random::CryptoEntropy;
use crate::store::RawStore;
use crate::{console, js};

const TAB_KEY: &str = "webmcp:tab";
/// The tab's public label, renewed with the tab id.
const LABEL_KEY: &str = "webmcp:tab-label";

/// A new tab id and its label, drawn when the bridge installs, so that a page whose random numbers fail does not
/// install rather than name its tab after the clock: the tab id is what proves a tab's journals are its own, and a
/// time can be guessed. They are used when sessionStorage holds no tab id, or holds a live tab's (this page is a
/// copy).
pub(crate) struct FreshTab {
    tab: String,
    label: String,
}

impl FreshTab {
    /// 128 random bits each, in URL-safe base64 after their prefix (`t`, `l`), as the session writes its ids.
    pub fn draw(entropy: &mut CryptoEntropy) -> Result<Self, EntropyError> {
        let mut bytes = [0u8; 32];
        entropy.fill(&mut bytes)?;
        let (tab, label) = bytes.split_at(16);
        Ok(Self { tab: id_text("t", tab), label: id_text("l", label) })
    }
}

/// Claims the tab `tab` for this page in `slot`: `true` unless a live page of the same tab and slot proved itself
/// (this page is a copy). Without Web Locks or Web Crypto nothing can be learned, and the page keeps its tab.
async fn claim(tab: &str, slot: &str) -> bool {
    let secrets = JsFuture::from(js::tab_secrets(tab, slot)).await.unwrap_or(JsValue::NULL);
    let field = |name: &str| js_sys::Reflect::get(&secrets, &JsValue::from_str(name)).ok()?.as_string();
    let (Some(lock), Some(nonce), Some(expected)) = (field("lockName"), field("nonce"), field("expected")) else {
        return true;
    };
    let claim = match TabClaim::new(&lock, &nonce, &expected) {
        Ok(claim) => Rc::new(RefCell::new(claim)),
        Err(error) => {
            console::warn(&format!("cannot tell a reload from a duplicated tab ({error}): this page keeps its tab"));
            return true;
        }
    };
    let step = Closure::<dyn FnMut(String, JsValue, JsValue) -> js_sys::Array>::new({
        let claim = claim.clone();
        move |event: String, data: JsValue, proof: JsValue| step(&claim, &event, data, proof)
    });
    let settled = js::claim_lock(&secrets, tab_probe::CHANNEL, step.as_ref().unchecked_ref());
    let _ = JsFuture::from(settled).await;
    let outcome = claim.borrow().outcome();
    if outcome == Some(ClaimOutcome::Owner) {
        // The tab's page answers probes and takes the lock when its holder lets go for as long as it lives.
        step.forget();
    }
    outcome != Some(ClaimOutcome::Duplicate)
}

/// One event of js/tab_claim.js, handed to the claim; its effects as `[effect, argument]` pairs, in order.
fn step(claim: &RefCell<TabClaim>, event: &str, data: JsValue, proof: JsValue) -> js_sys::Array {
    let effects = js_sys::Array::new();
    let input = match event {
        "taken" => ClaimInput::LockTaken,
        "held" => ClaimInput::LockHeld,
        "failed" => ClaimInput::LockFailed,
        "timeout" => ClaimInput::TimedOut,
        // A value JSON cannot write is none of the channel's messages.
        "message" => match js_sys::JSON::stringify(&data).ok().and_then(|text| text.as_string()) {
            Some(text) => ClaimInput::Message(text),
            None => return effects,
        },
        "proof" => match (data.as_string().and_then(|nonce| Nonce::new(&nonce).ok()), proof.as_string()) {
            (Some(nonce), Some(proof)) => ClaimInput::Proved { nonce, proof },
            _ => return effects,
        },
        _ => return effects,
    };
    let Ok(mut claim) = claim.try_borrow_mut() else { return effects };
    claim.handle(input);
    while let Some(effect) = claim.poll_effect() {
        let (name, argument) = match effect {
            ClaimEffect::Post(text) => ("post", JsValue::from(text)),
            ClaimEffect::StartTimer { ms } => ("timer", JsValue::from(ms)),
            ClaimEffect::StopTimer => ("stop-timer", JsValue::UNDEFINED),
            ClaimEffect::WaitForLock => ("wait", JsValue::UNDEFINED),
            ClaimEffect::StopWaiting => ("stop-waiting", JsValue::UNDEFINED),
            ClaimEffect::HoldLock => ("hold", JsValue::UNDEFINED),
            ClaimEffect::Prove(nonce) => ("prove", JsValue::from(nonce.as_str())),
            ClaimEffect::CloseChannel => ("close", JsValue::UNDEFINED),
            ClaimEffect::Settled(outcome) => ("settled", JsValue::from(outcome_name(outcome))),
        };
        effects.push(&js_sys::Array::of2(&JsValue::from(name), &argument));
    }
    effects
}

fn outcome_name(outcome: ClaimOutcome) -> &'static str {
    match outcome {
        ClaimOutcome::Owner => "owner",
        ClaimOutcome::Duplicate => "duplicate",
        ClaimOutcome::Unknown => "unknown",
    }
}

/// Learns who this page is, opens its journals and resumes its calls; work that needs the journals waits.
pub(crate) fn claim_owner(driver: Rc<Driver>, fresh: FreshTab) {
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
            .unwrap_or_else(|| fresh.label.clone());
        let mut tab = stored.unwrap_or_else(|| fresh.tab.clone());
        if let RawStore::Session(storage) = &raw {
            let _ = storage.set_item(TAB_KEY, &tab);
            let _ = storage.set_item(LABEL_KEY, &label);
            if !claim(&tab, &slot).await {
                // A copy of a live tab: its calls are the original's, not ours. (A fresh tab id is nobody's but
                // this page's, so the claim that failed was of a stored one, and the fresh pair is still unused.)
                (tab, label) = (fresh.tab, fresh.label);
                let _ = storage.set_item(TAB_KEY, &tab);
                let _ = storage.set_item(LABEL_KEY, &label);
                claim(&tab, &slot).await;
            }
        }
        let owner = match Owner::new(tab.clone(), slot) {
            Ok(owner) => owner,
            Err(error) => {
                console::warn(&format!("cannot name this page for its journal ({error}); using memory only"));
                raw = RawStore::Memory(Default::default());
                match Owner::new(tab, "top") {
                    Ok(owner) => owner,
                    Err(_) => return,
                }
            }
        };
        let config = driver.options.journal.clone();
        driver.open_journals(raw, owner, label, config);
    });
}
