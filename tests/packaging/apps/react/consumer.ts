// Calls the React provider's tools across origins: one active registration each under StrictMode, the latest
// render's execute, and no tools once the component unmounts.
import init, { install } from "interpane";
import wasmUrl from "interpane/wasm";
import { embedProvider, waitForTools } from "../shared/roundtrip.ts";

type Stats = { registered: Record<string, number>; active: Record<string, number> };

await init({ module_or_path: wasmUrl });
try {
  const context = install();
  const origin = embedProvider();
  const [stats, read, bump, hide] = await waitForTools(context, origin, ["stats", "read_count", "bump", "hide_counter"]);
  const listed = (await context.getTools({ fromOrigins: [origin] })).filter((t) => t.name === "read_count").length;
  // executeTool resolves with the result's JSON text, as native WebMCP does.
  const mounted = JSON.parse(await context.executeTool(stats, {})) as Stats;
  const before = JSON.parse(await context.executeTool(read, {})) as { count: number };
  await context.executeTool(bump, {});
  await new Promise((resolve) => setTimeout(resolve, 100)); // let React render the new count
  const after = JSON.parse(await context.executeTool(read, {})) as { count: number };
  await context.executeTool(hide, {});
  let gone = false;
  for (let i = 0; i < 40 && !gone; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const tools = await context.getTools({ fromOrigins: [origin], timeoutMs: 300 });
    gone = !tools.some((t) => t.origin === origin && t.name === "read_count");
  }
  const unmounted = JSON.parse(await context.executeTool(stats, {})) as Stats;
  window.__result = { ok: true, listed, mounted, before: before.count, after: after.count, gone, unmounted };
} catch (error) {
  window.__result = { ok: false, error: String(error) };
}
