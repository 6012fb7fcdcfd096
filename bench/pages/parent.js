// The top page of one measurement: opens the cross-origin iframe of one implementation, connects to it, and offers
// `window.bench.run(kind, options)` to the runner (which drives it through WebDriver).
import { childOrigin } from "/origins.js";
import { loadImpl } from "/lib/impls.js";
import { openChild } from "/lib/frames.js";
import { concurrent, sequential } from "/lib/measure.js";

const impl = new URLSearchParams(location.search).get("impl");
const bench = (window.bench = { state: "loading", impl, crossOriginIsolated: self.crossOriginIsolated });
const status = document.getElementById("status");

async function start() {
  const module = await loadImpl(impl);
  const frame = await openChild(`${childOrigin}/child.html?impl=${encodeURIComponent(impl)}`, childOrigin, impl);
  const { call, connectMs } = await module.parent(frame.contentWindow, childOrigin);
  bench.connectMs = connectMs === null ? null : Math.round(connectMs * 1000) / 1000;
  bench.run = async (kind, options) => {
    if (kind === "sequential") return sequential(call, options);
    if (kind === "concurrent") return concurrent(call, options);
    throw new Error(`unknown measurement ${kind}`);
  };
  bench.state = "ready";
  status.textContent = `${impl}: ready`;
}

start().catch((error) => {
  bench.state = "error";
  bench.error = String((error && error.stack) || error);
  status.textContent = `${impl}: ${bench.error}`;
});
