// `useTool` from "interpane/react".
import type { ModelContext, ToolArgs, ToolDefinition } from "./interpane.js";

export interface UseToolOptions {
  /** Origins that may see this tool, instead of the page's exposeToolsTo. */
  exposedTo?: string | string[];
  allowWildcards?: boolean;
  /** Register only while true (default true). */
  enabled?: boolean;
  /** The bridge to register with (default `document.modelContext`). */
  modelContext?: ModelContext;
}

/**
 * Registers `tool` while the calling component is mounted, and unregisters it on unmount. Each call runs the
 * `execute` of the latest committed render; changing the name, description, schema or options registers again.
 * Call `install()` (after `await init()`) before the first render.
 */
export declare function useTool<Args extends object = ToolArgs, Result = unknown>(
  tool: ToolDefinition<Args, Result>,
  options?: UseToolOptions,
): void;
