// The shop as the victim of the attack cases: the real shop page (shop.js, its tools, the widget and pay frames)
// with one more frame of the attacker's origin, and three things a test needs to see inside the victim:
// - every console warning, kept before the bridge loads (window.__victim.warnings);
// - the call ids that cross this window to or from its widget and pay frames, on their windows or private ports
//   (window.__victim.seen): what a thief who learned them could replay, so that the attacker frame can be handed
//   real ids of calls in flight;
// - how many window messages the bridge posted to each target origin (window.__victim.bridgePosts), with no cap,
//   through the bridge's audit hook (the test-mode spy keeps only its first 5,000 entries).
import { origins } from "/config.js";
import { withCounterPrefix } from "/common/bridge.js";
import { settle } from "/common/page.js";

const MAX_SEEN = 2000;
const warnings = [];
const seen = [];
const bridgePosts = {};

const originalWarn = console.warn;
console.warn = function warn(...parts) {
  warnings.push(parts.map((part) => String(part)).join(" "));
  return originalWarn.apply(this, parts);
};

/** Notes a WEBMCP_ message between this page and its real widget or pay frame (`peer`), or on a port. */
function note(dir, via, peer, data) {
  if (seen.length >= MAX_SEEN || peer === null) return;
  if (data === null || typeof data !== "object" || typeof data.type !== "string" || !data.type.startsWith("WEBMCP_")) return;
  seen.push({
    dir,
    via,
    peer,
    type: data.type,
    requestId: typeof data.requestId === "string" ? data.requestId : null,
    name: typeof data.name === "string" ? data.name : null,
    // A response is kept whole: a thief replays it later.
    data: data.type === "WEBMCP_EXECUTE_TOOL_RESPONSE" ? structuredClone(data) : null,
  });
}

/** "widget" or "pay" when `win` is the shop's own widget or pay frame (not merely a window of that origin). */
function peerOf(win) {
  if (win === document.getElementById("widget-frame")?.contentWindow) return "widget";
  if (win === document.getElementById("pay-frame")?.contentWindow) return "pay";
  return null;
}

const utf8 = new TextDecoder();

/** Port traffic is a batch: JSON text holding an array of envelopes, as a string or as its UTF-8 bytes. */
function noteBatch(dir, data) {
  const text = data instanceof Uint8Array ? utf8.decode(data) : data;
  if (typeof text !== "string") return;
  try {
    const batch = JSON.parse(text);
    if (Array.isArray(batch)) for (const envelope of batch) note(dir, "port", "a port", envelope);
  } catch {
    // Not a batch of ours.
  }
}

window.addEventListener("message", (event) => note("in", "window", peerOf(event.source), event.data));

const observerKey = Symbol.for("interpane.postObserver");
const spyObserver = window[observerKey];
window[observerKey] = (targetOrigin, message) => {
  const key = String(targetOrigin);
  bridgePosts[key] = (bridgePosts[key] ?? 0) + 1;
  note("out", "window", key === origins.widget || key === origins.pay ? key : null, message);
  if (typeof spyObserver === "function") spyObserver(targetOrigin, message);
};

const portPost = MessagePort.prototype.postMessage;
Object.defineProperty(MessagePort.prototype, "postMessage", {
  configurable: true,
  enumerable: true,
  writable: true,
  value: function postMessage(message) {
    noteBatch("out", message);
    return Reflect.apply(portPost, this, arguments);
  },
});
const portStart = MessagePort.prototype.start;
MessagePort.prototype.start = function start() {
  this.addEventListener("message", (event) => noteBatch("in", event.data));
  return Reflect.apply(portStart, this, arguments);
};

/** The shop's memory: JS heap (precise only with --enable-precise-memory-info), the bridge's wasm memory, storage. */
async function memory() {
  if (typeof globalThis.gc === "function") globalThis.gc();
  const bridge = await import("/pkg/interpane.js");
  const exports = await bridge.default();
  let storageChars = 0;
  for (let index = 0; index < sessionStorage.length; index += 1) {
    const key = sessionStorage.key(index);
    storageChars += key.length + (sessionStorage.getItem(key)?.length ?? 0);
  }
  return {
    jsHeapBytes: performance.memory?.usedJSHeapSize ?? null,
    wasmBytes: exports.memory.buffer.byteLength,
    storageChars,
    gc: typeof globalThis.gc === "function",
  };
}

Object.defineProperty(window, "__victim", { value: { warnings, seen, bridgePosts, memory } });

try {
  await import("/shop.js");
  document.getElementById("evil-frame").src = withCounterPrefix(`${origins.evil}/attack/attacker.html`);
} catch (error) {
  console.error("webmcp demo victim:", error);
  settle("error", error);
}
