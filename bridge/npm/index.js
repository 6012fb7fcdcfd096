// The package's entry: the wasm-bindgen module, with the mistakes a first user makes turned into clear words.
// `init()` loads the WebAssembly module (interpane_bg.wasm, next to interpane.js, unless given another
// URL or module); `install()` must come after it.
import wasmInit, { initSync as wasmInitSync, install as wasmInstall, installOptions } from "./interpane.js";

const PREFIX = "interpane:";

let loaded = false;
let loading = false;

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

/**
 * Installs the bridge in this page and returns its `document.modelContext`; see the README. A second call returns
 * the same object (the bridge warns when its options differ from the first's, and of options it does not know).
 */
export function install(options) {
  if (loaded) warnOfUnknownOptions(options);
  try {
    const context = wasmInstall(options);
    loaded = true;
    return context;
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
}

/** Whether `error` is the Error a failed call rejects with (it has a string `kind`). */
export function isToolCallError(error) {
  return typeof error === "object" && error !== null && typeof error.message === "string" &&
    typeof error.kind === "string";
}

// The bridge's options are named in the wasm (installOptions()); a key that is none of them is a slip to point out.
function warnOfUnknownOptions(options) {
  if (options === undefined || options === null || typeof options !== "object") return;
  const known = installOptions();
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const closest = closestName(name, known);
    console.warn(
      `${PREFIX} install() has no option "${name}"; it is ignored. ` +
        (closest ? `Did you mean "${closest}"?` : `The options are: ${known.join(", ")}.`),
    );
  }
}

function closestName(name, known) {
  let best = null;
  let bestDistance = Infinity;
  for (const option of known) {
    const distance = editDistance(name.toLowerCase(), option.toLowerCase());
    if (distance < bestDistance) {
      best = option;
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
