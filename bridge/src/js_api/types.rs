//! The TypeScript declarations of the JavaScript API, added to the package's `.d.ts` by wasm-bindgen.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Options of `install()`. */
export interface InstallOptions {
  /** Origins that may see this page's tools: "https://a.example, https://b.example" or an array. */
  exposeToolsTo?: string | string[];
  /** An element whose `expose-tools-to` attribute holds the list (used when exposeToolsTo is absent). */
  element?: Element;
  /** Accept subdomain wildcards such as "https://*.example.com" (off by default). */
  allowWildcards?: boolean;
  /** The longest result sent, in characters of JSON (default 30000); longer ones become { truncated, preview }. */
  resultCap?: number;
  /** Calls one origin may have running at once (default 64). */
  maxCallsInFlight?: number;
  /** Calls of this page that may wait for an outcome at once (default 4096); more are refused. */
  maxPendingCalls?: number;
  /** Bytes of results this page holds, per caller origin, until the caller acknowledges them (default 262144);
   * beyond that the oldest are dropped and read as expired (docs/once-only.md §8). */
  maxHeldResultBytes?: number;
  /** How long getTools waits for silent windows, in ms (default 500). */
  discoveryTimeoutMs?: number;
  /** Where the call journal lives: "session" (sessionStorage, the default) or "memory". */
  storage?: "session" | "memory";
}

/** The arguments `execute` receives when no type is given: a JSON object, checked against `inputSchema`. */
export type ToolArgs = Record<string, unknown>;

/** What `execute` receives besides the arguments. */
export interface ToolExecuteContext {
  /** Aborted when the caller stops the call (or its window goes away). */
  readonly signal: AbortSignal;
}

/** A tool as a page registers it. `Args` types `execute`'s arguments (match it to `inputSchema`). */
export interface ToolDefinition<Args extends object = ToolArgs, Result = unknown> {
  name: string;
  description: string;
  inputSchema?: object;
  annotations?: object;
  /** Check arguments against inputSchema before execute runs (default true). */
  validateArgs?: boolean;
  /** Returns the result (any JSON-like value) or throws: an Error's `status` (100-599) and `retryAfter` reach
   * the caller. */
  execute(args: Args, context: ToolExecuteContext): Result | Promise<Result>;
}

export interface RegisterToolOptions {
  /** Aborting it unregisters the tool. */
  signal?: AbortSignal;
  /** Origins that may see this tool, instead of the page's exposeToolsTo. */
  exposedTo?: string | string[];
  allowWildcards?: boolean;
}

/** A tool as getTools returns it. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: object;
  readonly annotations?: object;
  /** The origin of the window that runs it, as the browser reported it. */
  readonly origin: string;
  readonly window: Window;
  /** The way its calls go (not enumerable): "bridge" (the bridge's protocol) or, where the browser has native
   * WebMCP, "native" (a tool only native listed: native's executeTool, see docs/native.md). */
  readonly path: "bridge" | "native";
}

export interface GetToolsOptions {
  /** Origins whose tools are returned besides this page's own. */
  fromOrigins?: string | string[];
  allowWildcards?: boolean;
  /** How long to wait for windows that do not answer, in ms (default 500); a number >= 1, else a TypeError. */
  timeoutMs?: number;
  /** More windows to ask, such as a popup this page opened. */
  windows?: Window[];
}

export interface ExecuteToolOptions {
  /** Aborting it stops the call; the promise rejects at once with the signal's reason. */
  signal?: AbortSignal;
  /** Your idempotency key: the same callId, from this frame of this tab (across reloads), never runs the tool again
   * while the call is kept (the last 256 settled calls, for a day; docs/once-only.md §1). */
  callId?: string;
  /** Stop the call after this many ms (no limit by default); a number >= 1, else a TypeError. */
  timeoutMs?: number;
}

/** @deprecated the earlier name of `ToolCallErrorKind`. */
export type ToolCallErrorCode = ToolCallErrorKind;

/** The category of a failed call (`ToolCallError.kind`). */
export type ToolCallErrorKind =
  | "tool_error"
  | "unknown_tool"
  | "invalid_args"
  | "too_many_calls"
  | "interrupted"
  | "cancelled"
  | "timeout"
  | "refused";

/** The error a failed call rejects with (an `Error`; test for it with `isToolCallError`). */
export interface ToolCallError extends Error {
  /** What kind of failure: branch on this, not on the message. */
  kind: ToolCallErrorKind;
  /** @deprecated `kind` under its earlier name, on `Error` objects only (a `DOMException`'s `code` is its number). */
  code?: ToolCallErrorKind | number;
  /** The HTTP-like status the tool threw with, when valid (100-599). */
  status?: number;
  /** The retryAfter the tool threw with, as given (a number, or a numeric string). */
  retryAfter?: number | string;
}

/** `toolresult`: a call of this page settled (even one resumed after a reload). */
export interface ToolResultEvent extends Event {
  readonly type: "toolresult";
  readonly callId: string;
  readonly name: string;
  readonly origin: string;
  readonly status: "completed" | "failed" | "stopped" | "interrupted";
  /** The result, as `executeTool` resolved with it: a string (an object result's JSON text). */
  readonly result?: string;
  readonly error?: ToolCallError;
  readonly durationMs: number;
  /** True when the call settled in a later page than the one that started it. */
  readonly recovered: boolean;
}

/** `toolstatus`: a call made by another page of this origin (another tab, or another frame): statuses only, never
 * its arguments or result. Observing never runs or resumes the call; only the page that made it does. */
export interface ToolStatusEvent extends Event {
  readonly type: "toolstatus";
  /** The public label of the tab whose page made the call (the same across its reloads; never its id). */
  readonly tab: string;
  readonly callId: string;
  readonly name: string;
  /** The origin of the window that runs the tool. */
  readonly origin: string;
  readonly status: "running" | "completed" | "failed" | "stopped" | "interrupted";
  /** Milliseconds from the call's start to its end, once settled. */
  readonly durationMs?: number;
}

/** `toolactivated` and `toolcancel`: one of this page's JavaScript tools started running for a call, or that call
 * was stopped while it ran (as native WebMCP fires them; of the browser's own classes where it has them). */
export interface ToolActivationEvent extends Event {
  readonly toolName: string;
}

/** The events of a `ModelContext`, by type. */
export interface ModelContextEventMap {
  /** The tools this page can see changed (a window around it registered or unregistered one). */
  toolchange: Event;
  toolactivated: ToolActivationEvent;
  toolcancel: ToolActivationEvent;
  toolresult: ToolResultEvent;
  toolstatus: ToolStatusEvent;
}

/** The object `install()` returns, also defined as `document.modelContext` (in place of the browser's native one,
 * if any: every tool registered here is registered there too). */
export interface ModelContext extends EventTarget {
  /** Resolves when the bridge is ready: it knows its tab and frame and resumed its journal (an extension). */
  readonly ready: Promise<void>;
  /** Registers a tool (at once: it is listed before this returns). Resolves with `undefined`, as native WebMCP's;
   * rejects with a `TypeError` for a missing or mistyped field, a `DOMException` `InvalidStateError` for a name
   * already registered, an invalid name or an empty description, the signal's reason when it was already
   * aborted, and an `Error` when page code that the bridge runs while it works (a replaced built-in such as
   * `RegExp.prototype.exec`) calls it: nothing is registered then. */
  registerTool<Args extends object = ToolArgs, Result = unknown>(
    tool: ToolDefinition<Args, Result>,
    options?: RegisterToolOptions,
  ): Promise<void>;
  /** Unregisters the tool `name` (an extension); whether one was removed. Called from page code that the bridge
   * runs while it works (a replaced built-in), it returns `false` and the tool is unregistered right after. */
  unregisterTool(name: string): boolean;
  /** Lists this page's tools and those of the windows around it (parent, its frames, this page's frames,
   * opener) whose origin is in `fromOrigins`. A window that has not answered within `timeoutMs` is left out: an
   * iframe still loading is listed by a later call. To wait for one, call again on `toolchange` (fired when a
   * window's tools appear), or after the iframe's `load` event plus its own `install()`. */
  getTools(options?: GetToolsOptions): Promise<Tool[]>;
  /** Calls a tool from getTools. Resolves, as native WebMCP does, with a string: a string result as it is, any
   * other result as its JSON text (`JSON.parse` it). Rejects with a `ToolCallError` (or the signal's reason when
   * aborted). */
  executeTool(tool: Tool, args?: object | string, options?: ExecuteToolOptions): Promise<string>;
  ontoolchange: ((this: ModelContext, event: Event) => void) | null;
  ontoolresult: ((this: ModelContext, event: ToolResultEvent) => void) | null;
  ontoolstatus: ((this: ModelContext, event: ToolStatusEvent) => void) | null;
  ontoolactivated: ((this: ModelContext, event: ToolActivationEvent) => void) | null;
  ontoolcancel: ((this: ModelContext, event: ToolActivationEvent) => void) | null;
  addEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, event: ModelContextEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ModelContextEventMap>(
    type: K,
    listener: (this: ModelContext, event: ModelContextEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface Document {
    /** The page's model context: the bridge's once `install()` ran (a polyfill's object is left alone). */
    readonly modelContext: ModelContext;
  }
}
"#;
