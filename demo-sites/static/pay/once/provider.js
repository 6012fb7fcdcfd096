// The provider of the once-only scenarios: one tool, `charge`, that counts each real run on this origin's server
// (`charge.<tag>`) before anything else, then optionally waits at a server gate that the suite opens, or holds in
// the page until `__provider.release(tag)` (counting `charge.<tag>.held`), so that the suite can reload pages or
// stop the call while it runs. It does not pass its signal to the gate: a stopped run goes on and returns a late
// result, which the bridge must discard. It also counts `charge.<tag>.aborted` when its signal aborts
// (`.abortedAtStart` when it was already aborted as execute began) and `charge.<tag>.returned` one task after it
// returned (the bridge has posted whatever it sends for the result by then).
// Query parameters: counterPrefix; twice=1 (a second copy of the bridge module); fill=1 (fill sessionStorage to
// its quota before the bridge starts, so that the bridge's journal has to live in memory).
import { origins } from "/config.js";
import { counterPrefix, countExecution } from "/common/bridge.js";
import { el, settle, showOrigin } from "/common/page.js";

const params = new URLSearchParams(location.search);
const runs = document.getElementById("runs");
/** The bridge's console warnings in this page load (it prefixes them with "interpane:"). */
const bridgeWarnings = [];
const consoleWarn = console.warn;
console.warn = function (...args) {
  const text = args.map((arg) => String(arg)).join(" ");
  if (text.startsWith("interpane:")) bridgeWarnings.push(text);
  return consoleWarn.apply(this, args);
};

function storedTab() {
  try {
    return sessionStorage.getItem("webmcp:tab");
  } catch {
    return null;
  }
}

const provider = {
  loadId: `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
  /** The bridge's tab id as this page found it before the bridge started (a duplicated tab inherits it). */
  tabAtLoad: storedTab(),
  /** The bridge's tab id now. */
  tab: storedTab,
  storage: null,
  sameContext: null,
  journal: null,
  warnings: bridgeWarnings,
  /** Runs held in the page (`hold: true`), by tag: `release(tag)` lets one go on. */
  holds: {},
  /** Counts that did not reach the server, with why (the suite shows them when a count is missing). */
  countErrors: [],
  release: (tag) => {
    provider.holds[tag]?.();
    return Boolean(provider.holds[tag]);
  },
};
Object.defineProperty(window, "__provider", { value: provider });

const TAG = { type: "string", pattern: "^[A-Za-z0-9_-]{1,40}$" };

const charge = {
  name: "charge",
  description: "Charge a test amount once; waits at the named gate first when one is given.",
  inputSchema: {
    type: "object",
    properties: { tag: TAG, gate: TAG, hold: { type: "boolean" }, pad: { type: "integer", minimum: 1, maximum: 29000 } },
    required: ["tag"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false },
  async execute({ tag, gate, hold, pad }, { signal } = {}) {
    await countExecution(`charge.${tag}`);
    const line = el("li", {}, `${tag}: running`);
    runs.append(line);
    if (signal?.aborted) {
      countExecution(`charge.${tag}.abortedAtStart`).catch(() => {});
    } else {
      signal?.addEventListener("abort", () => countExecution(`charge.${tag}.aborted`).catch(() => {}), { once: true });
    }
    if (hold) {
      // Held in the page, with no request in flight that a reload could cut short: the run is still going when
      // the page goes away.
      const held = new Promise((resolve) => (provider.holds[tag] = resolve));
      countExecution(`charge.${tag}.held`).catch((error) => provider.countErrors.push(`${tag}.held: ${error}`));
      await held;
    }
    if (gate) {
      const response = await fetch(`/__gate/${encodeURIComponent(counterPrefix + gate)}/wait`);
      if (!response.ok) throw new Error(`the gate ${gate} failed: ${response.status} ${await response.text()}`);
    }
    setTimeout(() => countExecution(`charge.${tag}.returned`).catch(() => {}), 0);
    line.textContent = `${tag}: returned`;
    // `pad` characters more make a result near the bridge's default result cap (30,000 characters).
    return pad ? { receipt: `r-${tag}`, pad: "x".repeat(pad) } : { receipt: `r-${tag}` };
  },
};

/** Fills sessionStorage until a write of the bridge's probe size fails; reports whether it is full. */
function fillSessionStorage() {
  let storage;
  try {
    storage = window.sessionStorage;
    storage.setItem("once:probe", "1");
    storage.removeItem("once:probe");
  } catch (error) {
    return { full: true, error: error?.name ?? String(error) };
  }
  let index = storage.length;
  for (let size = 1 << 20; size >= 1; size = Math.floor(size / 4)) {
    const chunk = "x".repeat(size);
    try {
      for (;;) storage.setItem(`once:fill:${index++}`, chunk);
    } catch {
      // This size no longer fits: try a smaller one.
    }
  }
  // Short fillers until the bridge's own probe (`webmcp:probe` = "1") no longer fits.
  for (let left = 10_000; left > 0; left--) {
    try {
      storage.setItem("webmcp:probe", "1");
      storage.removeItem("webmcp:probe");
    } catch (error) {
      return { full: true, error: error?.name ?? String(error) };
    }
    storage.setItem(`f${index++}`, "x");
  }
  return { full: false, error: "sessionStorage never filled up" };
}

async function main() {
  showOrigin();
  if (params.get("fill") === "1") provider.storage = fillSessionStorage();
  const { readJournals } = await import(`${origins.shop}/once/journal.js`);
  provider.journal = readJournals;
  const bridge = await import("/pkg/interpane.js");
  await bridge.default();
  const modelContext = bridge.install({ exposeToolsTo: origins.shop });
  const second = await window.__secondCopy;
  provider.sameContext = second === null ? null : second === modelContext;
  modelContext.registerTool(charge, { exposedTo: [origins.shop] });
  await modelContext.ready;
  settle("ready");
}

main().catch((error) => {
  console.error("once-only provider:", error);
  settle("error", error);
});
