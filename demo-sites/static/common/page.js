// Shared by every demo page: the page's status for people (footer, banners) and for the test harness
// (window.__demo), and small DOM helpers.
import { config } from "/config.js";

/** The page's state as the end-to-end suite reads it. */
export const demo = {
  site: config.site,
  // self.origin, not location.origin: a sandboxed document has an opaque origin ("null") whatever its URL.
  origin: self.origin,
  /** "loading", then "ready" (bridge installed), "no-bridge" (package missing) or "error". */
  state: "loading",
  error: null,
};
Object.defineProperty(window, "__demo", { value: demo });

/** Creates an element: el("li", { class: "x", dataset: { id: 1 } }, "text", child). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else if (value !== false && value != null) node.setAttribute(key, String(value));
  }
  node.append(...children.filter((child) => child != null));
  return node;
}

/** Writes this page's origin into its footer, so a person (and a test) sees which origin they are on. */
export function showOrigin() {
  document.documentElement.dataset.origin = self.origin;
  const footer = document.querySelector("footer.origin") ?? document.body.appendChild(el("footer", { class: "origin" }));
  footer.replaceChildren("This page: ", el("code", { id: "origin" }, self.origin));
}

/** Shows a banner at the top of <main>. */
export function banner(message, kind = "warning") {
  const node = el("div", { class: `banner ${kind === "error" ? "error" : ""}`, role: "status" }, message);
  (document.querySelector("main") ?? document.body).prepend(node);
  return node;
}

/** Records the page's final loading state. */
export function settle(state, error = null) {
  demo.state = state;
  demo.error = error ? String(error.message ?? error) : null;
  document.documentElement.dataset.state = state;
}

/** The value of a numeric query parameter, or the fallback. */
export function numberParam(name, fallback) {
  const raw = new URLSearchParams(location.search).get(name);
  const value = raw === null ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}
