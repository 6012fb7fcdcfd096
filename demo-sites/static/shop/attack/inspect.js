// What the prototype-pollution case looks at in a value handed to page code, and in the page's own prototypes.
// Imported by the consumer page (shop origin) and the echo provider (pay origin, through CORS).

const PLAIN = new Set([Object.prototype, Array.prototype]);

/**
 * Where `value` (a tree of objects) has own "__proto__" keys, objects whose prototype is not Object.prototype or
 * Array.prototype, or inherited enumerable properties: paths such as "$.a[0]". Empty lists mean plain data.
 */
export function inspect(value) {
  const report = { ownProtoKeys: [], oddPrototypes: [], inheritedKeys: [] };
  const walk = (node, path, depth) => {
    if (node === null || typeof node !== "object" || depth > 80) return;
    if (!PLAIN.has(Object.getPrototypeOf(node))) report.oddPrototypes.push(path);
    if (Object.prototype.hasOwnProperty.call(node, "__proto__")) report.ownProtoKeys.push(path);
    for (const key in node) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) report.inheritedKeys.push(`${path}.${key}`);
    }
    for (const key of Object.keys(node)) {
      walk(node[key], Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`, depth + 1);
    }
  };
  walk(value, "$", 0);
  return report;
}

const baseline = {
  object: Object.getOwnPropertyNames(Object.prototype),
  array: Object.getOwnPropertyNames(Array.prototype),
  fn: Object.getOwnPropertyNames(Function.prototype),
};

/** What was added to the built-in prototypes since this module loaded, and what a fresh object inherits. */
export function prototypesNow() {
  const added = (now, before) => now.filter((name) => !before.includes(name));
  const probe = {};
  return {
    objectPrototypeAdded: added(Object.getOwnPropertyNames(Object.prototype), baseline.object),
    arrayPrototypeAdded: added(Object.getOwnPropertyNames(Array.prototype), baseline.array),
    functionPrototypeAdded: added(Object.getOwnPropertyNames(Function.prototype), baseline.fn),
    inheritedByAFreshObject: Object.keys(Object.getPrototypeOf(probe)).concat(
      ["polluted", "isAdmin"].filter((name) => probe[name] !== undefined),
    ),
  };
}
