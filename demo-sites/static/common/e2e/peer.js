// The page of the cross-origin end-to-end cases, served by every site at /e2e/peer.html. It loads the bridge (or
// the plain WebMCP peer, or nothing) and gives the suite small functions on window.__e2e: register tools, embed
// frames and popups of other origins, list and call tools, send raw messages. Nothing here asserts: the suite
// reads what these functions return.
//
// Query parameters: kind=bridge|plain|native|none (default bridge; native: the browser's own document.modelContext
// only, no bridge, for a Chromium with native WebMCP); expose=<sites or origins, comma-separated> (the bridge's
// exposeToolsTo, or a native page's exposedTo of every tool registered without one; default none); claimOrigin=<site or origin> (plain peer: the origin its tool lists
// claim); readyTo=<origin> (the embedder or opener, told {type: "e2e-ready"} once this page is settled);
// counterPrefix (see /common/bridge.js).
import { origins } from "/config.js";
import { loadBridge, withCounterPrefix } from "/common/bridge.js";
import { demo, settle, showOrigin } from "/common/page.js";
import { createPlainPeer } from "/common/plain-webmcp-peer.js";
import { describeOutcome, makeTool } from "./tools.js";

const params = new URLSearchParams(location.search);
const kind = params.get("kind") ?? "bridge";
const READY_TIMEOUT_MS = 10_000;
const LIST_TIMEOUT_MS = 1500;

/** The origin of a site name ("shop"), or the text itself when it is already an origin. */
const originOf = (name) => origins[name] ?? name;
const originList = (text) => (text ? text.split(",").map((entry) => originOf(entry.trim())).filter(Boolean) : []);

let context = null;
const registrations = new Map();
const calls = new Map();
const frames = new Map();
let listed = [];
let popup = null;

/** A window the suite names: "parent", "opener", "popup", "self" or the id of an embedded frame. */
function windowNamed(name) {
  if (name === "parent") return window.parent;
  if (name === "opener") return window.opener;
  if (name === "popup") return popup;
  if (name === "self") return window;
  return frames.get(name)?.contentWindow ?? null;
}

/** `url` with this page's counterPrefix and readyTo (this page's origin) added. */
function childUrl(url) {
  const withPrefix = new URL(withCounterPrefix(new URL(url, location.href).href));
  withPrefix.searchParams.set("readyTo", self.origin);
  return withPrefix.href;
}

/** Resolves with the state a window reports in its e2e-ready message (rejects after READY_TIMEOUT_MS). */
function readyFrom(getWindow) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      window.removeEventListener("message", listener);
      reject(new Error("the window did not report ready"));
    }, READY_TIMEOUT_MS);
    const listener = (event) => {
      if (event.source !== getWindow() || event.data?.type !== "e2e-ready") return;
      clearTimeout(timer);
      window.removeEventListener("message", listener);
      resolve(event.data.state);
    };
    window.addEventListener("message", listener);
  });
}

/** Tells the embedder or opener that this page has settled, at the exact origin it gave. */
function reportReady() {
  const to = params.get("readyTo");
  const target = window.parent !== window ? window.parent : window.opener;
  if (!to || !target || !Object.values(origins).includes(to)) return;
  target.postMessage({ type: "e2e-ready", state: demo.state }, to);
}

/** A call of `context.executeTool`. The plain peer resolves with the result as the wire carried it: it is given as
 * JSON text here, the kind of value native WebMCP and the bridge resolve with, which describeOutcome expects. */
function execute(tool, args, options) {
  const call = context.executeTool(tool, args, options);
  if (kind !== "plain") return call;
  return Promise.resolve(call).then((value) => (typeof value === "string" ? value : JSON.stringify(value) ?? "undefined"));
}

function findTool(name, origin) {
  const tool = listed.find((candidate) => candidate.name === name && (!origin || candidate.origin === originOf(origin)));
  if (!tool) throw new Error(`no listed tool ${name}${origin ? ` of ${origin}` : ""}; listed: ${listed.map((t) => t.name)}`);
  return tool;
}

const e2e = {
  kind,
  toolchanges: 0,
  runs: {},
  aborts: {},
  /** The page's `toolresult` events (a bridge page): name, status, recovered. */
  results: [],
  /** The `toolName` of each `toolcancel` event at the page's `document.modelContext` (a bridge or native page). */
  cancels: [],

  /** Registers a test tool (see tools.js); `options.exposedTo` takes site names or origins. */
  register(definition, options = {}) {
    const controller = new AbortController();
    const registerOptions = { signal: controller.signal };
    if (options.exposedTo !== undefined) registerOptions.exposedTo = options.exposedTo.map(originOf);
    else if (kind === "native") registerOptions.exposedTo = originList(params.get("expose"));
    const registered = context.registerTool(makeTool(definition, e2e), registerOptions);
    registrations.set(definition.name, controller);
    // Native's registerTool returns a promise: wait for it, so that the tool is listed once this resolves.
    return kind === "native" ? Promise.resolve(registered).then(() => true) : true;
  },

  /** Unregisters a tool by aborting the signal it was registered with. */
  unregister(name) {
    registrations.get(name)?.abort();
    return registrations.delete(name);
  },

  /**
   * Lists tools; fromOrigins takes site names, windows takes window names. Resolves to sorted [name, origin]. A
   * bridge waits up to LIST_TIMEOUT_MS for windows that do not answer (those of other origins than the ones asked),
   * more than its default, so that a slow machine does not drop a slow answer.
   */
  async list(options = {}) {
    const asked = { timeoutMs: LIST_TIMEOUT_MS, ...options };
    if (options.fromOrigins) asked.fromOrigins = options.fromOrigins.map(originOf);
    if (options.windows) asked.windows = options.windows.map(windowNamed);
    listed = await context.getTools(asked);
    return listed.map((tool) => [tool.name, tool.origin]).sort();
  },

  /** Calls a listed tool and resolves to its outcome ({ ok, value } or the error's fields). */
  call(name, args = {}, options = {}) {
    const tool = findTool(name, options.origin);
    const callOptions = {};
    if (options.timeoutMs) callOptions.timeoutMs = options.timeoutMs;
    if (options.callId) callOptions.callId = options.callId;
    return describeOutcome(execute(tool, args, callOptions));
  },

  /** Starts a call that the suite can abort later under `key`. */
  start(key, name, args = {}, options = {}) {
    const controller = new AbortController();
    const call = { controller, outcome: null };
    call.done = describeOutcome(execute(findTool(name, options.origin), args, { signal: controller.signal }))
      .then((outcome) => (call.outcome = outcome));
    calls.set(key, call);
    return true;
  },

  /** Aborts call `key`; says whether its promise had settled before the next task, and how. */
  async abort(key) {
    const call = calls.get(key);
    call.controller.abort();
    const nextTask = new Promise((resolve) => setTimeout(() => resolve("after a task"), 0));
    const when = await Promise.race([call.done.then(() => "before the next task"), nextTask]);
    return { when, outcome: call.outcome };
  },

  /** The outcome of call `key`, or null while it runs. */
  outcome(key) {
    return calls.get(key)?.outcome ?? null;
  },

  /** Embeds `url` as iframe #id (with `allow`, such as "tools *", when given) and resolves with its settled state
   * once it reports ready. */
  embed(id, url, allow) {
    const frame = document.createElement("iframe");
    frame.id = id;
    frame.title = id;
    if (allow) frame.allow = allow;
    frames.set(id, frame);
    const ready = readyFrom(() => frame.contentWindow);
    frame.src = childUrl(url);
    document.body.append(frame);
    return ready;
  },

  removeFrame(id) {
    frames.get(id)?.remove();
    return frames.delete(id);
  },

  /** Navigates iframe #id to `url` and resolves once the new page reports ready. */
  navigateFrame(id, url) {
    const frame = frames.get(id);
    const ready = readyFrom(() => frame.contentWindow);
    frame.src = childUrl(url);
    return ready;
  },

  /** Opens `url` in a popup and resolves with its settled state once it reports ready. */
  openPopup(url) {
    const ready = readyFrom(() => popup);
    popup = window.open(childUrl(url), "_blank");
    if (!popup) return Promise.reject(new Error("the popup was blocked"));
    return ready;
  },

  /** Closes the popup this page opened. */
  closePopup() {
    popup?.close();
    return true;
  },

  /**
   * Posts `message` to a named window at `targetOrigin` (a site name or an origin) and resolves with the first
   * message from that window with the same requestId and another type, or null after `timeoutMs`.
   */
  raw(windowName, message, targetOrigin, timeoutMs = 2000) {
    const win = windowNamed(windowName);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        window.removeEventListener("message", listener);
        resolve(null);
      }, timeoutMs);
      const listener = (event) => {
        const data = event.data;
        if (event.source !== win || data?.requestId !== message.requestId || data?.type === message.type) return;
        clearTimeout(timer);
        window.removeEventListener("message", listener);
        resolve({ origin: event.origin, data });
      };
      window.addEventListener("message", listener);
      win.postMessage(message, originOf(targetOrigin));
    });
  },

  /** What the plain peer received ({ type, origin, hasArgs, hasInputObject }), in order. */
  received() {
    return context?.received ?? [];
  },
};
Object.defineProperty(window, "__e2e", { value: e2e });

async function install() {
  if (kind === "plain") {
    const claim = params.get("claimOrigin");
    context = createPlainPeer({ claimOrigin: claim ? originOf(claim) : undefined });
  } else if (kind === "native") {
    context = document.modelContext;
    if (typeof globalThis.ModelContext !== "function" || !(context instanceof globalThis.ModelContext)) {
      throw new Error("kind=native needs the browser's own WebMCP (Chromium with --enable-features=WebMCP)");
    }
  } else if (kind === "bridge") {
    const bridge = await loadBridge();
    context = bridge.install({ exposeToolsTo: originList(params.get("expose")) });
    // From the start: a call resumed after a reload reports itself before the bridge is ready.
    context.addEventListener("toolresult", (event) =>
      e2e.results.push({ name: event.name, status: event.status, recovered: event.recovered }));
    await context.ready;
  } else {
    return "ready";
  }
  context.addEventListener("toolchange", () => (e2e.toolchanges += 1));
  if (kind !== "plain") context.addEventListener("toolcancel", (event) => e2e.cancels.push(event.toolName));
  return "ready";
}

showOrigin();
install()
  .then((state) => settle(state))
  .catch((error) => {
    console.error("webmcp e2e peer:", error);
    settle("error", error);
  })
  .finally(reportReady);
