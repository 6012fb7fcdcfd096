// Running a page's tool and the tool objects getTools returns: runTool calls a tool's execute and reports how it
// ended to Rust, and fires toolactivated/toolcancel at the installed bridge; the bridge's install mark on the window.

import { toolEvent } from "./context.js";

// Runs a tool's execute at once (a synchronous throw becomes a rejection too) and reports how it ended through the
// one callback Rust registered: no closure per call. Started at once, as native starts it, so that a caller that
// aborts right after executeTool() (in the same task) finds the tool running and aborts its signal, rather than a
// call that never started. As native does, the page's ModelContext hears `toolactivated` once the tool has started,
// and `toolcancel` when the call is stopped while it runs (after its signal aborted, and after the caller's promise
// rejected).
let settleTool = () => {};
export function setToolSettler(callback) {
  settleTool = callback;
}
export function runTool(token, execute, thisArg, argsText, signal) {
  let running;
  try {
    running = execute.call(thisArg, JSON.parse(argsText), { signal });
  } catch (error) {
    Promise.resolve().then(() => settleTool(token, false, error));
    return;
  }
  const context = installedBridge();
  const toolName = typeof thisArg?.name === "string" ? thisArg.name : "";
  if (context instanceof EventTarget) {
    // At the page's ModelContext, then at its window, as the platform tests expect (native 156 fires them at the
    // ModelContext only).
    const fire = (type) => {
      context.dispatchEvent(toolEvent(type, toolName));
      globalThis.dispatchEvent(toolEvent(type, toolName));
    };
    const cancelled = () => fire("toolcancel");
    signal.addEventListener("abort", cancelled, { once: true });
    Promise.resolve(running).finally(() => signal.removeEventListener("abort", cancelled)).catch(() => {});
    fire("toolactivated");
  }
  Promise.resolve(running).then((value) => settleTool(token, true, value), (error) => settleTool(token, false, error));
}

// Whether `value` is an AbortSignal of any window (a frame's signal is not an instance of this window's class).
export function isAbortSignal(value) {
  return Object.prototype.toString.call(value) === "[object AbortSignal]";
}

// These two keep the names they had before the project was renamed (interpane): a copy of an earlier version in the
// same page must still find this one, and its tool objects must still be recognised, or two bridges would serve
// one page.
export const TOOL_REF = Symbol.for("webmcp-bridge.tool");
const BRIDGE_KEY = Symbol.for("webmcp-bridge");

// The bridge already installed in this page by any copy of this module, or undefined.
export function installedBridge() {
  return bridgeIn(window);
}
// The same, of another window of this origin (a frame's).
export function bridgeIn(win) {
  return win[BRIDGE_KEY];
}
export function markInstalled(context) {
  Object.defineProperty(window, BRIDGE_KEY, { value: context, configurable: false, enumerable: false });
}

// The spec's ToolAnnotations: its hints are booleans, and the three hints false unless given, as Chromium lists them
// (`debugging` only when given; other members are kept).
const HINTS = ["readOnlyHint", "untrustedContentHint", "consequentialHint"];
function withHints(annotations) {
  if (annotations === null || typeof annotations !== "object") return annotations;
  for (const hint of HINTS) annotations[hint] = Boolean(annotations[hint]);
  if ("debugging" in annotations) annotations.debugging = Boolean(annotations.debugging);
  return annotations;
}

// A tool as getTools returns it; `ref` identifies its window to the bridge (a non-enumerable symbol property).
export function makeToolObject(name, description, inputSchema, annotations, origin, win, ref) {
  const tool = { name, description, inputSchema, annotations: withHints(annotations), origin, window: win };
  Object.defineProperty(tool, TOOL_REF, { value: ref, enumerable: false });
  Object.defineProperty(tool, "path", { value: "bridge", enumerable: false });
  return Object.freeze(tool);
}
export function toolRef(tool) {
  const ref = tool?.[TOOL_REF];
  return typeof ref === "number" ? ref : -1;
}
