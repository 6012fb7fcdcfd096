// The consumer of the prototype-pollution case (shop origin). window.__pollution lets the suite list the two
// providers' tools, call them through the bridge, post raw requests to the echo provider, and read this page's
// prototypes. Everything it returns is a report (JSON, paths), never the objects themselves.
import { origins } from "/config.js";
import { loadBridge, withCounterPrefix } from "/common/bridge.js";
import { settle, showOrigin } from "/common/page.js";
import { inspect, prototypesNow } from "./inspect.js";

/** The own properties every error of this engine has beside its message (a plain `new Error`'s). */
const ENGINE_ERROR_KEYS = new Set(Object.getOwnPropertyNames(new Error("probe")).filter((key) => key !== "message"));

/** Sets the frame's src and resolves when it has loaded. */
function load(frame, src) {
  return new Promise((resolve) => {
    frame.addEventListener("load", () => resolve(frame), { once: true });
    frame.src = src;
  });
}

/** What a call's promise ended with, as plain data. */
async function outcomeOf(promise) {
  try {
    const value = await promise;
    // executeTool resolves with the result's JSON text: `json` is that text, `value` what JSON.parse makes of it.
    if (typeof value !== "string") return { ok: false, name: "NotAString", message: `resolved with a ${typeof value}` };
    return { ok: true, json: value, value: inspect(JSON.parse(value)) };
  } catch (error) {
    return {
      ok: false,
      name: error?.name,
      message: error?.message,
      kind: error?.kind ?? null,
      status: error?.status ?? null,
      retryAfter: error?.retryAfter ?? null,
      // The keys the bridge gave the error: not those every error of this engine has (Chromium's "stack",
      // Firefox's "fileName", "lineNumber", "columnNumber", WebKit's "line", "column", "sourceURL").
      ownKeys: Object.getOwnPropertyNames(error).filter((key) => !ENGINE_ERROR_KEYS.has(key)).sort(),
      // TypeError.prototype for a TypeError, Error.prototype for an Error.
      prototypeIsItsClass: Object.getPrototypeOf(error) === globalThis[error?.name]?.prototype,
      // Its own fields, copied as data (an own "__proto__" stays an own key, and is reported).
      fields: inspect(Object.fromEntries(Object.entries(error))),
    };
  }
}

async function main() {
  showOrigin();
  const { rawClient } = await import(`${origins.evil}/attack/raw.js`);
  const bridge = await loadBridge();
  const context = bridge.install({ exposeToolsTo: [] });
  await Promise.all([
    load(document.getElementById("echo-frame"), withCounterPrefix(`${origins.pay}/attack/echo.html`)),
    load(document.getElementById("malicious-frame"), withCounterPrefix(`${origins.evil}/attack/malicious-provider.html`)),
  ]);
  const raw = rawClient({ echo: () => ({ window: window.frames[0], origin: origins.pay }) });
  let tools = [];

  Object.defineProperty(window, "__pollution", {
    value: {
      /** Lists both providers' tools: [name, origin, inspect(inputSchema), inspect(annotations), JSON]. */
      async list() {
        tools = await context.getTools({ fromOrigins: [origins.pay, origins.evil], timeoutMs: 2000 });
        return tools.map((tool) => ({
          name: tool.name,
          origin: tool.origin,
          schema: JSON.stringify(tool.inputSchema ?? null),
          annotations: JSON.stringify(tool.annotations ?? null),
          inspected: inspect({ inputSchema: tool.inputSchema, annotations: tool.annotations }),
        }));
      },
      /** Calls a listed tool with the arguments JSON.parse makes of `argsText` (or that text itself, `asText`). */
      call(name, argsText, { asText = false } = {}) {
        const tool = tools.find((candidate) => candidate.name === name);
        if (!tool) return Promise.resolve({ ok: false, name: "Missing", message: `${name} is not listed` });
        let call;
        try {
          call = context.executeTool(tool, asText ? argsText : JSON.parse(argsText));
        } catch (error) {
          call = Promise.reject(error);
        }
        return outcomeOf(call);
      },
      /** Posts a hand-made execute request (its JSON text, parsed here so "__proto__" stays an own key) to echo. */
      raw(messageText) {
        const message = JSON.parse(messageText);
        message.requestId = raw.helpers.freshId();
        return raw.send("echo", [message]);
      },
      prototypes: prototypesNow,
    },
  });
  await context.ready;
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo pollution:", error);
  settle("error", error);
});
