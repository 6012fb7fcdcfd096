// Holds the provider (frame 0, this origin) and the caller (frame 1, the shop's origin) as sibling frames, so that
// the suite can reload either one while the other keeps running. The caller's frame is added once the provider is
// ready: a caller that hears a provider announce itself while it is still listing its tools can file the
// provider's window without the locator it needs after a reload (see the once-only suite's
// `caller_reload_after_both_frames_loaded_together` case), and this host keeps the other scenarios clear of that
// race.
// The host installs the bridge without tools only so that it answers the caller's tool discovery at once (a silent
// window would make every discovery wait for its timeout). It is on pay's origin, not the caller's: the caller
// addresses discovery requests to its own origin and to pay's, and in test mode a message between two same-origin
// windows arrives with the receiving window as its `source` (the spy's postMessage wrapper runs in the receiver's
// realm), so a same-origin host could not answer.
// Query parameters are passed on: counterPrefix and twice to both frames, fill to the provider; together=1 adds
// both frames at once instead.
import { origins } from "/config.js";
import { el, settle, showOrigin } from "/common/page.js";

const params = new URLSearchParams(location.search);

function frameUrl(base, names) {
  const url = new URL(base);
  for (const name of names) {
    if (params.has(name)) url.searchParams.set(name, params.get(name));
  }
  return url.href;
}

async function main() {
  showOrigin();
  const main = document.querySelector("main");
  const provider = el("iframe", {
    id: "provider",
    title: "provider",
    src: frameUrl(`${location.origin}/once/provider.html`, ["counterPrefix", "twice", "fill"]),
  });
  const caller = () =>
    el("iframe", { id: "caller", title: "caller", src: frameUrl(`${origins.shop}/once/caller.html`, ["counterPrefix", "twice"]) });
  main.append(provider);
  if (params.get("together") === "1") main.append(caller());
  const bridge = await import("/pkg/interpane.js");
  await bridge.default();
  await bridge.install().ready;
  if (params.get("together") !== "1") {
    await providerReady(provider);
    main.append(caller());
  }
  settle("ready");
}

/** Resolves once the provider frame's page (same origin as this host) says it is ready. */
function providerReady(frame) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const state = frame.contentWindow?.__demo?.state;
      if (state === "ready") return resolve();
      if (state === "error" || state === "no-bridge") return reject(new Error(`the provider page is ${state}`));
      setTimeout(check, 10);
    };
    check();
  });
}

main().catch((error) => {
  console.error("once-only host:", error);
  settle("error", error);
});
