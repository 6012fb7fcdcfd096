// The hand-written floor over a MessagePort: the parent transfers one end of a channel to the child's exact origin;
// the child takes it only from its parent window at the expected origin, then both sides talk on the port with
// request ids. Nothing but these two documents can post into the port, so it needs no further origin checks.

export async function parent(win, childOrigin) {
  const started = performance.now();
  const { port1, port2 } = new MessageChannel();
  let nextId = 1;
  const pending = new Map();
  const connected = new Promise((resolve) => {
    port1.onmessage = (event) => {
      const { id, result, connected } = event.data ?? {};
      if (connected) return resolve();
      const settle = pending.get(id);
      if (settle) {
        pending.delete(id);
        settle(result);
      }
    };
  });
  win.postMessage({ type: "bench-port-connect" }, childOrigin, [port2]);
  await connected;
  const connectMs = performance.now() - started;
  const call = (args) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      port1.postMessage({ id, args });
    });
  return { call, connectMs };
}

export async function child(parentOrigin) {
  const echo = (args) => args;
  window.addEventListener("message", (event) => {
    if (event.origin !== parentOrigin || event.source !== window.parent) return;
    if (event.data?.type !== "bench-port-connect" || event.ports.length !== 1) return;
    const port = event.ports[0];
    port.onmessage = (message) => {
      const { id, args } = message.data ?? {};
      if (typeof id !== "number") return;
      port.postMessage({ id, result: echo(args) });
    };
    port.postMessage({ connected: true });
  });
}
