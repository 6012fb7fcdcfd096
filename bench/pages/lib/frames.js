// The one message outside the implementations: the iframe telling its parent that its side is set up.

const READY = "interpane-bench:child-ready";

/** Tells the parent (at `parentOrigin`, and only there) that the child side of `impl` is ready. */
export function announceChildReady(parentOrigin, impl) {
  window.parent.postMessage({ type: READY, impl }, parentOrigin);
}

/**
 * Adds an iframe showing `url` (of `childOrigin`) and resolves to it once its side of `impl` says it is ready;
 * rejects after `timeoutMs`.
 */
export function openChild(url, childOrigin, impl, timeoutMs = 20000) {
  const frame = document.createElement("iframe");
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      window.removeEventListener("message", onMessage);
      reject(new Error(`the ${impl} iframe did not get ready within ${timeoutMs} ms`));
    }, timeoutMs);
    function onMessage(event) {
      if (event.origin !== childOrigin || event.source !== frame.contentWindow) return;
      if (event.data?.type !== READY || event.data.impl !== impl) return;
      clearTimeout(timer);
      window.removeEventListener("message", onMessage);
      resolve(frame);
    }
    window.addEventListener("message", onMessage);
  });
  frame.src = url;
  document.body.append(frame);
  return ready;
}
