// Test tools whose behaviour the suite writes as a function body, and the shape in which call outcomes are read.
import { countExecution } from "/common/bridge.js";

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;

/** Helpers in scope of a tool's body as `page`. */
const helpers = {
  /** Resolves when `signal` aborts (never, without a signal). */
  untilAborted(signal) {
    return new Promise((resolve) => signal?.addEventListener("abort", () => resolve("aborted"), { once: true }));
  },
  /** Never settles: a tool that runs until its page goes away. */
  forever() {
    return new Promise(() => {});
  },
};

/**
 * A tool from `{ name, description, inputSchema, annotations, validateArgs, body }`. `body` is the body of an async
 * function of (args, signal, page). Before the body runs, the tool counts the execution on this origin's server
 * (counter `<prefix><name>`) and in `e2e.runs`; when its signal aborts, it counts that too (counter
 * `<prefix><name>.aborted`, and `e2e.aborts`).
 */
export function makeTool(definition, e2e) {
  const { name, description, inputSchema, annotations, validateArgs } = definition;
  const body = definition.body ?? `return { content: [{ type: "text", text: "${name} ran" }] };`;
  const run = new AsyncFunction("args", "signal", "page", body);
  const tool = {
    name,
    description: description ?? `e2e tool ${name}`,
    async execute(args, context) {
      await countExecution(name);
      e2e.runs[name] = (e2e.runs[name] ?? 0) + 1;
      const signal = context?.signal;
      signal?.addEventListener("abort", () => {
        e2e.aborts[name] = (e2e.aborts[name] ?? 0) + 1;
        countExecution(`${name}.aborted`).catch((error) => console.error(error));
      });
      return run(args, signal, helpers);
    },
  };
  if (inputSchema !== undefined) tool.inputSchema = inputSchema;
  if (annotations !== undefined) tool.annotations = annotations;
  if (validateArgs !== undefined) tool.validateArgs = validateArgs;
  return tool;
}

/**
 * `{ ok: true, value }` (`value` parsed from the string the call resolved with, when it is JSON; a call that
 * resolves with anything but a string is `{ ok: false, name: "NotAString" }`: executeTool resolves with a string,
 * as native WebMCP does), or `{ ok: false, name, message }` plus `kind`, `status` and `retryAfter` when the error
 * has them (a key that is absent stays absent, so the suite can tell a dropped field from an empty one).
 */
export function describeOutcome(promise) {
  return Promise.resolve(promise).then(
    (value) => {
      if (typeof value !== "string") return { ok: false, name: "NotAString", message: `resolved with ${typeof value}` };
      try {
        return { ok: true, value: JSON.parse(value) };
      } catch {
        return { ok: true, value };
      }
    },
    (error) => {
      const outcome = { ok: false, name: error?.name, message: error?.message ?? String(error) };
      for (const key of ["kind", "status", "retryAfter"]) {
        if (error !== null && typeof error === "object" && key in error) outcome[key] = error[key];
      }
      return outcome;
    },
  );
}
