// How big a message is, found out without serializing or copying it: a window message of ours is measured here
// before JSON.stringify and before anything reaches wasm memory (docs/SECURITY.md, "What a message costs").

/**
 * `"too_large"` when `value` would take more than `maxChars` characters of JSON text, `"too_deep"` when it nests
 * deeper than `maxDepth`, else `""`. The
 * walk reads lengths (a string's `length` costs nothing whatever its size) and stops as soon as the budget is
 * spent, so a message of any size costs at most about `maxChars` steps. The count is a lower bound of the JSON
 * length (escapes can only add), so a message within the budget is still checked exactly after serializing.
 */
export function measureMessage(value, maxChars, maxDepth) {
  let budget = maxChars;
  const stack = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop();
    if (typeof item === "string") {
      budget -= item.length + 2;
    } else if (item === null || typeof item !== "object") {
      budget -= 4;
    } else if (depth >= maxDepth) {
      return "too_deep";
    } else if (ArrayBuffer.isView(item)) {
      // A typed array serializes as an object with one key per element.
      budget -= 2 + item.length * 6;
    } else if (Array.isArray(item)) {
      budget -= 2 + item.length;
      if (budget < 0) return "too_large";
      for (let i = 0; i < item.length; i++) stack.push([item[i], depth + 1]);
    } else {
      budget -= 2;
      for (const key in item) {
        if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
        budget -= key.length + 4;
        if (budget < 0) return "too_large";
        stack.push([item[key], depth + 1]);
      }
    }
    if (budget < 0) return "too_large";
  }
  return "";
}
