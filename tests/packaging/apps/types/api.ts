// What a strict TypeScript user expects of the package's types (compiled by tsc --noEmit in run.mjs; every
// `@ts-expect-error` must find an error, or tsc fails).
import init, { install, isToolCallError } from "interpane";
import type { ModelContext, Tool, ToolCallErrorKind, ToolResultEvent, ToolStatusEvent } from "interpane";
import * as pkg from "interpane";
import * as react from "interpane/react";
import wasmUrl from "interpane/wasm";

await init();
await init({ module_or_path: wasmUrl });

// install() takes no argument, or typed options.
const context: ModelContext = install();
install({ exposeToolsTo: ["https://a.example"], storage: "memory" });
// @ts-expect-error: a misspelled option is a type error (and a warning at run time)
install({ exposeToolTo: "https://a.example" });

// document.modelContext is declared (global augmentation), and is the same type.
const same: ModelContext = document.modelContext;

// Events by type.
document.modelContext.addEventListener("toolresult", (e) => {
  const id: string = e.callId;
  const status: "completed" | "failed" | "stopped" | "interrupted" = e.status;
  const kind: ToolCallErrorKind | undefined = e.error?.kind;
  void [id, status, kind];
});
context.addEventListener("toolstatus", (e: ToolStatusEvent) => void e.tab);
context.ontoolresult = (e: ToolResultEvent) => void e.durationMs;
// @ts-expect-error: toolresult events have no `tab`
context.addEventListener("toolresult", (e) => e.tab);

// execute(args) typed from a generic.
context.registerTool<{ sku: string; quantity?: number }>({
  name: "add_to_cart",
  description: "Add a product to the cart.",
  execute({ sku, quantity }, { signal }) {
    const upper: string = sku.toUpperCase();
    return { upper, quantity: quantity ?? 1, aborted: signal.aborted };
  },
});
context.registerTool<{ sku: string }>({
  name: "bad",
  description: "Wrong argument type.",
  // @ts-expect-error: sku is a string, not a number
  execute({ sku }: { sku: number }) {
    return sku;
  },
});

// Results and errors typed: a result is a string (an object result's JSON text), as native WebMCP gives it.
async function call(tool: Tool) {
  const text = await context.executeTool(tool, { amount: 5 }, { callId: "order-1", timeoutMs: 5000 });
  const id: string = (JSON.parse(text) as { id: string }).id;
  // @ts-expect-error: executeTool resolves with a string, not an object
  const wrong: { id: string } = await context.executeTool(tool);
  try {
    await context.executeTool(tool, {});
  } catch (error) {
    if (isToolCallError(error)) {
      const kind: ToolCallErrorKind = error.kind;
      const status: number | undefined = error.status;
      const retryAfter: number | string | undefined = error.retryAfter;
      void [kind, status, retryAfter];
    }
  }
  return [id, wrong];
}
void [same, call];

// Only runtime exports are values: these are exactly what index.js and react.js export.
const values: Record<keyof typeof pkg, true> = { default: true, initSync: true, install: true, isToolCallError: true };
const reactValues: Record<keyof typeof react, true> = { useTool: true };
void [values, reactValues];
// @ts-expect-error: ModelContext is a type, not a class the module exports
void pkg.ModelContext;
