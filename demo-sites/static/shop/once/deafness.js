// "Deafness" for the end-to-end suite: while `on`, this page drops every bridge message that reaches it (window
// messages and port batches) before the bridge sees it, as a page that is torn down before it runs the task
// holding a response would. While `muted`, it drops what the bridge posts on its ports (calls go on a port once
// the bridge has connected to the provider), as if the page went away before its request left. It must be
// installed before the bridge adds its listeners.

/** Installs the filters and returns their switches: `{ on, dropped, muted, unsent }`. */
export function installDeafness() {
  const deafness = { on: false, dropped: 0, muted: false, unsent: 0 };
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (...args) {
    if (deafness.muted) {
      deafness.unsent += 1;
      return undefined;
    }
    return post.apply(this, args);
  };
  addEventListener(
    "message",
    (event) => {
      const type = typeof event.data === "object" && event.data !== null ? event.data.type : undefined;
      if (deafness.on && typeof type === "string" && type.startsWith("WEBMCP_")) {
        deafness.dropped += 1;
        event.stopImmediatePropagation();
      }
    },
    true,
  );
  // Port listeners are wrapped where they are added (the bridge adds them through addEventListener).
  const guarded = new WeakMap();
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  const guard = (listener) => {
    if (!guarded.has(listener)) {
      guarded.set(listener, function (event) {
        if (deafness.on) {
          deafness.dropped += 1;
          return undefined;
        }
        return listener.call(this, event);
      });
    }
    return guarded.get(listener);
  };
  MessagePort.prototype.addEventListener = function (type, listener, options) {
    const wrapped = type === "message" && typeof listener === "function" ? guard(listener) : listener;
    return add.call(this, type, wrapped, options);
  };
  MessagePort.prototype.removeEventListener = function (type, listener, options) {
    const wrapped = type === "message" && typeof listener === "function" ? guard(listener) : listener;
    return remove.call(this, type, wrapped, options);
  };
  return deafness;
}
