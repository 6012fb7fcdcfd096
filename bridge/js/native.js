// Native WebMCP (the browser's own document.modelContext, docs/native.md). Rust decides what to register and with
// which exposedTo; these functions only make the objects and calls native takes.

import { BRIDGE_CLASS_MARK } from "./context.js";

// The browser's own ModelContext when `value` is one (not a polyfill, not this bridge's object), else null. Where
// the browser has none, a bridge (this copy of the module or another) made its own class the page's ModelContext:
// that class is marked, and is not the browser's.
export function nativeModelContext(value) {
  const NativeModelContext = globalThis.ModelContext;
  if (typeof NativeModelContext !== "function" || NativeModelContext[BRIDGE_CLASS_MARK]) return null;
  return value instanceof NativeModelContext ? value : null;
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

// Hands every call native makes of a tool the bridge registered to the bridge: (registration, name, input, signal) to a
// promise. Set once by Rust.
let nativeCall = () => Promise.reject(new Error("interpane: the bridge is not installed"));
export function setNativeCallHandler(callback) {
  nativeCall = callback;
}

// Registers a tool with native. Its execute does not run the page's tool: it hands the call to the bridge (the
// browser's agent, or a frame that reaches this page only through native, called it), which checks the arguments
// as on its own path, journals the call, runs the tool with a signal that aborts when native's caller aborts
// (options.signal), fires toolresult, and settles the promise native waits for. A refusal, thrown or as a rejected
// promise, reaches the failure handler, unless the tool was unregistered meanwhile.
export function registerNative(native, registration, name, description, inputSchema, annotations, exposedTo, signal) {
  const tool = {
    name,
    description,
    execute(input, options) {
      // The signal may be read from a dictionary native made; anything but an AbortSignal counts as none.
      const callSignal = options?.signal instanceof AbortSignal ? options.signal : null;
      return nativeCall(registration, name, input, callSignal);
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

// Native's tools as this page's getTools lists them (docs/native.md, "The path of a call"): `asks` (the policy's
// native_asks) are tried in order until native answers one, each an array of exact origins for
// getTools({ fromOrigins }) or null for getTools(). Resolves with the tools native listed (null when it refused
// every ask) and what it said when it refused, in one line: Rust warns of a listing native refused whole.
export async function nativeGetTools(native, asks) {
  const refusals = [];
  for (const fromOrigins of asks) {
    try {
      const tools = Array.from(await (fromOrigins ? native.getTools({ fromOrigins }) : native.getTools()));
      return { tools, refused: refusals.join("; ") };
    } catch (error) {
      refusals.push(`${error?.name ?? "Error"}: ${error?.message ?? String(error)}`);
    }
  }
  return { tools: null, refused: refusals.join("; ") };
}

const NATIVE_TOOL = Symbol("interpane.nativeTool");

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
// rejection is passed on as native gave it (what its name means is the policy's native_rejection_kind).
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
    throw signal?.aborted ? signal.reason : error;
  });
}
