// Which tab and frame slot this page is (docs/once-only.md §5): a Web Lock and a BroadcastChannel probe, with
// names and proofs that are HMAC-SHA-256 values keyed with the tab id. The policy's claim_step decides each step.

// Tells a reload from a duplicated tab (docs/once-only.md §5). Resolves "owner" when this page is its tab's page in
// its frame slot, "duplicate" when a live page of the same tab and slot proved that it is alive (this page is a
// copy), "unknown" when the browser has no Web Locks or no Web Crypto. `decide(event, proven)` is the policy's
// claim_step: it hears "taken", "held", "answer" (with whether the answer is the expected proof) and "timeout", and
// says "owner", "duplicate", "probe" or "wait"; it is never called once the claim has settled.
//
// Nothing another page can read lets it claim the tab: the lock's name and every proof are HMAC-SHA-256 values
// keyed with the tab id, which stays in this tab's sessionStorage. A probe carries a fresh random nonce, and only a
// page that knows the tab id can answer it with the proof for it.
export async function claimLock(tab, slot, channelName, timeoutMs, decide) {
  const locks = globalThis.navigator?.locks;
  const subtle = globalThis.crypto?.subtle;
  if (!locks || !subtle) return "unknown";
  let key, lockName, nonce, expected;
  try {
    key = await subtle.importKey("raw", new TextEncoder().encode(tab), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    lockName = `webmcp:${await tabMac(key, "lock", slot)}`;
    nonce = hexOf(crypto.getRandomValues(new Uint8Array(16)));
    expected = await tabMac(key, "proof", slot, nonce);
  } catch {
    return "unknown";
  }
  return new Promise((resolve) => {
    let settled = false;
    let answer = "unknown";
    let channel = null;
    let timer = null;
    const waiting = new AbortController();
    const act = (event, proven) => {
      if (settled) return;
      const step = decide(event, proven === true);
      if (step === "probe") return probe();
      if (step !== "owner" && step !== "duplicate") return;
      settled = true;
      answer = step;
      clearTimeout(timer);
      channel?.close();
      if (step === "owner") answerProbes(key, lockName, slot, channelName);
      else waiting.abort();
      resolve(step);
    };
    const probe = () => {
      try {
        channel = new BroadcastChannel(channelName);
        channel.onmessage = (event) => {
          const data = event.data;
          if (data?.alive === lockName && data.nonce === nonce) act("answer", data.proof === expected);
        };
        channel.postMessage({ probe: lockName, nonce });
      } catch {}
      timer = setTimeout(() => act("timeout"), timeoutMs);
      // Wait for the lock meanwhile: a reload's old page lets go of it. A page that became the owner without it (its
      // holder is not of this tab) keeps waiting, and holds it once its holder lets go.
      locks
        .request(lockName, { signal: waiting.signal }, () => {
          act("taken");
          return answer === "owner" ? new Promise(() => {}) : undefined;
        })
        .catch(() => {});
    };
    locks
      .request(lockName, { ifAvailable: true }, (lock) => {
        act(lock ? "taken" : "held");
        return lock && answer === "owner" ? new Promise(() => {}) : undefined;
      })
      .catch(() => {
        if (!settled) {
          settled = true;
          resolve("unknown");
        }
      });
  });
}

// Answers the probes of copies of this page (same tab, same slot) with the proof for their nonce.
function answerProbes(key, lockName, slot, channelName) {
  try {
    const channel = new BroadcastChannel(channelName);
    channel.onmessage = async (event) => {
      const data = event.data;
      if (data?.probe !== lockName || typeof data.nonce !== "string" || !/^[0-9a-f]{32}$/.test(data.nonce)) return;
      if ("alive" in data) return;
      try {
        channel.postMessage({ alive: lockName, nonce: data.nonce, proof: await tabMac(key, "proof", slot, data.nonce) });
      } catch {}
    };
  } catch {}
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
