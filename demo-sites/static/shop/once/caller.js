// The calling side of the once-only scenarios (docs/once-only.md). It calls pay's `charge` tool and reports every
// outcome the application sees to its own server as counters named `obs.<callId>.<kind>.<status>`, which the
// end-to-end suite reads across reloads and which no other page can fake:
//   kind "pr": the executeTool promise; "rp": a second executeTool with the same callId (a replay);
//   kind "ev": a toolresult event of this page's own call; "evr": one with recovered: true (after a reload).
// An interrupted call's status says which path the bridge took: "interrupted-gone" (the provider went away while
// the call was in flight), "-reloaded" (the provider's journal says its page reloaded while the call ran),
// "-not-durable" (the provider's journal does not survive reloads), and so on (INTERRUPTIONS below).
// Query parameters: counterPrefix; embed=1 (this page is the top and embeds the provider itself); twice=1 (two
// copies of the bridge module in this page and in the provider); fill=1 (passed to the provider).
import { origins } from "/config.js";
import { counterPrefix } from "/common/bridge.js";
import { el, settle, showOrigin } from "/common/page.js";
import { installDeafness } from "./deafness.js";
import { framePath, readJournals, storageProbe, unsettledCalls } from "./journal.js";

const params = new URLSearchParams(location.search);
/** The bridge's console warnings in this page load (it prefixes them with "interpane:"). */
const bridgeWarnings = [];
const consoleWarn = console.warn;
console.warn = function (...args) {
  const text = args.map((arg) => String(arg)).join(" ");
  if (text.startsWith("interpane:")) bridgeWarnings.push(text);
  return consoleWarn.apply(this, args);
};
// Before the bridge adds its listeners.
const deafness = installDeafness();
// A copy opened with window.open stands for a duplicated tab, which has no opener: drop it, so that the bridge
// neither lists the original's tools nor waits for it to answer (in test mode a same-origin window's answer
// comes back with the wrong source, see host.js).
if (window.opener) window.opener = null;

function storedTab() {
  try {
    return sessionStorage.getItem("webmcp:tab");
  } catch {
    return null;
  }
}

const once = {
  loadId: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
  /** The bridge's tab id as this page found it before the bridge started (a duplicated tab inherits it). */
  tabAtLoad: storedTab(),
  /** The bridge's tab id now. */
  tab: storedTab,
  slot: framePath(),
  storage: storageProbe(),
  deafness,
  warnings: bridgeWarnings,
  tool: null,
  sameContext: null,
  /** toolresult events of this page load. */
  events: [],
  /** Outcomes of this page load's promises, by callId (and `callId:rp` for replays). */
  outcomes: {},
  controllers: {},
  journal: readJournals,
  unsettled: unsettledCalls,
  pending: () => Object.keys(once.outcomes).filter((key) => once.outcomes[key].state === "pending"),
};
Object.defineProperty(window, "__once", { value: once });

const list = document.getElementById("outcomes");

/** Reports still on their way to the server. */
const reporting = new Set();

function report(callId, kind, status) {
  list.append(el("li", {}, `${callId} ${kind} ${status}`));
  const name = `${counterPrefix}obs.${callId}.${kind}.${status}`;
  // keepalive: the report still reaches the server when the page is reloaded right after.
  const sent = fetch(`/__counter/${encodeURIComponent(name)}`, { method: "POST", keepalive: true }).catch(() => {});
  reporting.add(sent);
  sent.finally(() => reporting.delete(sent));
}

// Why a call was interrupted, from the bridge's message (docs/once-only.md): which path the bridge took.
const INTERRUPTIONS = [
  [/went away while this call was in flight/, "gone"],
  [/went away before this call was sent/, "gone-before-send"],
  [/reloaded while this call ran/, "reloaded"],
  [/does not survive its reloads/, "not-durable"],
  [/may have forgotten it/, "unproven"],
  [/another page of this tab/, "other-page"],
];

/** "interrupted-<why>" for an interrupted call, else the error's code (or "aborted", "failed"). */
function errorStatus(error) {
  // A DOMException has a numeric `code` (20 for AbortError): only the bridge's string codes count.
  const code = typeof error?.kind === "string" ? error.kind : error?.name === "AbortError" ? "aborted" : "failed";
  if (code !== "interrupted") return code;
  const message = String(error?.message ?? "");
  const found = INTERRUPTIONS.find(([pattern]) => pattern.test(message));
  return `interrupted-${found ? found[1] : "other"}`;
}

function resultStatus(callId, result) {
  // The result is the tool's JSON text (executeTool and toolresult give a string, as native WebMCP does).
  let parsed = null;
  try {
    parsed = typeof result === "string" ? JSON.parse(result) : null;
  } catch {}
  return parsed && parsed.receipt === `r-${callId}` ? "completed" : "wrong-result";
}

function track(callId, kind, promise) {
  const key = kind === "pr" ? callId : `${callId}:${kind}`;
  once.outcomes[key] = { state: "pending" };
  return promise.then(
    (result) => {
      const state = resultStatus(callId, result);
      once.outcomes[key] = { state };
      report(callId, kind, state);
      return state;
    },
    (error) => {
      const state = errorStatus(error);
      once.outcomes[key] = { state, message: String(error?.message ?? error) };
      report(callId, kind, state);
      return state;
    },
  );
}

/** The tool's arguments: `{ tag: callId }`, with the `gate` to wait at, `hold: true` or the result's `pad` when
 * asked. */
function callArgs(callId, options) {
  const args = { tag: callId };
  if (options.gate) args.gate = options.gate;
  if (options.hold) args.hold = true;
  if (options.pad) args.pad = options.pad;
  return args;
}

async function loadBridge() {
  const bridge = await import("/pkg/interpane.js");
  await bridge.default();
  return bridge.install();
}

async function findCharge(modelContext) {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const tools = await modelContext.getTools({ fromOrigins: [origins.pay], timeoutMs: 500 });
    const tool = tools.find((t) => t.name === "charge" && t.origin === origins.pay);
    if (tool) return tool;
    // The provider announces itself when its bridge is ready: list again then (or soon).
    await new Promise((resolve) => {
      const done = () => {
        modelContext.removeEventListener("toolchange", done);
        resolve();
      };
      modelContext.addEventListener("toolchange", done);
      setTimeout(done, 250);
    });
  }
  throw new Error("pay's charge tool did not appear within 10 s");
}

function embedProvider() {
  const url = new URL(`${origins.pay}/once/provider.html`);
  for (const name of ["counterPrefix", "twice", "fill"]) {
    if (params.has(name)) url.searchParams.set(name, params.get(name));
  }
  document.querySelector("main").append(el("iframe", { id: "provider", src: url.href, title: "provider" }));
}

async function main() {
  showOrigin();
  if (params.get("embed") === "1") embedProvider();
  const modelContext = await loadBridge();
  const second = await window.__secondCopy;
  once.sameContext = second === null ? null : second === modelContext;
  // Added before the bridge is ready, so that outcomes recovered from the journal are heard too.
  modelContext.addEventListener("toolresult", (event) => {
    const status =
      event.status === "completed"
        ? resultStatus(event.callId, event.result)
        : event.status === "interrupted"
          ? errorStatus(event.error)
          : event.status;
    once.events.push({ callId: event.callId, status, code: event.error?.kind ?? null, recovered: event.recovered });
    report(event.callId, event.recovered ? "evr" : "ev", status);
  });
  await modelContext.ready;
  once.tool = await findCharge(modelContext);

  /** Starts a call (see callArgs); `abort`: stop it in the same task; `reload`: reload in the same task. */
  once.call = (callId, options = {}) => {
    const controller = new AbortController();
    once.controllers[callId] = controller;
    const args = callArgs(callId, options);
    track(callId, "pr", modelContext.executeTool(once.tool, args, { callId, signal: controller.signal }));
    if (options.abort) controller.abort();
    if (options.reload) location.reload();
    return true;
  };
  once.stop = (callId) => {
    once.controllers[callId]?.abort();
    return true;
  };
  /** Calls again with the same callId (and `options` as for `call`), after listing the tools again; resolves to
   * the outcome. */
  once.retry = async (callId, options = {}) => {
    once.tool = await findCharge(modelContext);
    const args = callArgs(callId, options);
    return track(callId, "rp", modelContext.executeTool(once.tool, args, { callId }));
  };
  /**
   * A round trip to every window on the same paths as calls: whatever they posted before has been handled, and
   * every report of it has reached the server.
   */
  once.sync = async () => {
    await modelContext.getTools({ fromOrigins: [origins.pay], timeoutMs: 2000 });
    await Promise.allSettled([...reporting]);
    return true;
  };
  settle("ready");
}

main().catch((error) => {
  console.error("once-only caller:", error);
  settle("error", error);
});
