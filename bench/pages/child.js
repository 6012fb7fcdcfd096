// The cross-origin iframe: sets up the echo side of one implementation, then tells its parent.
import { parentOrigin } from "/origins.js";
import { loadImpl } from "/lib/impls.js";
import { announceChildReady } from "/lib/frames.js";

const impl = new URLSearchParams(location.search).get("impl");
const bench = (window.bench = { state: "loading", impl });

try {
  const module = await loadImpl(impl);
  await module.child(parentOrigin);
  bench.state = "ready";
  announceChildReady(parentOrigin, impl);
} catch (error) {
  bench.state = "error";
  bench.error = String((error && error.stack) || error);
}
