// Embedding the victims and reading the server's counters (for the page; the tests read them from Rust).

/** Sets the frame's src and resolves when it has loaded. */
export function load(frame, src) {
  return new Promise((resolve) => {
    frame.addEventListener("load", () => resolve(frame), { once: true });
    frame.src = src;
  });
}

/** Executions counted by the shop's and pay's pages so far, as one number each. */
export async function victimExecutions() {
  const response = await fetch("/__counters");
  const counters = await response.json();
  const sum = (site) => Object.values(counters[site] ?? {}).reduce((a, b) => a + b, 0);
  return { shop: sum("shop"), pay: sum("pay") };
}
