// penpal 7 from the npm registry, each side allowing only the other's origin. penpal moves to a MessagePort after
// its handshake.
import { WindowMessenger, connect } from "/npm/penpal/dist/penpal.mjs";

export async function parent(win, childOrigin) {
  const started = performance.now();
  const messenger = new WindowMessenger({ remoteWindow: win, allowedOrigins: [childOrigin] });
  const remote = await connect({ messenger, methods: {} }).promise;
  const connectMs = performance.now() - started;
  return { call: (args) => remote.echo(args), connectMs };
}

export async function child(parentOrigin) {
  const messenger = new WindowMessenger({ remoteWindow: window.parent, allowedOrigins: [parentOrigin] });
  // The handshake completes when the parent connects; nothing to wait for here.
  connect({ messenger, methods: { echo: (args) => args } });
}
