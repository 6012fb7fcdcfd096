// A plain WebMCP peer for interoperability tests: it speaks only the four WEBMCP_* messages, with the habits of the
// GoogleChromeLabs webmcp-tools polyfill (demos/shared/webmcp-polyfill.js), written here from its documented
// behaviour (docs/protocol.md), not copied:
// - requests and replies are posted to '*', and the provider answers any window that asks (no origin checks);
// - request ids are Math.random().toString(36) digits;
// - an execute request carries `inputObject`; a provider reads `inputObject`, falling back to `args`;
// - a failure is `{ success: false, error }` and nothing else (no status, retryAfter, name or code);
// - no extensions (no cancel, no tool-change message, no port), and one message listener per pending request;
// - a consumer files a remote tool under the `origin` its tool list claims, keeps the first tool of each name,
//   and asks its parent, its parent's frames and its own frames (not its opener), each for 500 ms.
// It is a test fixture: never use it to protect anything.

const GET_TOOLS_REQUEST = "WEBMCP_GET_TOOLS_REQUEST";
const GET_TOOLS_RESPONSE = "WEBMCP_GET_TOOLS_RESPONSE";
const EXECUTE_REQUEST = "WEBMCP_EXECUTE_TOOL_REQUEST";
const EXECUTE_RESPONSE = "WEBMCP_EXECUTE_TOOL_RESPONSE";
const LIST_TIMEOUT_MS = 500;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function randomId() {
  return Math.random().toString(36).slice(2);
}

/** The windows a plain consumer asks: its parent, the parent's frames and its own frames, itself excluded. */
function windowsAround() {
  const found = new Set();
  if (window.parent !== window) {
    found.add(window.parent);
    for (let i = 0; i < window.parent.length; i++) found.add(window.parent[i]);
  }
  for (let i = 0; i < window.length; i++) found.add(window[i]);
  found.delete(window);
  return [...found];
}

/** Posts `message` to `win` and resolves with the first reply of `replyType` from that window with the same id. */
function ask(win, message, replyType, timeoutMs) {
  return new Promise((resolve) => {
    let timer = null;
    const listener = (event) => {
      const data = event.data;
      if (event.source !== win || !data || data.type !== replyType || data.requestId !== message.requestId) return;
      window.removeEventListener("message", listener);
      clearTimeout(timer);
      resolve(data);
    };
    window.addEventListener("message", listener);
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        window.removeEventListener("message", listener);
        resolve(null);
      }, timeoutMs);
    }
    win.postMessage(message, "*");
  });
}

/**
 * Creates the peer of this page. `claimOrigin`, when given, is what its tool lists claim as the tools' origin
 * (a lie, to show that a bridge consumer files tools under the real origin of the reply).
 */
export function createPlainPeer({ claimOrigin } = {}) {
  const tools = new Map();
  const received = [];
  const events = new EventTarget();

  function descriptors() {
    return [...tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      origin: claimOrigin ?? self.origin,
      annotations: tool.annotations,
    }));
  }

  async function answer(event) {
    const data = event.data;
    if (!data || typeof data !== "object" || typeof data.type !== "string") return;
    if (data.type.startsWith("WEBMCP_")) {
      received.push({ type: data.type, origin: event.origin, hasArgs: "args" in data, hasInputObject: "inputObject" in data });
    }
    if (data.type !== GET_TOOLS_REQUEST && data.type !== EXECUTE_REQUEST) return;
    const source = event.source;
    if (data.type === GET_TOOLS_REQUEST) {
      source.postMessage({ type: GET_TOOLS_RESPONSE, requestId: data.requestId, tools: descriptors() }, "*");
      return;
    }
    try {
      const tool = tools.get(data.name);
      if (!tool) throw new Error(`Tool ${data.name} not found`);
      const input = data.inputObject !== undefined ? data.inputObject : data.args;
      const result = await tool.execute(typeof input === "string" ? JSON.parse(input) : input, {});
      source.postMessage({ type: EXECUTE_RESPONSE, requestId: data.requestId, success: true, result }, "*");
    } catch (error) {
      const message = (error && error.message) || String(error);
      source.postMessage({ type: EXECUTE_RESPONSE, requestId: data.requestId, success: false, error: message }, "*");
    }
  }
  window.addEventListener("message", answer);

  function unregisterTool(name) {
    if (tools.delete(name)) events.dispatchEvent(new Event("toolchange"));
  }

  return {
    kind: "plain",
    received,
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),

    registerTool(tool, options = {}) {
      if (!tool || typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) throw new TypeError("Invalid tool name");
      if (typeof tool.description !== "string" || !tool.description) throw new TypeError("Invalid tool description");
      if (tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered`);
      if (options.signal?.aborted) throw options.signal.reason;
      options.signal?.addEventListener("abort", () => unregisterTool(tool.name));
      tools.set(tool.name, {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
        execute: tool.execute.bind(tool),
      });
      events.dispatchEvent(new Event("toolchange"));
    },

    unregisterTool,

    async getTools(options = {}) {
      const local = descriptors().map((tool) => ({ ...tool, origin: self.origin, window }));
      const lists = await Promise.all(
        windowsAround().map(async (win) => {
          const reply = await ask(win, { type: GET_TOOLS_REQUEST, requestId: randomId() }, GET_TOOLS_RESPONSE, LIST_TIMEOUT_MS);
          return (reply?.tools ?? []).map((tool) => ({ ...tool, window: win, remote: true }));
        }),
      );
      const seen = new Set();
      const unique = [...local, ...lists.flat()].filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
      const from = new Set(Array.isArray(options.fromOrigins) ? options.fromOrigins : []);
      return unique.filter((tool) => tool.origin === self.origin || from.has(tool.origin));
    },

    async executeTool(tool, inputObject) {
      if (JSON.stringify(inputObject) === undefined) throw new TypeError("inputObject cannot be written as JSON");
      if (!tool.remote) {
        const local = tools.get(tool.name);
        if (!local) throw new Error(`Tool ${tool.name} not found`);
        return local.execute(inputObject, {});
      }
      const request = { type: EXECUTE_REQUEST, requestId: randomId(), name: tool.name, inputObject };
      const reply = await ask(tool.window, request, EXECUTE_RESPONSE);
      if (reply.success) return reply.result;
      throw new Error(reply.error);
    },
  };
}
