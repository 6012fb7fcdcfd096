// Cold start: on a freshly opened page (nothing cached: the server says no-store), the time from importing a
// library's module to the moment it is ready to call. For the bridge, the steps are timed apart: import of the
// package's entry (index.js, which carries the JS glue), init (fetching, compiling and instantiating the wasm),
// install, and `modelContext.ready`.
//
// The page opens in the tab of the measurement just made, whose sessionStorage it would find: it clears it first,
// so that it is a first visit, not a reload in which the bridge reads back the journal of the calls just measured
// (a megabyte with the 64 KiB calls' results: 18-33 ms more until ready).
import { BRIDGE_OPTIONS } from "/lib/bridge-options.js";

sessionStorage.clear();
const impl = new URLSearchParams(location.search).get("impl");
const bench = (window.bench = { state: "loading", impl });
const round = (ms) => Math.round(ms * 1000) / 1000;

async function bridge() {
  const t0 = performance.now();
  const module = await import("/pkg/index.js");
  const t1 = performance.now();
  await module.default();
  const t2 = performance.now();
  const context = module.install({ ...BRIDGE_OPTIONS });
  const t3 = performance.now();
  await context.ready;
  const t4 = performance.now();
  return { startedAtMs: round(t0), importMs: round(t1 - t0), initMs: round(t2 - t1), installMs: round(t3 - t2),
    readyMs: round(t4 - t3), totalMs: round(t4 - t0) };
}

async function library(url) {
  const t0 = performance.now();
  await import(url);
  const t1 = performance.now();
  return { startedAtMs: round(t0), importMs: round(t1 - t0), totalMs: round(t1 - t0) };
}

const runs = {
  bridge,
  penpal: () => library("/npm/penpal/dist/penpal.mjs"),
  comlink: () => library("/npm/comlink/dist/esm/comlink.mjs"),
};

try {
  if (!Object.hasOwn(runs, impl)) throw new Error(`no cold start for ${impl}`);
  bench.result = await runs[impl]();
  bench.state = "done";
} catch (error) {
  bench.state = "error";
  bench.error = String((error && error.stack) || error);
}
document.getElementById("status").textContent = JSON.stringify(bench);
