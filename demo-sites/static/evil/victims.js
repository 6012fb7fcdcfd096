// Embedding the victims and reading the server's counters (for the page; the tests read them from Rust).
import { counterPrefix } from "/common/bridge.js";

/** Sets the frame's src and resolves when it has loaded. */
export function load(frame, src) {
  return new Promise((resolve) => {
    frame.addEventListener("load", () => resolve(frame), { once: true });
    frame.src = src;
  });
}

/** Executions counted by the shop's and pay's pages so far (under this page's counterPrefix), one number each. */
export async function victimExecutions() {
  const response = await fetch("/__counters");
  const counters = await response.json();
  const sum = (site) =>
    Object.entries(counters[site] ?? {})
      .filter(([name]) => name.startsWith(counterPrefix))
      .reduce((total, [, value]) => total + value, 0);
  return { shop: sum("shop"), pay: sum("pay") };
}
