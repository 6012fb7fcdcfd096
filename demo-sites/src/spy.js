// Test-mode spy, injected by the demo server as the first script of every HTML page.
// It records the target origin of every postMessage call that goes through this realm's functions into
// window.__postMessageLog, so that the end-to-end suite can check that nothing was posted to '*'.
// What it sees: every window message the bridge of this page posts, through the bridge's audit hook
// (window[Symbol.for("interpane.postObserver")], entries `via: "bridge"`), and MessagePort.prototype.postMessage
// of this realm (`via: "port"`). It does not wrap window.postMessage: a call on a cross-origin window runs a
// function the browser makes for the caller, which no page script can wrap, and a wrapper on this window would
// run in this realm when a same-origin window calls it, which makes the browser report this window as the
// message's source.
(() => {
  "use strict";
  if (Object.prototype.hasOwnProperty.call(window, "__postMessageLog")) return;
  const MAX_ENTRIES = 5000;
  const log = [];
  let dropped = 0;
  Object.defineProperty(window, "__postMessageLog", { value: log });
  Object.defineProperty(window, "__postMessageLogDropped", { get: () => dropped });
  const typeOf = (data) => {
    try {
      if (data !== null && typeof data === "object" && typeof data.type === "string") return data.type.slice(0, 64);
      return data === null ? "null" : typeof data;
    } catch {
      return "unreadable";
    }
  };
  const record = (entry) => {
    if (log.length < MAX_ENTRIES) log.push(entry);
    else dropped += 1;
  };
  const targetOf = (second) => {
    if (typeof second === "string") return second;
    if (second !== null && typeof second === "object" && !Array.isArray(second)) {
      return second.targetOrigin === undefined ? "/" : String(second.targetOrigin);
    }
    return second === undefined ? "/" : String(second);
  };
  window[Symbol.for("interpane.postObserver")] = (targetOrigin, message) => {
    record({ via: "bridge", targetOrigin: String(targetOrigin), type: typeOf(message) });
  };
  const portPost = MessagePort.prototype.postMessage;
  Object.defineProperty(MessagePort.prototype, "postMessage", {
    configurable: true,
    enumerable: true,
    writable: true,
    value: function postMessage(message) {
      record({ via: "port", targetOrigin: null, type: typeOf(message) });
      return Reflect.apply(portPost, this, arguments);
    },
  });
})();
