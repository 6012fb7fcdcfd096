// The scripted assistant: turns a typed command into a tool call. No language model, on purpose.

export const HELP = [
  "search <words>: search the menu (try: search vegetarian)",
  "add [n] <pizza>: add to the cart (try: add 2 margherita)",
  "cart: show the cart",
  "checkout: pay through the shop's payment provider",
  "tools: list the shop's tools again",
];

/**
 * parseCommand("add 2 margherita") ->
 *   { kind: "call", tool: "add_to_cart", args: { sku: "margherita", quantity: 2 } }
 * Other kinds: "help", "tools", "empty", "unknown" (with a reply to show).
 */
export function parseCommand(text) {
  const words = String(text).trim().toLowerCase().split(/\s+/).filter(Boolean);
  const [verb, ...rest] = words;
  switch (verb) {
    case undefined:
      return { kind: "empty" };
    case "help":
    case "?":
      return { kind: "help" };
    case "tools":
      return { kind: "tools" };
    case "search":
    case "find":
      if (rest.length === 0) return { kind: "unknown", reply: "Search for what? Try: search pizza" };
      return { kind: "call", tool: "search_products", args: { query: rest.join(" ") } };
    case "add": {
      let quantity = 1;
      if (rest.length > 0 && /^\d+$/.test(rest[0])) quantity = Number(rest.shift());
      if (rest.length === 0) return { kind: "unknown", reply: "Add which pizza? Try: add 2 margherita" };
      return { kind: "call", tool: "add_to_cart", args: { sku: rest.join("-"), quantity } };
    }
    case "cart":
      return { kind: "call", tool: "get_cart", args: {} };
    case "checkout":
    case "pay":
      return { kind: "call", tool: "checkout", args: {} };
    default:
      return { kind: "unknown", reply: `I don't know "${verb}". Type help to see what I can do.` };
  }
}

/** The chip state of a rejected call: stopped, interrupted or failed. */
export function stateOfError(error) {
  if (error?.name === "AbortError" || error?.kind === "cancelled") return "stopped";
  if (error?.kind === "interrupted") return "interrupted";
  return "failed";
}

/** "Search is rate limited · status 429 · retry after 30 s" */
export function describeError(error) {
  const parts = [String(error?.message ?? error)];
  if (error?.status !== undefined) parts.push(`status ${error.status}`);
  if (error?.retryAfter !== undefined) parts.push(`retry after ${error.retryAfter} s`);
  return parts.join(" · ");
}
