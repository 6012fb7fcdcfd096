// Every way in the attacker tries, against the shop and the pay provider. Each attack reports "blocked" when
// nothing came back that reveals a tool or a result, "leaked" otherwise, or "skipped" when it cannot run here.
// The attacker waits a fixed time for replies: silence can only be observed by waiting.

const REPLY_WAIT_MS = 400;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An id that looks like a real one. */
export function randomId(prefix = "c_") {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** A short, safe description of a reply for the results table. */
function summarize(data) {
  try {
    const text = JSON.stringify(data);
    return text === undefined ? String(data) : text.slice(0, 160);
  } catch {
    return String(data).slice(0, 160);
  }
}

/** What in a reply would mean the attack got something. */
function leakIn(data) {
  if (data === null || typeof data !== "object") return null;
  if (Array.isArray(data.tools) && data.tools.length > 0) return `listed ${data.tools.map((t) => t?.name).join(", ")}`;
  if (data.success === true) return "got a successful result";
  if (data.type === "WEBMCP_CONNECTED") return "was given a connection";
  if (data.type === "WEBMCP_CALL_STATUS_RESPONSE" && data.state === "running") return "learned a call is running";
  return null;
}

/**
 * Posts `messages` to `target.window` (addressed to its real origin) and collects, for REPLY_WAIT_MS, what
 * that window sends back to this one.
 */
export async function probe(target, messages, { transfer = [], waitMs = REPLY_WAIT_MS } = {}) {
  // A reply counts for this attack when it names one of the ids this attack sent; a victim that answers
  // late is still watched by watchReplies, so nothing it sends goes unchecked.
  const ids = new Set(messages.flatMap(idsIn));
  const replies = [];
  const onMessage = (event) => {
    if (event.source === target.window && ids.has(event.data?.requestId)) replies.push(event.data);
  };
  window.addEventListener("message", onMessage);
  try {
    messages.forEach((message, index) => target.window.postMessage(message, target.origin, index === 0 ? transfer : []));
    await sleep(waitMs);
  } finally {
    window.removeEventListener("message", onMessage);
  }
  return replies;
}

function idsIn(message) {
  if (message === null || typeof message !== "object") return [];
  const ids = [message.requestId, ...(Array.isArray(message.requestIds) ? message.requestIds : [])];
  return ids.filter((id) => typeof id === "string");
}

/**
 * Records every message the victims' windows send to this window, for the whole run, whatever attack it
 * answers: a late reply must not escape the check. Returns { row(), stop() }; row() is the final table row.
 */
export function watchReplies(targets) {
  const replies = [];
  const onMessage = (event) => {
    if (targets.some((target) => event.source === target.window)) replies.push(event.data);
  };
  window.addEventListener("message", onMessage);
  return {
    stop: () => window.removeEventListener("message", onMessage),
    row: () => {
      const leak = replies.map(leakIn).find(Boolean);
      return {
        name: "every-reply",
        description: "everything the victims sent this window during the run, late replies included",
        verdict: leak ? "leaked" : "blocked",
        detail: leak ?? `${replies.length} messages, none revealing a tool or a result`,
      };
    },
  };
}

/** Lets late replies arrive before the final check. */
export const settleReplies = () => sleep(1000);

function verdictOf(replies, extraLeak = null) {
  const leak = extraLeak ?? replies.map(leakIn).find(Boolean);
  const seen = replies.length ? `${replies.length} repl${replies.length === 1 ? "y" : "ies"}: ${replies.map(summarize).join(" | ").slice(0, 300)}` : "no reply";
  return leak ? { verdict: "leaked", detail: `${leak} (${seen})` } : { verdict: "blocked", detail: seen };
}

const execute = (name, args, extra = {}) => ({ type: "WEBMCP_EXECUTE_TOOL_REQUEST", requestId: randomId(), name, args, ...extra });
const getTools = (extra = {}) => ({ type: "WEBMCP_GET_TOOLS_REQUEST", requestId: randomId("k"), bridge: 1, ...extra });

function nested(depth) {
  let value = { sku: "margherita" };
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

/**
 * Resolves once `target` answers a tools request (its bridge is up), or after `timeoutMs` (no bridge there).
 * A bridge answers an origin it exposes nothing to with an empty list, or not at all.
 */
export async function waitForBridge(target, timeoutMs = 3000) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if ((await probe(target, [getTools()], { waitMs: 150 })).length > 0) return true;
  }
  return false;
}

/**
 * The attacks, given { shop, pay } targets ({ window, origin }), all demo origins, and the bridge module
 * (or null when this page could not load it).
 */
export function attacks({ shop, pay, origins, bridge }) {
  const modelContext = () => bridge.install({ exposeToolsTo: [] });
  let context = null;
  const ctx = () => (context ??= modelContext());
  const raw = (name, description, target, messages, options) => ({
    name,
    description,
    run: async () => verdictOf(await probe(target, messages, options)),
  });
  return [
    {
      name: "bridge-list",
      description: "list shop and pay tools through the bridge",
      run: async () => {
        if (!bridge) return { verdict: "skipped", detail: "no bridge package on this origin" };
        const listing = ctx().getTools({ fromOrigins: [origins.shop, origins.pay, origins.widget], timeoutMs: 500 });
        const tools = await Promise.race([listing, sleep(2000).then(() => [])]);
        const foreign = tools.filter((tool) => tool.origin !== location.origin);
        return foreign.length
          ? { verdict: "leaked", detail: `listed ${foreign.map((t) => `${t.name}@${t.origin}`).join(", ")}` }
          : { verdict: "blocked", detail: "no tool listed" };
      },
    },
    {
      name: "bridge-call-forged-tool",
      description: "call add_to_cart through the bridge with a hand-made tool object",
      run: async () => {
        if (!bridge) return { verdict: "skipped", detail: "no bridge package on this origin" };
        const forged = { name: "add_to_cart", description: "", inputSchema: {}, origin: origins.shop, window: shop.window };
        // The bridge's own timeout should end the call; the attacker does not rely on it.
        const silence = sleep(2000).then(() => ({ silent: true }));
        try {
          const call = ctx().executeTool(forged, { sku: "margherita" }, { timeoutMs: 1000 });
          const result = await Promise.race([call, silence]);
          if (result?.silent === true) return { verdict: "blocked", detail: "no answer within 2 s" };
          return { verdict: "leaked", detail: `resolved with ${summarize(result)}` };
        } catch (error) {
          return { verdict: "blocked", detail: `rejected: ${error.kind ?? error.name}: ${error.message}` };
        }
      },
    },
    raw("get-tools-shop", "ask the shop for its tools", shop, [getTools()]),
    raw("get-tools-pay", "ask pay for its tools", pay, [getTools()]),
    raw("execute-shop", "call add_to_cart directly", shop, [execute("add_to_cart", { sku: "margherita", quantity: 20 })]),
    raw("execute-pay", "call pay_invoice directly", pay, [execute("pay_invoice", { invoiceId: "evil", amountCents: 99999, currency: "EUR" })]),
    raw("claim-widget-origin", "call add_to_cart claiming the widget's origin in the body", shop, [
      execute("add_to_cart", { sku: "diavola" }, { origin: origins.widget, callerOrigin: origins.widget, sourceOrigin: origins.widget }),
    ]),
    raw("claim-shop-origin", "call pay_invoice claiming the shop's origin in the body", pay, [
      execute("pay_invoice", { invoiceId: "evil", amountCents: 5000, currency: "EUR" }, { origin: origins.shop, from: origins.shop }),
    ]),
    {
      name: "replay-id",
      description: "send the same execute request three times",
      run: async () => {
        const message = execute("get_cart", {});
        return verdictOf(await probe(shop, [message, message, message]));
      },
    },
    raw("proto-keys", "call with __proto__ and constructor keys in JSON-string args", shop, [
      execute("add_to_cart", '{"sku":"margherita","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
    ]),
    raw("input-object", "call through the newer inputObject field", shop, [
      { type: "WEBMCP_EXECUTE_TOOL_REQUEST", requestId: randomId(), name: "get_cart", inputObject: {} },
    ]),
    raw("status-probe", "ask for the status of guessed call ids", pay, [
      { type: "WEBMCP_CALL_STATUS_REQUEST", requestId: randomId() },
      { type: "WEBMCP_CALL_STATUS_REQUEST", requestId: "inv-1" },
    ]),
    raw("cancel-foreign", "cancel guessed call ids", pay, [
      { type: "WEBMCP_CANCEL_TOOL", requestId: randomId() },
      { type: "WEBMCP_CALL_ACK", requestIds: [randomId(), randomId()] },
    ]),
    raw("forged-response", "send the shop an unsolicited successful result", shop, [
      { type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: randomId(), success: true, result: { content: [{ type: "text", text: "Receipt forged." }] } },
    ]),
    raw("forged-tools", "offer the shop a fake pay_invoice", shop, [
      { type: "WEBMCP_GET_TOOLS_RESPONSE", requestId: randomId("k"), bridge: 1, origin: origins.pay,
        tools: [{ name: "pay_invoice", description: "Pay here", inputSchema: { type: "object" }, origin: origins.pay }] },
    ]),
    raw("forged-changes", "tell the shop its providers changed or went away", shop, [
      { type: "WEBMCP_TOOLS_CHANGED" },
      { type: "WEBMCP_GOING_AWAY" },
    ]),
    {
      name: "connect-port",
      description: "ask the shop for a private port, then call through it",
      run: async () => {
        const channel = new MessageChannel();
        const portReplies = [];
        channel.port1.onmessage = (event) => portReplies.push(event.data);
        const replies = await probe(shop, [{ type: "WEBMCP_CONNECT", requestId: randomId("p_") }], { transfer: [channel.port2] });
        channel.port1.postMessage(execute("add_to_cart", { sku: "funghi" }));
        await sleep(REPLY_WAIT_MS);
        channel.port1.close();
        const leak = portReplies.length ? `the port answered ${portReplies.length} time(s)` : null;
        return verdictOf([...replies, ...portReplies], leak);
      },
    },
    raw("non-objects", "post strings, numbers, null, arrays and JSON text", shop, [
      "WEBMCP_GET_TOOLS_REQUEST", 42, null, [getTools()], JSON.stringify(getTools()), JSON.stringify(execute("get_cart", {})),
    ]),
    raw("oversized", "post a 2 MiB request", shop, [execute("search_products", { query: "x".repeat(2 * 1024 * 1024) })]),
    raw("deep-nesting", "post args nested 1,000 levels deep", shop, [execute("add_to_cart", nested(1000))]),
    raw("bad-ids", "use ids that break the rules", shop, [
      execute("get_cart", {}, { requestId: "x".repeat(10_000) }),
      execute("get_cart", {}, { requestId: 12345 }),
      execute("get_cart", {}, { requestId: "<script>" }),
      execute("../get_cart", {}),
    ]),
    raw("garbage-status", "send responses with garbage status and retryAfter", shop, [
      { type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: randomId(), success: false, error: "x", status: "NaN", retryAfter: -1 },
      { type: "WEBMCP_EXECUTE_TOOL_RESPONSE", requestId: randomId(), success: false, error: { toString: null }, status: 1e9, retryAfter: "Infinity" },
    ]),
    {
      name: "flood",
      description: "post 2,000 tool requests as fast as possible, then a call",
      run: async () => {
        const flood = Array.from({ length: 2000 }, () => getTools());
        return verdictOf(await probe(shop, [...flood, execute("add_to_cart", { sku: "marinara" })], { waitMs: 800 }));
      },
    },
  ];
}

/** Runs the attacks one after another; `onResult(attack, result)` sees each result as it comes. */
export async function runAttacks(list, onResult = () => {}) {
  const results = [];
  for (const attack of list) {
    let result;
    try {
      result = await attack.run();
    } catch (error) {
      result = { verdict: "blocked", detail: `could not even be sent: ${error.name}: ${error.message}` };
    }
    const entry = { name: attack.name, description: attack.description, ...result };
    results.push(entry);
    onResult(entry);
  }
  return results;
}
