// The page's `document.modelContext` object (an EventTarget that calls straight back into Rust through its handle)
// and the events it fires: toolchange, toolresult, toolstatus, toolactivated and toolcancel. Nothing here decides
// anything; Rust says when each event fires and with what.

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

// `toolactivated` and `toolcancel`, as native fires them at its ModelContext (docs/native.md), of the browser's own
// classes (ToolActivatedEvent, ToolCancelEvent) where it has them, else of these two, which `defineOnDocument` also
// makes the page's globals where the browser has none (as the spec defines them); `toolName` either way. Not
// bubbling, not cancelable, and never trusted (script cannot make a trusted event).
class ToolEvent extends Event {
  #toolName;
  constructor(type, init = {}) {
    super(type, init);
    this.#toolName = init.toolName === undefined ? "" : String(init.toolName);
  }
  /** The name of the tool the call runs. */
  get toolName() { return this.#toolName; }
}
export class ToolActivatedEvent extends ToolEvent {}
export class ToolCancelEvent extends ToolEvent {}

export function toolEvent(type, toolName) {
  const Class = type === "toolactivated" ? globalThis.ToolActivatedEvent : globalThis.ToolCancelEvent;
  if (typeof Class === "function") {
    try {
      return new Class(type, { toolName });
    } catch {}
  }
  return new (type === "toolactivated" ? ToolActivatedEvent : ToolCancelEvent)(type, { toolName });
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
// Only this module makes ModelContext objects: `new ModelContext()` from page code is a TypeError, as native's.
const MAKE = Symbol("ModelContext");

// The mark by which any copy of the bridge tells its ModelContext class from the browser's (js/native.js): a
// registered symbol, the same in every copy.
export const BRIDGE_CLASS_MARK = Symbol.for("interpane.ModelContext");

export class ModelContext extends EventTarget {
  static [BRIDGE_CLASS_MARK] = true;
  #handle;
  #ready;
  #ontoolchange = handlerProperty(this, "toolchange");
  #ontoolresult = handlerProperty(this, "toolresult");
  #ontoolstatus = handlerProperty(this, "toolstatus");
  #ontoolactivated = handlerProperty(this, "toolactivated");
  #ontoolcancel = handlerProperty(this, "toolcancel");

  constructor(make, handle) {
    if (make !== MAKE) throw new TypeError("Illegal constructor: the page's ModelContext is document.modelContext");
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
  return new ModelContext(MAKE, handle);
}

// The handle of a document that is not fully active (one made by createHTMLDocument or DOMParser): every method
// rejects with an InvalidStateError, as the spec says.
const notActive = () =>
  Promise.reject(new DOMException("this document is not fully active: it has no WebMCP tools", "InvalidStateError"));
const inactiveHandle = { registerTool: notActive, getTools: notActive, executeTool: notActive, unregisterTool: () => false };

// Where the browser has no WebMCP: `document.modelContext` as the spec defines it, a getter of Document.prototype
// giving the bridge's object for this page's document and, for any other document of this window (not fully
// active), one object of its own whose methods reject; and the interfaces ModelContext, ToolActivatedEvent and
// ToolCancelEvent as globals, where the page has none of those names.
export function defineOnDocument(context) {
  const others = new WeakMap();
  Object.defineProperty(Document.prototype, "modelContext", {
    configurable: true,
    enumerable: true,
    get() {
      if (this === document) return context;
      if (!(this instanceof Document)) throw new TypeError("Illegal invocation");
      let other = others.get(this);
      if (!other) others.set(this, (other = new ModelContext(MAKE, inactiveHandle)));
      return other;
    },
  });
  for (const [name, value] of [["ModelContext", ModelContext], ["ToolActivatedEvent", ToolActivatedEvent], ["ToolCancelEvent", ToolCancelEvent]]) {
    if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  }
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

// The package's bundler shortens names (keeping every function's name cost 1.5 KB of the gzipped download): the
// classes a page sees keep the names the spec and docs/native.md give them.
for (const [type, name] of [
  [ModelContext, "ModelContext"],
  [ToolActivatedEvent, "ToolActivatedEvent"],
  [ToolCancelEvent, "ToolCancelEvent"],
  [ToolResultEvent, "ToolResultEvent"],
  [ToolStatusEvent, "ToolStatusEvent"],
]) {
  Object.defineProperty(type, "name", { value: name });
}
