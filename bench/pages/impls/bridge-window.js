// interpane held to window messages: the iframe's bridge never sees the parent's WEBMCP_CONNECT (the only
// message of the run that carries a port), so it never answers it and both bridges keep talking through window
// messages, as they do with a peer that is not a bridge. Shows what the private port gains.
import * as bridge from "./bridge.js";

export const parent = bridge.parent;

export async function child(parentOrigin) {
  // Registered before the bridge's own listener, so it runs first. It reads no data: only the port count.
  window.addEventListener("message", (event) => {
    if (event.origin === parentOrigin && event.ports.length > 0) event.stopImmediatePropagation();
  });
  await bridge.child(parentOrigin);
}
