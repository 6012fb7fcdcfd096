// The hand-written floor over window messages: one listener per side, request ids, and the origin and the source
// window checked on every message (the origin read before the data, which Chromium decodes faster that way).

export async function parent(win, childOrigin) {
  let nextId = 1;
  const pending = new Map();
  window.addEventListener("message", (event) => {
    if (event.origin !== childOrigin || event.source !== win) return;
    const { id, result } = event.data ?? {};
    const resolve = pending.get(id);
    if (resolve) {
      pending.delete(id);
      resolve(result);
    }
  });
  const call = (args) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      win.postMessage({ id, args }, childOrigin);
    });
  return { call, connectMs: null };
}

export async function child(parentOrigin) {
  const echo = (args) => args;
  window.addEventListener("message", (event) => {
    if (event.origin !== parentOrigin || event.source !== window.parent) return;
    const { id, args } = event.data ?? {};
    if (typeof id !== "number") return;
    window.parent.postMessage({ id, result: echo(args) }, parentOrigin);
  });
}
