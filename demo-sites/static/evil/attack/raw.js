// A raw WebMCP speaker for the attack pages of the end-to-end suite: it posts hand-made messages to a named
// window and reports what came back. It has no imports, so that pages of other origins (the pay impostor) and
// sandboxed frames can load it too (static files are served with CORS).
//
// "What came back" ends with an ordered round trip instead of a timer: after the attack, the client calls a tool
// that exists nowhere, which every bridge answers at once with an "unknown tool" error. Messages from one window
// to another arrive in the order they were posted, so once that answer is in, every answer the target gave to
// the attack is in too.

const FENCE_TOOL = "e2e_round_trip_no_such_tool";
const FENCE_TIMEOUT_MS = 15_000;
const MAX_LOG = 20_000;
const MAX_TEXT = 300;

/** A fresh request id of the allowed alphabet, from 96 random bits, like a real one. */
export function freshId(prefix = "c_") {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Builders for hand-made messages; the suite writes its attacks with these. */
export const helpers = {
  freshId,
  execute: (name, args = {}, extra = {}) => ({ type: "WEBMCP_EXECUTE_TOOL_REQUEST", requestId: freshId(), name, args, ...extra }),
  getTools: (extra = {}) => ({ type: "WEBMCP_GET_TOOLS_REQUEST", requestId: freshId("k_"), bridge: 1, ...extra }),
  success: (requestId, text) => ({
    type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId, success: true, result: { content: [{ type: "text", text }] },
  }),
  failure: (requestId, fields = {}) => ({ type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId, success: false, error: "forged", ...fields }),
  /** `{ inner: { inner: ... leaf } }`, `depth` objects deep. */
  nested(depth, leaf = { sku: "margherita" }) {
    let value = leaf;
    for (let level = 0; level < depth; level += 1) value = { inner: value };
    return value;
  },
  /** A string of `bytes` characters. */
  big: (bytes) => "x".repeat(bytes),
  /** JSON.parse: the way to get an own "__proto__" property into a message (structured clone keeps it). */
  parsed: (text) => JSON.parse(text),
};

/** A copy of `data` that fits in a report: the ids this attack sent become "#<n>", long texts are cut. */
function describe(data, labels) {
  const walk = (value, depth) => {
    if (typeof value === "string") {
      if (labels.has(value)) return labels.get(value);
      return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…(${value.length})` : value;
    }
    if (value === null || typeof value !== "object") return value;
    if (depth > 8) return "…";
    if (Array.isArray(value)) return value.slice(0, 20).map((item) => walk(item, depth + 1));
    const out = {};
    for (const key of Object.keys(value).slice(0, 40)) {
      Object.defineProperty(out, key, { value: walk(value[key], depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return walk(data, 0);
}

/** The request ids in `messages`, labelled "#<index of the first message that carries it>". */
function labelsOf(messages) {
  const labels = new Map();
  messages.forEach((message, index) => {
    if (message === null || typeof message !== "object") return;
    const ids = [message.requestId, ...(Array.isArray(message.requestIds) ? message.requestIds : [])];
    for (const id of ids) if (typeof id === "string" && !labels.has(id)) labels.set(id, `#${index}`);
  });
  return labels;
}

/** What in a message would mean that an attacker got something. */
export function leakIn(data) {
  if (data === null || typeof data !== "object") return null;
  if (Array.isArray(data.tools) && data.tools.length > 0) return `listed ${data.tools.map((tool) => tool?.name).join(", ")}`;
  if (data.success === true) return "got a successful result";
  if (data.type === "WEBMCP_CONNECTED") return "was given a connection";
  if (data.type === "WEBMCP_CALL_STATUS_RESPONSE" && data.state === "running") return "learned that a call is running";
  return null;
}

/**
 * A client that talks to the windows `targets` names (name -> () => { window, origin }) and logs everything any
 * of them sends to this window, for the page's whole life: a late answer is never missed.
 */
export function rawClient(targets) {
  const log = [];
  const fences = new Set();
  let dropped = 0;
  const waiters = new Map();
  const target = (name) => {
    const found = targets[name]?.();
    if (!found?.window) throw new Error(`no window named ${name}`);
    return found;
  };
  const nameOf = (source) => Object.keys(targets).find((name) => {
    try {
      return targets[name]()?.window === source;
    } catch {
      return false;
    }
  });
  const record = (entry) => {
    if (log.length < MAX_LOG) log.push(entry);
    else dropped += 1;
    const waiter = waiters.get(entry.data?.requestId);
    if (waiter && waiter.from === entry.from) waiter.resolve(entry);
  };
  window.addEventListener("message", (event) => {
    const from = nameOf(event.source);
    if (from) record({ from, origin: event.origin, data: event.data });
  });

  /** Resolves with the first message from `from` whose requestId is `id`. */
  function answerTo(from, id, timeoutMs = FENCE_TIMEOUT_MS) {
    const seen = log.find((entry) => entry.from === from && entry.data?.requestId === id);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(id);
        reject(new Error(`${from} did not answer the round trip within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.set(id, { from, resolve: (entry) => { clearTimeout(timer); waiters.delete(id); resolve(entry); } });
    });
  }

  /** Posts a call of a tool that exists nowhere to `name` and waits for its answer (rejects after `timeoutMs`). */
  async function roundTrip(name, timeoutMs = FENCE_TIMEOUT_MS) {
    const fence = helpers.execute(FENCE_TOOL);
    fences.add(fence.requestId);
    const { window: win, origin } = target(name);
    win.postMessage(fence, origin);
    await answerTo(name, fence.requestId, timeoutMs);
    return fence.requestId;
  }

  const isFence = (data) => fences.has(data?.requestId);

  return {
    helpers,
    /**
     * Posts `messages` to window `name` at its origin (`targetOrigin` overrides it), the first with `transfer`;
     * with `fence` (default), then makes a round trip and returns what `name` sent back meanwhile.
     */
    async send(name, messages, { transfer = [], fence = true, targetOrigin } = {}) {
      const { window: win, origin } = target(name);
      const labels = labelsOf(messages);
      const start = log.length;
      messages.forEach((message, index) => win.postMessage(message, targetOrigin ?? origin, index === 0 ? transfer : []));
      if (!fence) return [];
      await roundTrip(name);
      return log.slice(start).filter((entry) => entry.from === name && !isFence(entry.data)).map((entry) => describe(entry.data, labels));
    },
    roundTrip,
    answerTo,
    /**
     * A WEBMCP_CONNECT request for `name` with a fresh channel: send `request` with `transfer`; whatever arrives on
     * the kept `port` is logged as from `<name>-port` (and `{ closed: true }` if the other end closes it).
     */
    channel(name) {
      const channel = new MessageChannel();
      const from = `${name}-port`;
      channel.port1.onmessage = (event) => record({ from, origin: null, data: event.data });
      channel.port1.addEventListener("close", () => record({ from, origin: null, data: { closed: true } }));
      const request = { type: "WEBMCP_CONNECT", requestId: freshId("p_") };
      return { request, transfer: [channel.port2], port: channel.port1, from };
    },
    /** Everything received from `name` (every window when absent), described. */
    received(name) {
      return log.filter((entry) => !name || entry.from === name).map((entry) => ({ from: entry.from, data: describe(entry.data, new Map()) }));
    },
    /** The first message received during the page's life that reveals something, or null. */
    firstLeak() {
      for (const entry of log) {
        const leak = leakIn(entry.data);
        if (leak) return `${entry.from}: ${leak}`;
      }
      return null;
    },
    /** How many messages of each kind were received: "<from> <type> <code or success>" -> count. */
    tally() {
      const counts = {};
      for (const { from, data } of log) {
        const type = data !== null && typeof data === "object" ? data.type ?? "untyped" : typeof data;
        const key = `${from} ${type} ${data?.code ?? (data?.success === undefined ? "" : `success=${data.success}`)}`.trim();
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    },
    /** How many messages were received, and how many were not logged because the log was full. */
    counts: () => ({ logged: log.length, dropped }),
  };
}
