// The windows around this page: posting to one, telling whether a value is a window and whether it closed, where
// this window sits in its tab, which windows a consumer asks for tools (with their locators), and hints of their
// origins. Reading the window tree is all it does; what to ask and whom to answer is the session's.

// An audit hook: a function stored under this symbol on the window (by the page, before or after the bridge
// loads) hears the target origin and the message of every window message the bridge posts. A page cannot see
// these calls otherwise: `postMessage` on a window of another origin cannot be wrapped.
const POST_OBSERVER = Symbol.for("interpane.postObserver");

// Posts to a window of any origin. The target origin is always an exact origin chosen by Rust, never "*".
export function postToWindow(win, message, targetOrigin, transfer) {
  const observe = globalThis[POST_OBSERVER];
  if (typeof observe === "function") observe(targetOrigin, message);
  if (transfer) win.postMessage(message, targetOrigin, transfer);
  else win.postMessage(message, targetOrigin);
}

export function isWindow(value) {
  // A cross-origin WindowProxy is not `instanceof Window` (its prototype is hidden), but it is its own `window`.
  try {
    return value !== null && typeof value === "object" && value.window === value;
  } catch {
    return false;
  }
}

export function windowClosed(win) {
  try {
    return win.closed;
  } catch {
    return true;
  }
}

function frameIndex(parent, child) {
  try {
    for (let i = 0; i < parent.length; i++) if (parent[i] === child) return i;
  } catch {}
  return -1;
}

// Where this window sits in its tab: "top", or the frame indexes from the top ("top/1/0"). A reloaded page gets the
// same path; a sibling frame of the same origin gets another.
export function framePath() {
  const parts = [];
  let current = window;
  while (current.parent !== current) {
    parts.unshift(frameIndex(current.parent, current));
    current = current.parent;
  }
  return ["top", ...parts].join("/");
}

// The windows a consumer asks for tools, each with how to find it again after a reload: the parent, the
// parent's other frames, this page's own frames, and the opener.
export function candidateWindows() {
  const found = [];
  const seen = new Set([window]);
  const add = (win, locator) => {
    if (win && !seen.has(win)) {
      seen.add(win);
      found.push({ window: win, locator });
    }
  };
  if (window.parent !== window) {
    add(window.parent, "parent");
    for (let i = 0; i < window.parent.length; i++) add(window.parent[i], `parent/${i}`);
  }
  for (let i = 0; i < window.length; i++) add(window[i], `frame/${i}`);
  try {
    add(window.opener, "opener");
  } catch {}
  return found;
}

// Whether `win` is this window's parent, its parent's parent, ... or the top window.
export function isAncestor(win) {
  let current = window;
  while (current.parent !== current) {
    current = current.parent;
    if (current === win) return true;
  }
  return false;
}

// The iframe (or frame) element of this document whose window is `win`, or null.
export function frameElementOf(win) {
  for (const element of document.querySelectorAll("iframe, frame")) {
    if (element.contentWindow === win) return element;
  }
  return null;
}

// Origins a window is likely to have, to address discovery requests when the allowed origins include wildcards:
// the parent's origin from location.ancestorOrigins, a frame's from its element's src. Only hints: a request is
// still addressed to an exact origin, and the browser delivers it only if the window really has that origin.
export function originHints() {
  const hints = [];
  try {
    if (location.ancestorOrigins && location.ancestorOrigins.length > 0) hints.push(location.ancestorOrigins[0]);
  } catch {}
  for (const frame of document.querySelectorAll("iframe[src]")) {
    try {
      hints.push(new URL(frame.src, location.href).origin);
    } catch {}
  }
  return hints;
}
