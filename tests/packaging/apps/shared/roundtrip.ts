// The two halves of a cross-origin round trip, shared by the Vite, esbuild and React apps: the provider page (origin
// B) exposes tools to the consumer's origin; the consumer page (origin A) embeds it, waits for its tools, calls
// them and reports what came back in `window.__result` for the runner (run.mjs) to check.
import { install, isToolCallError, type ModelContext, type Tool } from "interpane";

declare global {
  interface Window {
    __result?: { ok: boolean; error?: string; [key: string]: unknown };
  }
}

export function params(): URLSearchParams {
  return new URL(location.href).searchParams;
}

/** Registers `echo` and `rate_limited`, visible to the origin in `?consumer=`. */
export function provider(): ModelContext {
  const context = install({ exposeToolsTo: params().get("consumer") ?? "" });
  context.registerTool<{ text: string }>({
    name: "echo",
    description: "Returns the text it was given, and the origin that ran it.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute({ text }) {
      return { echoed: text, ranAt: location.origin };
    },
  });
  context.registerTool({
    name: "rate_limited",
    description: "Always fails with status 429 and retryAfter 30.",
    execute() {
      throw Object.assign(new Error("slow down"), { status: 429, retryAfter: 30 });
    },
  });
  document.title = "provider ready";
  return context;
}

/** Resolves with the tools `names` of `origin` once they are listed: again on every `toolchange` (and each second,
 * for a window that has not announced itself yet), as the README says for an iframe that is still loading. */
export function waitForTools(context: ModelContext, origin: string, names: string[], ms = 15000): Promise<Tool[]> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      context.removeEventListener("toolchange", check);
      outcome();
    };
    const check = async () => {
      const tools = await context.getTools({ fromOrigins: [origin], timeoutMs: 300 });
      const found = names.map((name) => tools.find((t) => t.name === name && t.origin === origin));
      if (found.every((t): t is Tool => t !== undefined)) finish(() => resolve(found));
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`${names} of ${origin}: not listed in ${ms} ms`))), ms);
    const poll = setInterval(check, 1000);
    context.addEventListener("toolchange", check);
    void check();
  });
}

/** Embeds the provider of `?provider=` (told this page's origin) and returns its origin. */
export function embedProvider(): string {
  const url = new URL(params().get("provider") ?? "");
  url.searchParams.set("consumer", location.origin);
  const frame = document.createElement("iframe");
  frame.src = url.href;
  document.body.append(frame);
  return url.origin;
}

/** The consumer's side: calls echo and rate_limited on the provider's origin and reports the outcome. */
export async function consumer(): Promise<void> {
  try {
    const context = install();
    const origin = embedProvider();
    const [echo, rateLimited] = await waitForTools(context, origin, ["echo", "rate_limited"]);
    // executeTool resolves with the result's JSON text, as native WebMCP does.
    const result = JSON.parse(await context.executeTool(echo, { text: "hello from A" })) as { echoed: string; ranAt: string };
    let failure: unknown = null;
    try {
      await context.executeTool(rateLimited, {});
    } catch (error) {
      failure = isToolCallError(error)
        ? { kind: error.kind, status: error.status, retryAfter: error.retryAfter }
        : String(error);
    }
    window.__result = { ok: true, consumer: location.origin, provider: origin, result, failure };
  } catch (error) {
    window.__result = { ok: false, error: String(error) };
  }
}
