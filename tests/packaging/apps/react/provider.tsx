// A React app under StrictMode (development build: effects mount, unmount and mount again) exposing tools with
// useTool. `stats` (registered without the hook) reports how many registrations of each tool are active, counted
// by wrapping registerTool: exactly one each is what the hook promises.
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import init, { install, type RegisterToolOptions, type ToolDefinition } from "interpane";
import wasmUrl from "interpane/wasm";
import { useTool } from "interpane/react";
import { params } from "../shared/roundtrip.ts";

await init({ module_or_path: wasmUrl });
const context = install({ exposeToolsTo: params().get("consumer") ?? "" });

const registered: Record<string, number> = {};
const active: Record<string, number> = {};
const register = context.registerTool.bind(context);
context.registerTool = <Args extends object, Result>(tool: ToolDefinition<Args, Result>, options?: RegisterToolOptions) => {
  const done = register(tool, options);
  registered[tool.name] = (registered[tool.name] ?? 0) + 1;
  active[tool.name] = (active[tool.name] ?? 0) + 1;
  options?.signal?.addEventListener("abort", () => (active[tool.name] -= 1));
  return done;
};
context.registerTool({ name: "stats", description: "Registrations made and active, by tool.", execute: () => ({ registered, active }) });

function Counter({ onHide }: { onHide: () => void }) {
  const [count, setCount] = useState(0);
  // Each render's execute sees that render's count: a stale one would answer 0 after a bump.
  useTool({ name: "read_count", description: "The counter's value.", execute: () => ({ count }) });
  useTool({
    name: "bump",
    description: "Adds one to the counter.",
    execute: () => {
      setCount((c) => c + 1);
      return { bumped: true };
    },
  });
  useTool({ name: "hide_counter", description: "Unmounts the counter.", execute: () => (onHide(), { hidden: true }) });
  return <p id="count">{count}</p>;
}

function App() {
  const [shown, setShown] = useState(true);
  return shown ? <Counter onHide={() => setShown(false)} /> : <p>hidden</p>;
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
document.title = "provider ready";
