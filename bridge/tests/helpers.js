// Page-side helpers of the bridge's browser tests. Each returns what the Rust test asserts on; none asserts.

// The targetOrigin of every WEBMCP_* message this page posted to a window, from the moment the module loads.
// (The bridge's audit hook: see postToWindow in js/windows.js.)
export const postedTargets = [];
window[Symbol.for("interpane.postObserver")] = (targetOrigin) => postedTargets.push(targetOrigin);

export function nextTask(ms = 0) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function settle(promise) {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return {
      ok: false,
      name: error?.name,
      message: error?.message,
      kind: error?.kind,
      status: error?.status,
      retryAfter: error?.retryAfter,
      isError: error instanceof Error || error instanceof DOMException,
    };
  }
}

// Calls `fn` and reports a thrown error's class name and message.
export function thrown(fn) {
  try {
    fn();
    return null;
  } catch (error) {
    return { type: error?.constructor?.name, message: error?.message };
  }
}

export function registerCounting(mc, name, execute, extra = {}) {
  const runs = { count: 0, signals: [] };
  mc.registerTool(
    {
      name,
      description: `test tool ${name}`,
      ...extra,
      async execute(args, context) {
        runs.count += 1;
        runs.signals.push(context.signal);
        return execute(args, context);
      },
    },
    extra.options,
  );
  return runs;
}

export function waitForEvent(target, type, predicate = () => true) {
  return new Promise((resolve) => {
    const listener = (event) => {
      if (predicate(event)) {
        target.removeEventListener(type, listener);
        resolve(event);
      }
    };
    target.addEventListener(type, listener);
  });
}

export function detailOf(event) {
  return {
    callId: event.callId,
    name: event.name,
    origin: event.origin,
    status: event.status,
    result: event.result,
    errorMessage: event.error?.message,
    durationMs: event.durationMs,
    recovered: event.recovered,
  };
}

// A same-origin iframe running a plain WebMCP peer written the way the GoogleChromeLabs polyfill talks: it posts
// to '*', answers to '*', sends `inputObject`, keeps only `error` on failures. It reports what it received.
export function plainPeerFrame(tools) {
  const frame = document.createElement("iframe");
  frame.srcdoc = `<script>
    const tools = ${JSON.stringify(tools)};
    window.received = [];
    window.addEventListener("message", (event) => {
      const data = event.data;
      window.received.push({ type: data && data.type, origin: event.origin });
      if (!data || typeof data.type !== "string") return;
      if (data.type === "WEBMCP_GET_TOOLS_REQUEST") {
        event.source.postMessage({ type: "WEBMCP_GET_TOOLS_RESPONSE", requestId: data.requestId,
          tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema,
            origin: "https://claimed.example" })) }, "*");
      }
      if (data.type === "WEBMCP_EXECUTE_TOOL_REQUEST") {
        const tool = tools.find((t) => t.name === data.name);
        const args = data.inputObject !== undefined ? data.inputObject : data.args;
        if (!tool) {
          event.source.postMessage({ type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: data.requestId, success: false,
            error: "Tool " + data.name + " not found" }, "*");
        } else if (tool.fails) {
          event.source.postMessage({ type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: data.requestId, success: false,
            error: tool.fails }, "*");
        } else {
          event.source.postMessage({ type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: data.requestId, success: true,
            result: { echoed: args } }, "*");
        }
      }
    });
    parent.postMessage({ peerReady: true }, "*");
  <\/script>`;
  return frameReady(frame);
}

// A same-origin iframe that acts as a plain consumer of the parent's tools (the polyfill's way: requests to '*').
export function plainConsumerFrame() {
  const frame = document.createElement("iframe");
  frame.srcdoc = `<script>
    window.request = (message) => new Promise((resolve) => {
      const listener = (event) => {
        if (event.source === parent && event.data && event.data.requestId === message.requestId
            && event.data.type !== message.type) {
          window.removeEventListener("message", listener);
          resolve({ data: event.data, origin: event.origin });
        }
      };
      window.addEventListener("message", listener);
      parent.postMessage(message, "*");
    });
    parent.postMessage({ peerReady: true }, "*");
  <\/script>`;
  return frameReady(frame);
}

// Adds `frame` to the page; resolves with it once its script posts `{ peerReady: true }`.
function frameReady(frame) {
  const ready = new Promise((resolve) => {
    const listener = (event) => {
      if (event.source === frame.contentWindow && event.data?.peerReady) {
        window.removeEventListener("message", listener);
        resolve(frame);
      }
    };
    window.addEventListener("message", listener);
  });
  document.body.appendChild(frame);
  return ready;
}

// A sandboxed iframe (opaque origin, "null") that sends `messages` to the parent, then a marker. When the
// parent hears the marker it asks the frame what it received: any reply the bridge posted before the marker was
// handled arrives at the frame before that question (messages between two windows keep their order).
export async function opaqueFrameProbe(messages) {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.srcdoc = `<script>
    const received = [];
    window.addEventListener("message", (event) => {
      if (event.data && event.data.report) {
        parent.postMessage({ received, origin: location.origin, report: true }, "*");
      } else {
        received.push(event.data && event.data.type);
      }
    });
    const messages = ${JSON.stringify(messages)};
    for (const message of messages) parent.postMessage(message, "*");
    parent.postMessage({ marker: true }, "*");
  <\/script>`;
  const report = new Promise((resolve) => {
    const listener = (event) => {
      if (event.source !== frame.contentWindow) return;
      if (event.data?.marker) frame.contentWindow.postMessage({ report: true }, "*");
      if (event.data?.report) {
        window.removeEventListener("message", listener);
        resolve({ received: event.data.received, frameOrigin: event.data.origin, eventOrigin: event.origin });
      }
    };
    window.addEventListener("message", listener);
  });
  document.body.appendChild(frame);
  const result = await report;
  frame.remove();
  return result;
}

export function journalKeys() {
  const keys = [];
  for (let i = 0; i < sessionStorage.length; i++) keys.push(sessionStorage.key(i));
  return keys.filter((k) => k.startsWith("webmcp:"));
}

export function hide() {
  // The bridge writes its journal when the page is hidden; tests trigger that path directly.
  document.dispatchEvent(new Event("freeze"));
}
