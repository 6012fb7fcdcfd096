// The JavaScript half of webmcp-bridge: only what must be JavaScript (an EventTarget subclass, event classes, a
// JSON replacer, Error objects). Nothing here decides anything; the Rust side calls these functions and the
// ModelContext methods call straight back into Rust through its handle.

export class ToolResultEvent extends Event {
  #detail;
  constructor(detail) {
    super("toolresult");
    this.#detail = detail;
  }
  /** The caller's idempotency key, or the call id the bridge made. */
  get callId() { return this.#detail.callId; }
  /** The tool's name. */
  get name() { return this.#detail.name; }
  /** The origin of the window that ran the tool. */
  get origin() { return this.#detail.origin; }
  /** "completed", "failed", "stopped" or "interrupted". */
  get status() { return this.#detail.status; }
  /** The result, when the status is "completed": the string executeTool resolved with (an object's JSON text). */
  get result() { return this.#detail.result; }
  /** The Error, for any other status. */
  get error() { return this.#detail.error; }
  /** Milliseconds from the call's start to its end. */
  get durationMs() { return this.#detail.durationMs; }
  /** True when the call settled in a later page than the one that started it (after a reload). */
  get recovered() { return this.#detail.recovered; }
}

export class ToolStatusEvent extends Event {
  #detail;
  constructor(detail) {
    super("toolstatus");
    this.#detail = detail;
  }
  /** The public label of the tab whose page made the call (the same across its reloads; never its id). */
  get tab() { return this.#detail.tab; }
  /** The caller's idempotency key, or the call id its bridge made. */
  get callId() { return this.#detail.callId; }
  /** The tool's name. */
  get name() { return this.#detail.name; }
  /** The origin of the window that runs the tool. */
  get origin() { return this.#detail.origin; }
  /** "running", "completed", "failed", "stopped" or "interrupted". */
  get status() { return this.#detail.status; }
  /** Milliseconds from the call's start to its end, once settled. */
  get durationMs() { return this.#detail.durationMs; }
}

// `toolactivated` and `toolcancel`, as native fires them at its ModelContext (docs/native.md): of the browser's own
// classes (ToolActivatedEvent, ToolCancelEvent) where it has them, else of this one; `toolName` either way. Not
// bubbling, not cancelable, and never trusted (script cannot make a trusted event).
export class ToolEvent extends Event {
  #toolName;
  constructor(type, init = {}) {
    super(type);
    this.#toolName = typeof init.toolName === "string" ? init.toolName : "";
  }
  /** The name of the tool the call runs. */
  get toolName() { return this.#toolName; }
}

function toolEvent(type, toolName) {
  const NativeEvent = type === "toolactivated" ? globalThis.ToolActivatedEvent : globalThis.ToolCancelEvent;
  if (typeof NativeEvent === "function") {
    try {
      return new NativeEvent(type, { toolName });
    } catch {}
  }
  return new ToolEvent(type, { toolName });
}

function handlerProperty(target, type) {
  let current = null;
  return {
    get() { return current; },
    set(handler) {
      if (current) target.removeEventListener(type, current);
      current = typeof handler === "function" ? handler : null;
      if (current) target.addEventListener(type, current);
    },
  };
}

const readyResolvers = new WeakMap();

export class ModelContext extends EventTarget {
  #handle;
  #ready;
  #ontoolchange = handlerProperty(this, "toolchange");
  #ontoolresult = handlerProperty(this, "toolresult");
  #ontoolstatus = handlerProperty(this, "toolstatus");
  #ontoolactivated = handlerProperty(this, "toolactivated");
  #ontoolcancel = handlerProperty(this, "toolcancel");

  constructor(handle) {
    super();
    this.#handle = handle;
    this.#ready = new Promise((resolve) => readyResolvers.set(this, resolve));
  }
  /** Resolves when the bridge knows which tab and frame it is and has resumed its journal (an extension). */
  get ready() { return this.#ready; }
  registerTool(tool, options) { return this.#handle.registerTool(tool, options ?? {}); }
  unregisterTool(name) { return this.#handle.unregisterTool(name); }
  getTools(options) { return this.#handle.getTools(options ?? {}); }
  executeTool(tool, args, options) { return this.#handle.executeTool(tool, args, options ?? {}); }
  get ontoolchange() { return this.#ontoolchange.get(); }
  set ontoolchange(handler) { this.#ontoolchange.set(handler); }
  get ontoolresult() { return this.#ontoolresult.get(); }
  set ontoolresult(handler) { this.#ontoolresult.set(handler); }
  get ontoolstatus() { return this.#ontoolstatus.get(); }
  set ontoolstatus(handler) { this.#ontoolstatus.set(handler); }
  get ontoolactivated() { return this.#ontoolactivated.get(); }
  set ontoolactivated(handler) { this.#ontoolactivated.set(handler); }
  get ontoolcancel() { return this.#ontoolcancel.get(); }
  set ontoolcancel(handler) { this.#ontoolcancel.set(handler); }
}

export function makeModelContext(handle) {
  return new ModelContext(handle);
}

export function markReady(context) {
  readyResolvers.get(context)?.();
}

export function fireToolChange(target) {
  target.dispatchEvent(new Event("toolchange"));
}

export function fireToolResult(target, detail) {
  target.dispatchEvent(new ToolResultEvent(detail));
}

export function fireToolStatus(target, detail) {
  target.dispatchEvent(new ToolStatusEvent(detail));
}

// The channel on which the pages of this origin announce how their calls go (statuses only). Rust posts with
// announceCall and hears the others' announcements through the one callback it gave to watchCalls.
let callsChannel = null;
export function watchCalls(channelName, callback) {
  try {
    callsChannel = new BroadcastChannel(channelName);
    callsChannel.onmessage = (event) => callback(event.data);
  } catch {}
}
export function announceCall(message) {
  try {
    callsChannel?.postMessage(message);
  } catch {}
}

export function makeError(message, name, code, status, retryAfter) {
  const error = new Error(message);
  if (name && name !== "Error") error.name = name;
  if (code) error.code = code;
  if (status !== undefined) error.status = status;
  if (retryAfter !== undefined) error.retryAfter = retryAfter;
  return error;
}

// A DOMException of the name native WebMCP rejects with (DataError, InvalidStateError, UnknownError), with the
// bridge's `code` as an own property when given: DOMException's own `code` is a read-only number on its prototype,
// which this shadows.
export function makeDomException(message, name, code, status, retryAfter) {
  const error = new DOMException(message, name);
  if (code) Object.defineProperty(error, "code", { value: code, enumerable: true, writable: true, configurable: true });
  if (status !== undefined) error.status = status;
  if (retryAfter !== undefined) error.retryAfter = retryAfter;
  return error;
}

function nodeName(value) {
  if (typeof Node !== "undefined" && value instanceof Node) return `[${value.nodeName.toLowerCase()}]`;
  if (typeof Window !== "undefined" && value instanceof Window) return "[window]";
  return null;
}

// JSON text of a tool's result (or any value) that is always safe to post and to parse again: dates become ISO
// strings (their toJSON), undefined becomes null, functions and symbols are dropped, a DOM node becomes a short
// name such as "[dialog]", an object met again inside itself becomes "[circular]", a BigInt its decimal string.
export function safeJson(value) {
  const ancestors = [];
  function replacer(key, current) {
    // `this` is the object that holds `key`: drop the ancestors that are not on the path to it.
    if (typeof current === "object" && current !== null) {
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      const name = nodeName(current);
      if (name !== null) return name;
      if (ancestors.includes(current)) return "[circular]";
      ancestors.push(current);
      return current;
    }
    if (typeof current === "bigint") return current.toString();
    return current;
  }
  const text = JSON.stringify(value === undefined ? null : value, replacer);
  // JSON.stringify returns undefined for a top-level function or symbol.
  return text === undefined ? "null" : text;
}

function describeValue(value) {
  try {
    return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

// The fields of whatever a tool threw that Rust reads: an Error, an object with a message, a string, anything.
// Rust applies the rules (which names, statuses and retryAfter values are kept).
export function describeThrown(thrown) {
  if (typeof thrown === "object" && thrown !== null) {
    const message = typeof thrown.message === "string" ? thrown.message : describeValue(thrown);
    return {
      message: message || "the tool failed without a message",
      name: typeof thrown.name === "string" ? thrown.name : undefined,
      status: thrown.status,
      retryAfter: thrown.retryAfter,
    };
  }
  return { message: describeValue(thrown) || "the tool failed without a message" };
}

// JSON.parse, with every "__proto__" key removed (a reviver deletes a key by returning undefined). The reviver
// slows parsing down, so the Rust side asks for it only when the text has such a key.
export function parseWithoutProtoKeys(text) {
  return JSON.parse(text, function (key, value) {
    return key === "__proto__" ? undefined : value;
  });
}

// An audit hook: a function stored under this symbol on the window (by the page, before or after the bridge
// loads) hears the target origin and the message of every window message the bridge posts. A page cannot see
// these calls otherwise: `postMessage` on a window of another origin cannot be wrapped.
const POST_OBSERVER = Symbol.for("webmcp-bridge.postObserver");

// Posts to a window of any origin. The target origin is always an exact origin chosen by Rust, never "*".
export function postToWindow(win, message, targetOrigin, transfer) {
  const observe = globalThis[POST_OBSERVER];
  if (typeof observe === "function") observe(targetOrigin, message);
  if (transfer) win.postMessage(message, targetOrigin, transfer);
  else win.postMessage(message, targetOrigin);
}

export function isWindow(value) {
  // A cross-origin WindowProxy is not `instanceof Window` (its prototype is hidden), but it is its own `window`.
  try {
    return value !== null && typeof value === "object" && value.window === value;
  } catch {
    return false;
  }
}

export function windowClosed(win) {
  try {
    return win.closed;
  } catch {
    return true;
  }
}

function frameIndex(parent, child) {
  try {
    for (let i = 0; i < parent.length; i++) if (parent[i] === child) return i;
  } catch {}
  return -1;
}

// Where this window sits in its tab: "top", or the frame indexes from the top ("top/1/0"). A reloaded page gets the
// same path; a sibling frame of the same origin gets another.
export function framePath() {
  const parts = [];
  let current = window;
  while (current.parent !== current) {
    parts.unshift(frameIndex(current.parent, current));
    current = current.parent;
  }
  return ["top", ...parts].join("/");
}

// The windows a consumer asks for tools, each with how to find it again after a reload: the parent, the
// parent's other frames, this page's own frames, and the opener.
export function candidateWindows() {
  const found = [];
  const seen = new Set([window]);
  const add = (win, locator) => {
    if (win && !seen.has(win)) {
      seen.add(win);
      found.push({ window: win, locator });
    }
  };
  if (window.parent !== window) {
    add(window.parent, "parent");
    for (let i = 0; i < window.parent.length; i++) add(window.parent[i], `parent/${i}`);
  }
  for (let i = 0; i < window.length; i++) add(window[i], `frame/${i}`);
  try {
    add(window.opener, "opener");
  } catch {}
  return found;
}

// Whether `win` is this window's parent, its parent's parent, ... or the top window.
export function isAncestor(win) {
  let current = window;
  while (current.parent !== current) {
    current = current.parent;
    if (current === win) return true;
  }
  return false;
}

// The iframe (or frame) element of this document whose window is `win`, or null.
export function frameElementOf(win) {
  for (const element of document.querySelectorAll("iframe, frame")) {
    if (element.contentWindow === win) return element;
  }
  return null;
}

// Origins a window is likely to have, to address discovery requests when the allowed origins include wildcards:
// the parent's origin from location.ancestorOrigins, a frame's from its element's src. Only hints: a request is
// still addressed to an exact origin, and the browser delivers it only if the window really has that origin.
export function originHints() {
  const hints = [];
  try {
    if (location.ancestorOrigins && location.ancestorOrigins.length > 0) hints.push(location.ancestorOrigins[0]);
  } catch {}
  for (const frame of document.querySelectorAll("iframe[src]")) {
    try {
      hints.push(new URL(frame.src, location.href).origin);
    } catch {}
  }
  return hints;
}

// Tells a reload from a duplicated tab (docs/once-only.md §5). Resolves "owner" when this page is its tab's page in
// its frame slot, "duplicate" when a live page of the same tab and slot proved that it is alive (this page is a
// copy), "unknown" when the browser has no Web Locks or no Web Crypto. `decide(event, proven)` is the policy's
// claim_step: it hears "taken", "held", "answer" (with whether the answer is the expected proof) and "timeout", and
// says "owner", "duplicate", "probe" or "wait"; it is never called once the claim has settled.
//
// Nothing another page can read lets it claim the tab: the lock's name and every proof are HMAC-SHA-256 values
// keyed with the tab id, which stays in this tab's sessionStorage. A probe carries a fresh random nonce, and only a
// page that knows the tab id can answer it with the proof for it.
export async function claimLock(tab, slot, channelName, timeoutMs, decide) {
  const locks = globalThis.navigator?.locks;
  const subtle = globalThis.crypto?.subtle;
  if (!locks || !subtle) return "unknown";
  let key, lockName, nonce, expected;
  try {
    key = await subtle.importKey("raw", new TextEncoder().encode(tab), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    lockName = `webmcp:${await tabMac(key, "lock", slot)}`;
    nonce = hexOf(crypto.getRandomValues(new Uint8Array(16)));
    expected = await tabMac(key, "proof", slot, nonce);
  } catch {
    return "unknown";
  }
  return new Promise((resolve) => {
    let settled = false;
    let answer = "unknown";
    let channel = null;
    let timer = null;
    const waiting = new AbortController();
    const act = (event, proven) => {
      if (settled) return;
      const step = decide(event, proven === true);
      if (step === "probe") return probe();
      if (step !== "owner" && step !== "duplicate") return;
      settled = true;
      answer = step;
      clearTimeout(timer);
      channel?.close();
      if (step === "owner") answerProbes(key, lockName, slot, channelName);
      else waiting.abort();
      resolve(step);
    };
    const probe = () => {
      try {
        channel = new BroadcastChannel(channelName);
        channel.onmessage = (event) => {
          const data = event.data;
          if (data?.alive === lockName && data.nonce === nonce) act("answer", data.proof === expected);
        };
        channel.postMessage({ probe: lockName, nonce });
      } catch {}
      timer = setTimeout(() => act("timeout"), timeoutMs);
      // Wait for the lock meanwhile: a reload's old page lets go of it. A page that became the owner without it (its
      // holder is not of this tab) keeps waiting, and holds it once its holder lets go.
      locks
        .request(lockName, { signal: waiting.signal }, () => {
          act("taken");
          return answer === "owner" ? new Promise(() => {}) : undefined;
        })
        .catch(() => {});
    };
    locks
      .request(lockName, { ifAvailable: true }, (lock) => {
        act(lock ? "taken" : "held");
        return lock && answer === "owner" ? new Promise(() => {}) : undefined;
      })
      .catch(() => {
        if (!settled) {
          settled = true;
          resolve("unknown");
        }
      });
  });
}

// Answers the probes of copies of this page (same tab, same slot) with the proof for their nonce.
function answerProbes(key, lockName, slot, channelName) {
  try {
    const channel = new BroadcastChannel(channelName);
    channel.onmessage = async (event) => {
      const data = event.data;
      if (data?.probe !== lockName || typeof data.nonce !== "string" || !/^[0-9a-f]{32}$/.test(data.nonce)) return;
      if ("alive" in data) return;
      try {
        channel.postMessage({ alive: lockName, nonce: data.nonce, proof: await tabMac(key, "proof", slot, data.nonce) });
      } catch {}
    };
  } catch {}
}

function hexOf(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The first 128 bits of HMAC-SHA-256(tab id, parts joined with NUL), in hex: one-way, so it names or proves
// without telling the tab id. The parts (a purpose, a frame slot, a hex nonce) hold no NUL.
async function tabMac(key, ...parts) {
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(parts.join("\0")));
  return hexOf(new Uint8Array(mac, 0, 16));
}

// Runs a tool's execute in a microtask (so that a synchronous throw becomes a rejection too) and reports how it
// ended through the one callback Rust registered: no closure per call.
let settleTool = () => {};
export function setToolSettler(callback) {
  settleTool = callback;
}
// A call stopped before its turn came (its cancel arrived in the same batch as its request) never starts. As native
// does, the page's ModelContext hears `toolactivated` once the tool has started, and `toolcancel` when the call is
// stopped while it runs (after its signal aborted, and after the caller's promise rejected).
export function runTool(token, execute, thisArg, argsText, signal) {
  Promise.resolve()
    .then(() => {
      if (signal.aborted) throw signal.reason;
      const running = execute.call(thisArg, JSON.parse(argsText), { signal });
      const context = installedBridge();
      const toolName = typeof thisArg?.name === "string" ? thisArg.name : "";
      if (context instanceof EventTarget) {
        const cancelled = () => context.dispatchEvent(toolEvent("toolcancel", toolName));
        signal.addEventListener("abort", cancelled, { once: true });
        Promise.resolve(running).finally(() => signal.removeEventListener("abort", cancelled)).catch(() => {});
        context.dispatchEvent(toolEvent("toolactivated", toolName));
      }
      return running;
    })
    .then((value) => settleTool(token, true, value), (error) => settleTool(token, false, error));
}

export const TOOL_REF = Symbol.for("webmcp-bridge.tool");
const BRIDGE_KEY = Symbol.for("webmcp-bridge");

// The bridge already installed in this page by any copy of this module, or undefined.
export function installedBridge() {
  return window[BRIDGE_KEY];
}
export function markInstalled(context) {
  Object.defineProperty(window, BRIDGE_KEY, { value: context, configurable: false, enumerable: false });
}

// A tool as getTools returns it; `ref` identifies its window to the bridge (a non-enumerable symbol property).
export function makeToolObject(name, description, inputSchema, annotations, origin, win, ref) {
  const tool = { name, description, inputSchema, annotations, origin, window: win };
  Object.defineProperty(tool, TOOL_REF, { value: ref, enumerable: false });
  Object.defineProperty(tool, "path", { value: "bridge", enumerable: false });
  return Object.freeze(tool);
}
export function toolRef(tool) {
  const ref = tool?.[TOOL_REF];
  return typeof ref === "number" ? ref : -1;
}

// Native WebMCP (the browser's own document.modelContext, docs/native.md). Rust decides what to register and with
// which exposedTo; these functions only make the objects and calls native takes.

// The browser's own ModelContext when `value` is one (not a polyfill, not this bridge's object), else null.
export function nativeModelContext(value) {
  const NativeModelContext = globalThis.ModelContext;
  return typeof NativeModelContext === "function" && value instanceof NativeModelContext ? value : null;
}

// Native's own registerTool, kept when watchNativeRegistrations puts its watcher in its place: the bridge's own
// registrations go straight to it, unwatched.
let nativeRegisterTool = null;

// Watches the registrations that other code on the page makes through a reference to the native object (taken
// before install()): each one native accepted, and whose signal has not aborted meanwhile, reaches `registered(tool,
// options)` (Rust: the bridge registers it too, with exactly its exposedTo, docs/native.md). What native returns is
// returned unchanged. Registrations made before install() cannot be seen here; nor calls of
// ModelContext.prototype.registerTool on the object.
export function watchNativeRegistrations(native, registered) {
  const original = native.registerTool;
  nativeRegisterTool = original;
  Object.defineProperty(native, "registerTool", {
    configurable: true,
    writable: true,
    value: function registerTool(tool, options) {
      const result = original.call(this, tool, options);
      if (this === native) {
        Promise.resolve(result).then(
          () => {
            if (!options?.signal?.aborted) registered(tool, options ?? {});
          },
          () => {},
        );
      }
      return result;
    },
  });
}

// Hears every native registration that failed (name, error); set once by Rust.
let nativeFailed = () => {};
export function setNativeFailureHandler(callback) {
  nativeFailed = callback;
}

// Registers a tool with native: its execute runs the page's `execute` (with `this` the page's tool object, and a
// context whose signal is never aborted: native runs a call to its end) or a Rust function. A refusal, thrown or
// as a rejected promise, reaches the failure handler, unless the tool was unregistered meanwhile.
export function registerNative(
  native, name, description, inputSchema, annotations, execute, thisArg, exposedTo, signal,
) {
  const tool = {
    name,
    description,
    execute(input, client) {
      return execute.call(thisArg, input ?? {}, { signal: new AbortController().signal, client });
    },
  };
  if (inputSchema !== undefined) tool.inputSchema = inputSchema;
  if (annotations !== undefined) tool.annotations = annotations;
  const failed = (error) => {
    if (!signal.aborted) nativeFailed(name, error);
  };
  try {
    const register = nativeRegisterTool ?? native.registerTool;
    Promise.resolve(register.call(native, tool, { signal, exposedTo })).catch(failed);
  } catch (error) {
    failed(error);
  }
}

// Native's tools as this page's getTools lists them (docs/native.md, "The path of a call"). `fromOrigins` (exact
// origins) is passed when not empty; a refusal (NotAllowedError: the frame lacks allow="tools", say) lists what
// native gives without it, and any other failure lists nothing: the bridge's own listing stands.
export async function nativeGetTools(native, fromOrigins) {
  try {
    return Array.from(await native.getTools(fromOrigins.length > 0 ? { fromOrigins } : {}));
  } catch {
    try {
      return fromOrigins.length > 0 ? Array.from(await native.getTools()) : [];
    } catch {
      return [];
    }
  }
}

const NATIVE_TOOL = Symbol("webmcp-bridge.nativeTool");

// A tool only native listed, shaped like the bridge's tool objects (path "native"), holding native's own object
// (native refuses forged ones) for executeTool.
export function nativeToolObject(native) {
  const tool = {
    name: native.name,
    description: native.description,
    inputSchema: native.inputSchema,
    annotations: native.annotations,
    origin: native.origin,
    window: native.window,
  };
  Object.defineProperty(tool, NATIVE_TOOL, { value: native, enumerable: false });
  Object.defineProperty(tool, "path", { value: "native", enumerable: false });
  return Object.freeze(tool);
}

// Native's object of a tool from nativeToolObject, or null.
export function nativeToolOf(tool) {
  try {
    return tool?.[NATIVE_TOOL] ?? null;
  } catch {
    return null;
  }
}

// Calls a tool on native's path. An abort rejects with the signal's reason, as on the bridge's path; any other
// refusal becomes an Error with native's name and message, and code "tool_error" for native's UnknownError (every
// error the tool throws: native keeps neither its message, nor status, nor retryAfter), "refused" otherwise.
export function executeNative(native, tool, input, signal) {
  let call;
  try {
    call = Promise.resolve(native.executeTool(tool, input, signal ? { signal } : {}));
  } catch (error) {
    call = Promise.reject(error);
  }
  if (signal) {
    const aborted = new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    call = Promise.race([call, aborted]);
  }
  // Native resolves with a string (an object result's JSON text), as the bridge's path does: passed on as it is.
  return call.then((text) => (typeof text === "string" ? text : String(text)), (error) => {
    if (signal?.aborted) throw signal.reason;
    const name = typeof error?.name === "string" ? error.name : "Error";
    const message = typeof error?.message === "string" ? error.message : String(error);
    const code = name === "UnknownError" ? "tool_error" : "refused";
    // Native's DOMException (UnknownError, TypeError's siblings) is passed on as the same kind of error.
    if (error instanceof DOMException) throw makeDomException(message, name, code);
    throw makeError(message, name, code);
  });
}
