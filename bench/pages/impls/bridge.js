// interpane: the iframe registers an `echo` tool exposed to the parent's origin; the parent lists the tools
// of that origin (getTools) and calls it (executeTool). After the first tool list the two bridges move to a
// private MessagePort. Options: lib/bridge-options.js.
import init, { install } from "/pkg/interpane.js";
import { BRIDGE_OPTIONS } from "/lib/bridge-options.js";

const ECHO_TOOL = {
  name: "echo",
  description: "Returns its arguments.",
  inputSchema: {
    type: "object",
    properties: { seq: { type: "integer" }, text: { type: "string" } },
    required: ["seq", "text"],
  },
  execute: (args) => args,
};

/** The parent side, with `extra` install() options. */
export function parentWith(extra) {
  return async (win, childOrigin) => {
    await init();
    const context = install({ ...BRIDGE_OPTIONS, ...extra });
    await context.ready;
    const started = performance.now();
    const tools = await context.getTools({ fromOrigins: childOrigin });
    const connectMs = performance.now() - started;
    const tool = tools.find((t) => t.name === "echo" && t.origin === childOrigin && t.window === win);
    if (!tool) throw new Error(`getTools found no echo tool of ${childOrigin}: ${JSON.stringify(tools)}`);
    // executeTool resolves, as native WebMCP's does, with the result's JSON text: a caller parses it.
    return { call: async (args) => JSON.parse(await context.executeTool(tool, args)), connectMs };
  };
}

/** The iframe side, with `extra` install() options. */
export function childWith(extra) {
  return async (parentOrigin) => {
    await init();
    const context = install({ exposeToolsTo: parentOrigin, ...BRIDGE_OPTIONS, ...extra });
    context.registerTool(ECHO_TOOL);
    await context.ready;
  };
}

export const parent = parentWith({});
export const child = childWith({});
