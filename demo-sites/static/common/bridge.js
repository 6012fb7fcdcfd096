// Loading the bridge package, and counting tool executions on the demo server.
import { banner } from "./page.js";

/** Thrown when /pkg/ has no bridge package yet. */
export class BridgeMissingError extends Error {
  constructor(cause) {
    super("The bridge package is not built: run scripts/build-pkg.sh, then reload.", { cause });
    this.name = "BridgeMissingError";
  }
}

/** Imports and initializes /pkg/interpane.js; resolves to the module (with install). */
export async function loadBridge() {
  let bridge;
  try {
    bridge = await import("/pkg/interpane.js");
  } catch (error) {
    throw new BridgeMissingError(error);
  }
  await bridge.default();
  return bridge;
}

/** Loads the bridge, or shows why it could not and resolves to null. */
export async function loadBridgeOrExplain() {
  try {
    return await loadBridge();
  } catch (error) {
    banner(error.message, error instanceof BridgeMissingError ? "warning" : "error");
    console.warn("webmcp demo:", error);
    return null;
  }
}

/**
 * A prefix for this page's counter names, from its `counterPrefix` query parameter (the end-to-end suite gives
 * each test its own, e.g. "t3."). Pages pass it on to the frames they embed.
 */
export const counterPrefix = (() => {
  const prefix = new URLSearchParams(location.search).get("counterPrefix") ?? "";
  return /^[A-Za-z0-9_.-]{0,32}$/.test(prefix) ? prefix : "";
})();

/** `url` with this page's counterPrefix added, for a frame it embeds. */
export function withCounterPrefix(url) {
  if (!counterPrefix) return url;
  const withPrefix = new URL(url);
  withPrefix.searchParams.set("counterPrefix", counterPrefix);
  return withPrefix.href;
}

/**
 * Counts one real execution of `name` on this origin's server, before the tool does anything else. The server
 * accepts it only from this origin's own pages, so no other page can fake or hide an execution.
 */
export async function countExecution(name) {
  const response = await fetch(`/__counter/${encodeURIComponent(counterPrefix + name)}`, { method: "POST" });
  if (!response.ok) throw new Error(`counting ${name} failed: ${response.status} ${await response.text()}`);
  return (await response.json()).value;
}

/** Waits `ms` milliseconds on the server (a stand-in for a slow backend); an abort stops the wait. */
export async function serverDelay(ms, signal) {
  if (ms <= 0) return;
  const response = await fetch(`/__slow?ms=${ms}`, { signal });
  if (!response.ok) throw new Error(`the slow backend failed: ${response.status}`);
}

/** The text of an MCP-shaped result ({ content: [{ type: "text", text }] }), or its JSON. */
export function resultText(result) {
  // executeTool resolves with a string, as native WebMCP does: an object result is its JSON text.
  if (typeof result === "string") {
    try {
      const parsed = JSON.parse(result);
      if (parsed === null || typeof parsed !== "object") return result;
      result = parsed;
    } catch {
      return result;
    }
  }
  if (result && Array.isArray(result.content)) {
    return result.content.filter((part) => part && part.type === "text").map((part) => part.text).join("\n");
  }
  return typeof result === "string" ? result : JSON.stringify(result);
}

/** An MCP-shaped text result. */
export function textResult(text, extra = {}) {
  return { content: [{ type: "text", text }], ...extra };
}
