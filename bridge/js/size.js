// How big a message is, found out without serializing or copying it: a window message of ours is measured here
// before JSON.stringify and before anything reaches wasm memory (docs/SECURITY.md, "A message over the limits
// costs the page almost nothing").

/**
 * Whether `value` would take more than `maxChars` characters of JSON text. The walk reads lengths (a string's
 * `length` costs nothing whatever its size) and stops as soon as the budget is spent, so a message of any size
 * costs at most about `maxChars` steps (every level of nesting costs at least one). The count is a lower bound of
 * the JSON length (escapes can only add), so a message within the budget is still checked exactly after
 * serializing, and its nesting by the decoder (which can then answer a too-deep request with an error).
 */
export function exceedsJsonSize(value, maxChars) {
  let budget = maxChars;
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") {
      budget -= item.length + 2;
    } else if (item === null || typeof item !== "object") {
      budget -= 4;
    } else if (ArrayBuffer.isView(item)) {
      // A typed array serializes as an object with one key per element.
      budget -= 2 + item.length * 6;
    } else if (Array.isArray(item)) {
      budget -= 2 + item.length;
      if (budget < 0) return true;
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else {
      budget -= 2;
      for (const key in item) {
        if (!Object.prototype.hasOwnProperty.call(item, key)) continue;
        budget -= key.length + 4;
        if (budget < 0) return true;
        stack.push(item[key]);
      }
    }
    if (budget < 0) return true;
  }
  return false;
}
