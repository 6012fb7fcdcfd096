// The implementations the benchmark compares, by the name used in URLs, reports and results.json.
export const IMPLS = Object.freeze(["port", "window", "penpal", "comlink", "bridge", "bridge-window", "bridge-memory", "port-journaled", "port-write-ahead"]);

/** The module of implementation `name`, or an error naming the known ones. */
export async function loadImpl(name) {
  if (!IMPLS.includes(name)) throw new Error(`unknown implementation ${JSON.stringify(name)}; known: ${IMPLS.join(", ")}`);
  return import(`/impls/${name}.js`);
}
