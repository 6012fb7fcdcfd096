// Diagnostics for issue 25: the MessagePort floor (impls/port.js) plus the least work a call journaled for
// once-only must do, in plain JavaScript with no wasm. They bound from below what the issue's targets ask of the
// bridge ("every call still checks its arguments against inputSchema and is journaled for once-only") in this
// browser; they are not implementations.
//
// `payloads: true` (impls/port-journaled.js) does per call what once-only with nothing lost needs at the least, as
// the bridge's journals do (docs/once-only.md): the caller writes its record with the arguments' text to
// sessionStorage before it posts the request (a reload resends it) and the outcome's text when the result comes (a
// callId replays it); the provider writes its record before it runs the tool, reads the arguments' text once
// (where the bridge checks them against the schema) and writes the result's text before it answers (a retried
// request gets it again). `payloads: false` (impls/port-write-ahead.js) keeps only the two records that must be
// written before anything happens, one small one per side: the caller's before it posts, the provider's before it
// runs. Records are written one call at a time, as sequential calls get them; the bridge gathers a task's writes.
// Each side keeps its last 8 records, so that the 64 KiB calls stay within the storage quota, which the bridge's
// journals measured before in the same tab share; a write that fails anyway fails the call, and the measurement
// with it, with the browser's error.

const KEEP = 8;
const PREFIX = "bench:";

// The records of an earlier page of this tab (sessionStorage outlives it) go, and this page's go with it: what is
// left would count against the origin's quota, which the bridge's journal, measured in the same tab, shares.
function clearRecords() {
  for (const key of Object.keys(sessionStorage)) {
    if (key.startsWith(PREFIX)) sessionStorage.removeItem(key);
  }
}
clearRecords();
addEventListener("pagehide", clearRecords);

function record(side, id, text) {
  if (id > KEEP) sessionStorage.removeItem(`${PREFIX}${side}:${id - KEEP}`);
  try {
    sessionStorage.setItem(`${PREFIX}${side}:${id}`, text);
  } catch (error) {
    throw new Error(`${error} (this frame's sessionStorage holds ${storageSummary()})`);
  }
}

// What the frame's sessionStorage holds, in characters of keys and values, by the first two parts of the key.
function storageSummary() {
  const parts = new Map();
  let total = 0;
  for (const key of Object.keys(sessionStorage)) {
    const size = key.length + sessionStorage.getItem(key).length;
    const group = key.split(":").slice(0, 5).join(":");
    parts.set(group, (parts.get(group) ?? 0) + size);
    total += size;
  }
  const largest = [...parts].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return `${total} characters; ${largest.map(([group, size]) => `${group} ${size}`).join(", ")}`;
}

/** The parent's and the child's halves of one variant. */
export function journaledPort({ payloads }) {
  async function parent(win, childOrigin) {
    const started = performance.now();
    const { port1, port2 } = new MessageChannel();
    let nextId = 1;
    const pending = new Map();
    const connected = new Promise((resolve) => {
      port1.onmessage = (event) => {
        const { id, result, error, connected } = event.data ?? {};
        if (connected) return resolve();
        const call = pending.get(id);
        if (!call) return;
        pending.delete(id);
        try {
          if (error !== undefined) throw new Error(`the child: ${error}`);
          if (payloads) record("c", id, `{"state":"settled","result":${JSON.stringify(result)}}`);
          call.resolve(result);
        } catch (failure) {
          call.reject(failure);
        }
      };
    });
    win.postMessage({ type: "bench-port-connect" }, childOrigin, [port2]);
    await connected;
    const connectMs = performance.now() - started;
    // A record that cannot be written rejects the call (the executor's throw).
    const call = (args) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        record("c", id, payloads ? `{"state":"sent","args":${JSON.stringify(args)}}` : '{"state":"sent"}');
        pending.set(id, { resolve, reject });
        port1.postMessage({ id, args });
      });
    return { call, connectMs };
  }

  async function child(parentOrigin) {
    const echo = (args) => args;
    window.addEventListener("message", (event) => {
      if (event.origin !== parentOrigin || event.source !== window.parent) return;
      if (event.data?.type !== "bench-port-connect" || event.ports.length !== 1) return;
      const port = event.ports[0];
      port.onmessage = (message) => {
        const { id, args } = message.data ?? {};
        if (typeof id !== "number") return;
        try {
          record("p", id, '{"state":"running"}');
          // Where the bridge reads the arguments' text for the schema check.
          if (payloads && JSON.stringify(args) === undefined) throw new Error("arguments JSON cannot write");
          const result = echo(args);
          if (payloads) record("p", id, `{"state":"done","result":${JSON.stringify(result)}}`);
          port.postMessage({ id, result });
        } catch (failure) {
          port.postMessage({ id, error: String(failure) });
        }
      };
      port.postMessage({ connected: true });
    });
  }

  return { parent, child };
}
