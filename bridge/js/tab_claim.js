// Which tab and frame slot this page is (docs/once-only.md §5): a Web Lock and a BroadcastChannel probe. This module
// does the browser's part only — the lock requests, the channel, the timer, and the HMAC-SHA-256 values keyed with
// the tab id. Every decision and every message is the policy's claim (interpane_policy::tab_probe::TabClaim, driven
// by tab.rs): each event goes to `step`, and the effects it answers are carried out in order.
//
// Nothing another page can read lets it claim the tab: the lock's name and every proof are HMAC-SHA-256 values
// keyed with the tab id, which stays in this tab's sessionStorage. A probe carries a fresh random nonce, and only a
// page that knows the tab id can answer it with the proof for it.

import { listen, stopListening } from "./cache.js";

// The name of the lock of the tab whose lock token is `token`, in frame `slot`. The token is a random value stored
// beside the tab id (a copy of the tab has it too) that tells nothing of the tab id.
function tokenLockName(token, slot) {
  return `webmcp:lock:${token}:${slot}`;
}

// The tab's lock as this page holds it: `{ name, release }` while held; `{ name, release: null, asking }` once the
// page let go of it (`asking`: the AbortController of its request to have it again). Firefox keeps a page that
// holds a Web Lock out of its back/forward cache, so the page lets go of the lock when a navigation that replaces
// it starts, and asks for it again when it stays after all, comes back from that cache, or is still here
// RETAKE_MS later (a navigation that ends with no event, e.g. a 204 response).
let tabLock = null;
const RETAKE_MS = 5000;

// The promise a lock request's callback returns to hold lock `name` until the page lets go of it.
function holding(name) {
  return new Promise((release) => {
    tabLock = { name, release, asking: null };
  });
}

// Lets go of the tab's lock, if this page holds it or asks for it again.
export function letGoOfTabLock() {
  if (!tabLock) return;
  const { name, release, asking } = tabLock;
  tabLock = { name, release: null, asking: null };
  asking?.abort();
  release?.();
  if (release) setTimeout(takeTabLockAgain, RETAKE_MS);
}

// Asks for the tab's lock again after the page let go of it; the page holds it once it is granted.
export function takeTabLockAgain() {
  if (!tabLock || tabLock.release || tabLock.asking) return;
  const asking = new AbortController();
  const again = { name: tabLock.name, release: null, asking };
  tabLock = again;
  navigator.locks
    .request(again.name, { signal: asking.signal }, () => (tabLock === again ? holding(again.name) : undefined))
    .catch(() => {});
}

// Requests the lock of a tab id this page has just drawn (its lock token `token`, in frame `slot`), at once
// (`ifAvailable`), and holds it while the page lives (but for navigations: `letGoOfTabLock`) if it is granted. Resolves "taken", "held" or "failed". It is called in the task that
// stored the new tab id, before any page code runs after it: a copy of this tab's sessionStorage (a duplicated tab,
// a window.open) can only ask for the lock after this request, and Web Locks grants requests in the order they came.
export function requestFreshLock(token, slot) {
  const locks = globalThis.navigator?.locks;
  const lockName = tokenLockName(token, slot);
  if (!locks) return Promise.resolve("failed");
  return new Promise((resolve) => {
    try {
      locks
        .request(lockName, { ifAvailable: true }, (lock) => {
          resolve(lock ? "taken" : "held");
          return lock ? holding(lockName) : undefined;
        })
        .catch(() => resolve("failed"));
    } catch {
      resolve("failed");
    }
  });
}

// The claim's secrets for `tab` in frame `slot`: `{ key, slot, lockName, nonce, expected }` (the HMAC key, the
// lock's name, this page's fresh nonce and the proof a live page of the tab answers it with), or null when the
// browser has no Web Locks or no Web Crypto. The lock's name comes from the tab's lock token when it has one, else
// (a tab id stored before lock tokens) from the tab id, one way.
export async function tabSecrets(tab, slot, token) {
  const subtle = globalThis.crypto?.subtle;
  if (!globalThis.navigator?.locks || !subtle) return null;
  try {
    const key = await subtle.importKey("raw", new TextEncoder().encode(tab), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const nonce = hexOf(crypto.getRandomValues(new Uint8Array(16)));
    const lockName = token ? tokenLockName(token, slot) : `webmcp:${await tabMac(key, "lock", slot)}`;
    return { key, slot, lockName, nonce, expected: await tabMac(key, "proof", slot, nonce) };
  } catch {
    return null;
  }
}

// Runs the claim of `secrets.lockName`; resolves with the outcome the policy settles on. `step(event, data, proof)`
// hears "taken", "held", "failed", "timeout", "message" (data: the message's data) and "proof" (data: a nonce, proof:
// the proof for it), and answers a list of effects `[effect, argument]`. The channel stays open once the page is its
// tab's page: the policy answers probes with it. `first`, when given, is requestFreshLock's answer for this lock:
// the first request was made already, and a lock it got is held.
export function claimLock(secrets, channelName, step, first) {
  const { key, slot, lockName } = secrets;
  const locks = navigator.locks;
  return new Promise((resolve) => {
    let probe;
    let timer;
    const waiting = new AbortController();
    // Hands one event to the policy and carries out its effects; true when the lock just granted is to be kept.
    const act = (event, data, proof) => {
      let hold = false;
      for (const [effect, argument] of step(event, data, proof)) {
        switch (effect) {
          case "post":
            try {
              probe.channel?.postMessage(JSON.parse(argument));
            } catch {}
            break;
          case "timer":
            timer = setTimeout(() => act("timeout"), argument);
            break;
          case "stop-timer":
            clearTimeout(timer);
            break;
          case "wait":
            locks
              .request(lockName, { signal: waiting.signal }, () => (act("taken") ? holding(lockName) : undefined))
              .catch(() => {});
            break;
          case "stop-waiting":
            waiting.abort();
            break;
          case "hold":
            hold = true;
            break;
          case "prove":
            tabMac(key, "proof", slot, argument).then(
              (proof) => act("proof", argument, proof),
              () => {},
            );
            break;
          case "close":
            stopListening(probe);
            break;
          case "settled":
            resolve(argument);
            break;
        }
      }
      return hold;
    };
    probe = listen(channelName, (data) => act("message", data));
    if (first) {
      first.then((answer) => act(answer));
      return;
    }
    locks
      .request(lockName, { ifAvailable: true }, (lock) => (act(lock ? "taken" : "held") ? holding(lockName) : undefined))
      .catch(() => act("failed"));
  });
}

function hexOf(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The first 128 bits of HMAC-SHA-256(tab id, parts joined with NUL), in hex: one-way, so it names or proves
// without telling the tab id. The parts (a purpose, a frame slot, a hex nonce) hold no NUL.
async function tabMac(key, ...parts) {
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(parts.join("\0")));
  return hexOf(new Uint8Array(mac, 0, 16));
}
