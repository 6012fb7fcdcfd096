// `useTool`: a tool registered while a React component is mounted. Registration and unregistration go through an
// AbortSignal, which unregisters synchronously: StrictMode's mount, unmount, mount leaves exactly one
// registration. `execute` is read from the latest committed render on every call, so it sees current state
// without registering the tool again.
import { useEffect, useLayoutEffect, useRef } from "react";

const useCommitEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

/** Registers `tool` with `document.modelContext` (or `options.modelContext`) while the component is mounted. */
export function useTool(tool, options = {}) {
  const execute = useRef(tool.execute);
  useCommitEffect(() => {
    execute.current = tool.execute;
  });
  const { name, description, validateArgs } = tool;
  const inputSchema = tool.inputSchema === undefined ? undefined : JSON.stringify(tool.inputSchema);
  const annotations = tool.annotations === undefined ? undefined : JSON.stringify(tool.annotations);
  const exposedTo = Array.isArray(options.exposedTo) ? options.exposedTo.join(", ") : options.exposedTo;
  const { allowWildcards, modelContext, enabled = true } = options;
  useEffect(() => {
    if (!enabled) return undefined;
    const target = modelContext ?? (typeof document === "undefined" ? undefined : document.modelContext);
    if (!target) {
      throw new Error(
        `useTool(${name}): there is no document.modelContext yet: call install() (after await init()) before ` +
          "rendering, or pass options.modelContext",
      );
    }
    const controller = new AbortController();
    // registerTool returns a promise, as native WebMCP's: a refusal (a duplicate name, a mistyped field) rejects it.
    const registered = target.registerTool(
      {
        name,
        description,
        inputSchema: inputSchema === undefined ? undefined : JSON.parse(inputSchema),
        annotations: annotations === undefined ? undefined : JSON.parse(annotations),
        validateArgs,
        execute: (args, context) => execute.current(args, context),
      },
      { signal: controller.signal, exposedTo, allowWildcards },
    );
    Promise.resolve(registered).catch((error) => console.error(`useTool(${name}): the tool was not registered:`, error));
    return () => controller.abort();
  }, [modelContext, enabled, name, description, inputSchema, annotations, validateArgs, exposedTo, allowWildcards]);
}
