// The package's entry: the wasm-bindgen module, with the mistakes a first user makes turned into clear words.
// `init()` loads the WebAssembly module (interpane_bg.wasm, next to interpane.js, unless given another
// URL or module); `install()` must come after it.
import wasmInit, { initSync as wasmInitSync, install as wasmInstall } from "./interpane.js";

const PREFIX = "interpane:";
const KNOWN_OPTIONS = [
  "exposeToolsTo",
  "element",
  "allowWildcards",
  "resultCap",
  "maxCallsInFlight",
  "maxPendingCalls",
  "maxHeldResultBytes",
  "discoveryTimeoutMs",
  "storage",
];

let loaded = false;
let loading = false;
let installed = null; // { key, context } of this module's first install()

/** Loads the WebAssembly module; resolves when `install()` may be called. Same arguments as wasm-bindgen's. */
export default async function init(...args) {
  loading = true;
  try {
    const output = await wasmInit(...args);
    loaded = true;
    return output;
  } finally {
    loading = false;
  }
}

/** Loads the WebAssembly module from bytes or a compiled module, synchronously. */
export function initSync(...args) {
  const output = wasmInitSync(...args);
  loaded = true;
  return output;
}

/** Installs the bridge in this page and returns its `document.modelContext`; see the README. */
export function install(options) {
  checkOptions(options);
  const key = optionsKey(options);
  if (installed !== null) {
    if (options !== undefined && key !== installed.key) {
      console.warn(
        `${PREFIX} install() was called again with other options (${key}); the first call's options ` +
          `(${installed.key}) stay in force: a page has one bridge. Call install() once, or pass no options.`,
      );
    }
    return installed.context;
  }
  let context;
  try {
    context = wasmInstall(options);
  } catch (error) {
    if (!loaded && error instanceof TypeError && /undefined|null/.test(error.message)) {
      throw new Error(
        loading
          ? `${PREFIX} install() ran while init() was still loading the WebAssembly module: await the promise ` +
              `init() returns first (await init(); install(...)).`
          : `${PREFIX} install() ran before init(): load the WebAssembly module first with ` +
              `\`import init, { install } from "interpane"; await init(); install(...)\`.`,
      );
    }
    throw error;
  }
  loaded = true;
  installed = { key, context };
  return context;
}

/** Whether `error` is the Error a failed call rejects with (it has a string `kind`). */
export function isToolCallError(error) {
  return typeof error === "object" && error !== null && typeof error.message === "string" &&
    typeof error.kind === "string";
}

function checkOptions(options) {
  if (options === undefined || options === null || typeof options !== "object") return;
  for (const name of Object.keys(options)) {
    if (KNOWN_OPTIONS.includes(name)) continue;
    const closest = closestName(name);
    console.warn(
      `${PREFIX} install() has no option "${name}"; it is ignored. ` +
        (closest ? `Did you mean "${closest}"?` : `The options are: ${KNOWN_OPTIONS.join(", ")}.`),
    );
  }
}

function closestName(name) {
  let best = null;
  let bestDistance = Infinity;
  for (const known of KNOWN_OPTIONS) {
    const distance = editDistance(name.toLowerCase(), known.toLowerCase());
    if (distance < bestDistance) {
      best = known;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

// A comparable description of install()'s known options: origin lists as sorted entries, an element by identity.
const elementIds = new WeakMap();
let elementCount = 0;
function optionsKey(options) {
  if (options === undefined || options === null || typeof options !== "object") return "no options";
  const parts = [];
  for (const name of Object.keys(options).sort()) {
    let value = options[name];
    if (value === undefined || !KNOWN_OPTIONS.includes(name)) continue;
    if (name === "exposeToolsTo") {
      const entries = Array.isArray(value) ? value : String(value).split(",");
      value = entries.map((entry) => String(entry).trim()).filter(Boolean).sort().join(", ");
    } else if (name === "element" && typeof value === "object" && value !== null) {
      if (!elementIds.has(value)) elementIds.set(value, ++elementCount);
      value = `<${String(value.tagName ?? "element").toLowerCase()} #${elementIds.get(value)}>`;
    }
    parts.push(`${name}: ${typeof value === "string" ? JSON.stringify(value) : String(value)}`);
  }
  return parts.length > 0 ? `{ ${parts.join(", ")} }` : "no options";
}
