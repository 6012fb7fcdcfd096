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
/// The tab's lock token, renewed with the tab id: it names the tab's locks (`js/tab_claim.js` `tokenLockName`) and
/// tells nothing of the tab id, so a page that draws a new tab id can request its lock at once, with no Web Crypto
/// call first. A tab id stored without one (by a version before tokens) names its locks from the tab id instead.
const LOCK_KEY: &str = "webmcp:tab-lock";

/// A new tab id and its label, drawn when the bridge installs, so that a page whose random numbers fail does not
/// install rather than name its tab after the clock: the tab id is what proves a tab's journals are its own, and a
/// time can be guessed. They are used when sessionStorage holds no tab id, or holds a live tab's (this page is a
/// copy).
pub(crate) struct FreshTab {
    tab: String,
    label: String,
    lock: String,
}

impl FreshTab {
    /// 128 random bits each, in URL-safe base64 after their prefix (`t`, `l`, `k`), as the session writes its ids.
    pub fn draw(entropy: &mut CryptoEntropy) -> Result<Self, EntropyError> {
        let mut bytes = [0u8; 48];
        entropy.fill(&mut bytes)?;
        Ok(Self {
            tab: id_text("t", &bytes[..16]),
            label: id_text("l", &bytes[16..32]),
            lock: id_text("k", &bytes[32..]),
        })
    }
}

/// Claims the tab `tab` for this page in `slot`, its lock named by `token` (or by the tab id without one): `true`
/// unless a live page of the same tab and slot proved itself (this page is a copy). Without Web Locks or Web Crypto
/// nothing can be learned, and the page keeps its tab. `first`: the answer of the lock's first request, when it was
/// made already (`js::request_fresh_lock`).
async fn claim(tab: &str, slot: &str, token: Option<&str>, first: Option<&js_sys::Promise>) -> bool {
    let secrets = JsFuture::from(js::tab_secrets(tab, slot, token)).await.unwrap_or(JsValue::NULL);
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
    let settled = js::claim_lock(&secrets, tab_probe::CHANNEL, step.as_ref().unchecked_ref(), first);
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
///
/// A page that finds no tab id draws one, with its lock token, and requests the tab's lock in this task, before any
/// page code runs after it: nothing else can have asked for that lock yet, so the page is the tab's page and opens
/// its journals at once, while the rest of its claim (the channel on which it answers copies' probes) is set up. A
/// page that finds a tab id may be a reload or a copy, and waits for its claim to tell which.
pub(crate) fn claim_owner(driver: Rc<Driver>, fresh: FreshTab) {
    let slot = js::frame_path();
    let (raw, problem) = RawStore::open(driver.options.session_storage);
    if let Some(problem) = problem {
        console::warn(&format!(
            "sessionStorage is unavailable ({problem}): the call journal lives in memory, so a reload of this page \
             cannot resume its calls (see docs/once-only.md §7)"
        ));
    }
    let valid = |text: &String| Owner::new(text.clone(), "top").is_ok();
    // A label and a lock token go with the tab id they were made with: a new tab id gets new ones.
    let stored = raw.get(TAB_KEY).filter(valid).map(|tab| {
        let label = raw.get(LABEL_KEY).filter(valid).unwrap_or_else(|| fresh.label.clone());
        (tab, label, raw.get(LOCK_KEY).filter(valid))
    });
    // A new tab id is this page's by construction: its lock is requested in this task.
    let first = match (&raw, &stored) {
        (RawStore::Session(storage), None) => Some(take_fresh(storage, &fresh, &slot)),
        _ => None,
    };
    wasm_bindgen_futures::spawn_local(async move {
        let Some((mut tab, mut label, token)) = stored else {
            open(&driver, raw, fresh.tab.clone(), slot.clone(), fresh.label);
            // Sets up the channel on which this page answers its copies' probes. (No page can prove itself the
            // holder of this new tab id: that takes its lock token and the tab id, which only this page has.)
            if let Some(first) = first {
                claim(&fresh.tab, &slot, Some(&fresh.lock), Some(&first)).await;
            }
            return;
        };
        if let RawStore::Session(storage) = &raw {
            let _ = storage.set_item(LABEL_KEY, &label);
            if !claim(&tab, &slot, token.as_deref(), None).await {
                // A copy of a live tab: its calls are the original's, not ours. (The fresh tab id is nobody's but
                // this page's, so the claim that failed was of a stored one.)
                let first = take_fresh(storage, &fresh, &slot);
                claim(&fresh.tab, &slot, Some(&fresh.lock), Some(&first)).await;
                (tab, label) = (fresh.tab, fresh.label);
            }
        }
        open(&driver, raw, tab, slot, label);
    });
}

/// Stores the fresh tab id with its label and lock token, and requests the tab's lock.
fn take_fresh(storage: &web_sys::Storage, fresh: &FreshTab, slot: &str) -> js_sys::Promise {
    let _ = storage.set_item(TAB_KEY, &fresh.tab);
    let _ = storage.set_item(LABEL_KEY, &fresh.label);
    let _ = storage.set_item(LOCK_KEY, &fresh.lock);
    js::request_fresh_lock(&fresh.lock, slot)
}

/// Opens the journals of tab `tab` in frame `slot` (memory only when the tab id cannot name them).
fn open(driver: &Driver, mut raw: RawStore, tab: String, slot: String, label: String) {
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
}
