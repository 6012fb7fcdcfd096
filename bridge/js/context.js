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

export function toolEvent(type, toolName) {
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
