// Scenarios of tests/conformance.rs: each one drives the bridge's document.modelContext as page code written for
// the WebMCP spec would, and returns what it saw as plain data for the Rust test to check.

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function settled(promise) {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, name: error?.name, isDomException: error instanceof DOMException, value: error };
  }
}

// The interfaces the spec defines, where the browser has none.
export function interfaces() {
  const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext");
  let constructed = null;
  try {
    new globalThis.ModelContext();
    constructed = "constructed";
  } catch (error) {
    constructed = error?.name;
  }
  const activated = new globalThis.ToolActivatedEvent("toolactivated", { toolName: "t" });
  return {
    isInstance: document.modelContext instanceof globalThis.ModelContext,
    sameObject: document.modelContext === document.modelContext,
    getterOnPrototype: typeof descriptor?.get === "function",
    ownProperty: Object.prototype.hasOwnProperty.call(document, "modelContext"),
    constructed,
    eventToolName: activated.toolName,
    eventIsEvent: activated instanceof Event,
    eventBubbles: activated.bubbles,
    cancelToolName: new globalThis.ToolCancelEvent("toolcancel", { toolName: "u" }).toolName,
  };
}

// A document that is not fully active (made by createHTMLDocument or DOMParser) has a ModelContext of its own that
// refuses everything with an InvalidStateError.
export async function inactiveDocument(tool) {
  const made = document.implementation.createHTMLDocument();
  const parsed = new DOMParser().parseFromString("<p>", "text/html");
  const context = made.modelContext;
  const execute = async () => "ran";
  const outcomes = {
    register: await settled(context.registerTool({ name: "inactive_tool", description: "d", execute })),
    list: await settled(context.getTools()),
    call: await settled(context.executeTool(tool, {})),
  };
  const names = Object.fromEntries(Object.entries(outcomes).map(([key, outcome]) => [key, outcome.name]));
  const domExceptions = Object.values(outcomes).every((outcome) => outcome.isDomException);
  return {
    names,
    domExceptions,
    sameObject: made.modelContext === context,
    otherThanPages: context !== document.modelContext,
    otherThanParsed: parsed.modelContext !== context,
    isInstance: context instanceof globalThis.ModelContext,
    pageStillWorks: (await document.modelContext.getTools()).some((t) => t.name === tool.name),
  };
}

// getTools() lists tools in the order of their names, whatever the order they were registered in.
export async function listedOrder(names) {
  const controller = new AbortController();
  for (const name of names) {
    await document.modelContext.registerTool(
      { name, description: "ordered", execute: async () => name },
      { signal: controller.signal },
    );
  }
  const listed = (await document.modelContext.getTools()).map((tool) => tool.name).filter((n) => names.includes(n));
  controller.abort();
  return listed;
}

// The annotations of a listed tool: ToolAnnotations' three hints false unless given, `debugging` a boolean when given.
export async function listedAnnotations() {
  const controller = new AbortController();
  const execute = async () => "ok";
  const signal = controller.signal;
  await document.modelContext.registerTool(
    { name: "annotated_tool", description: "d", annotations: { readOnlyHint: true, title: "kept" }, execute },
    { signal },
  );
  await document.modelContext.registerTool({ name: "plain_tool", description: "d", execute }, { signal });
  await document.modelContext.registerTool(
    { name: "debugging_tool", description: "d", annotations: { debugging: 1 }, execute },
    { signal },
  );
  const tools = await document.modelContext.getTools();
  const annotated = tools.find((t) => t.name === "annotated_tool");
  const plain = tools.find((t) => t.name === "plain_tool");
  const debugging = tools.find((t) => t.name === "debugging_tool").annotations.debugging;
  controller.abort();
  return {
    annotated: annotated.annotations,
    debugging: debugging === true ? 1 : 0,
    plainHasAnnotations: "annotations" in plain && plain.annotations !== undefined,
  };
}

// A caller that aborts in the same task as its executeTool(): the tool has started, its signal aborts, the call
// rejects with the caller's reason, and the tool resolving afterwards changes nothing.
export async function abortInTheSameTask() {
  const registration = new AbortController();
  const seen = [];
  let lateResolve;
  const late = new Promise((resolve) => (lateResolve = resolve));
  const onEvent = (event) => seen.push(`${event.type}:${event.toolName}:${event.constructor.name}`);
  document.modelContext.addEventListener("toolactivated", onEvent);
  document.modelContext.addEventListener("toolcancel", onEvent);
  await document.modelContext.registerTool(
    {
      name: "same_task_abort_tool",
      description: "d",
      execute: (args, { signal }) => {
        seen.push("started");
        signal.addEventListener("abort", () => {
          seen.push(`signal aborted:${signal.reason?.name}`);
          lateResolve("too late");
        });
        return late;
      },
    },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "same_task_abort_tool");
  const caller = new AbortController();
  const call = document.modelContext.executeTool(tool, {}, { signal: caller.signal });
  caller.abort("caller changed its mind");
  const outcome = await settled(call);
  await late;
  await nextTask();
  await nextTask();
  document.modelContext.removeEventListener("toolactivated", onEvent);
  document.modelContext.removeEventListener("toolcancel", onEvent);
  registration.abort();
  return { ok: outcome.ok, rejectedWith: outcome.value, seen };
}

// A tool that aborts its own caller's controller while execute() is on the stack: the call rejects with that
// reason, and the tool's signal aborts and toolcancel fires all the same.
export async function toolAbortsItsCaller() {
  const registration = new AbortController();
  const caller = new AbortController();
  let aborted;
  const signalAborted = new Promise((resolve) => (aborted = resolve));
  const cancelled = new Promise((resolve) =>
    document.modelContext.addEventListener("toolcancel", (e) => e.toolName === "self_cancel_tool" && resolve(e)),
  );
  await document.modelContext.registerTool(
    {
      name: "self_cancel_tool",
      description: "d",
      execute: (args, { signal }) => {
        signal.addEventListener("abort", () => aborted(signal.reason?.name));
        caller.abort("cancelled from inside");
        return new Promise(() => {});
      },
    },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "self_cancel_tool");
  const outcome = await settled(document.modelContext.executeTool(tool, {}, { signal: caller.signal }));
  const [reasonName, cancelEvent] = await Promise.all([signalAborted, cancelled]);
  registration.abort();
  return { ok: outcome.ok, rejectedWith: outcome.value, reasonName, cancelToolName: cancelEvent.toolName };
}

// A running call that its caller aborts: the caller's promise rejects before the tool's signal aborts, and
// `toolcancel` fires last, even for a reaction the caller attaches after abort().
export async function abortOrder() {
  const registration = new AbortController();
  const order = [];
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const cancelled = new Promise((resolve) =>
    document.modelContext.addEventListener("toolcancel", (e) => {
      if (e.toolName !== "abort_order_tool") return;
      order.push("toolcancel");
      resolve();
    }),
  );
  await document.modelContext.registerTool(
    {
      name: "abort_order_tool",
      description: "d",
      execute: (args, { signal }) => {
        signal.addEventListener("abort", () => order.push("tool signal aborted"));
        started();
        return new Promise(() => {});
      },
    },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "abort_order_tool");
  const caller = new AbortController();
  const call = document.modelContext.executeTool(tool, {}, { signal: caller.signal });
  await running;
  caller.abort("stop");
  await Promise.all([call.catch(() => order.push("caller rejected")), cancelled]);
  registration.abort();
  return order;
}

// Schemas outside WebMCP's subset, which registerTool refuses with a TypeError as the platform tests ask
// (register_tool_invalid_subset_schema; docs/schema.md), and one inside it that registers.
export async function schemaSubset() {
  const execute = async () => "ok";
  const cases = {
    reference: { type: "object", properties: { a: { $ref: "#/x" } } },
    definitions: { type: "object", $defs: {} },
    format: { type: "object", properties: { a: { type: "string", format: "uri" } } },
    encoding: { type: "object", properties: { a: { type: "string", contentEncoding: "base64" } } },
    unevaluated: { type: "object", unevaluatedProperties: false },
    dependent: { type: "object", dependentRequired: { a: ["b"] } },
    openObject: { type: "object", additionalProperties: true },
    extraSchema: { type: "object", additionalProperties: { type: "number" } },
    badPattern: { type: "object", properties: { a: { type: "string", pattern: "(" } } },
    inside: { type: "object", properties: { a: { type: "string", pattern: "^a+$" } }, additionalProperties: false },
  };
  const outcome = {};
  for (const [key, inputSchema] of Object.entries(cases)) {
    try {
      await document.modelContext.registerTool({ name: `subset_${key}`, description: "d", inputSchema, execute });
      outcome[key] = "accepted";
    } catch (error) {
      outcome[key] = `${error.name}: ${error.message}`;
    }
  }
  const listed = await document.modelContext.getTools();
  outcome.listed = listed.filter((tool) => tool.name.startsWith("subset_")).length;
  return outcome;
}

// A signal made in another window (a frame's AbortController) works as this window's: it stops a call and
// unregisters a tool; a signal that is not an AbortSignal is a TypeError.
export async function signalsOfAnotherWindow() {
  const frame = document.createElement("iframe");
  document.body.append(frame);
  const { AbortController: FrameController } = frame.contentWindow;
  const registration = new FrameController();
  let started;
  const running = new Promise((resolve) => (started = resolve));
  const toolSignal = new Promise((resolve) => {
    document.modelContext.registerTool(
      {
        name: "frame_signal_tool",
        description: "d",
        execute: (args, { signal }) => {
          signal.addEventListener("abort", () => resolve(signal.reason?.name));
          started();
          return new Promise(() => {});
        },
      },
      { signal: registration.signal },
    );
  });
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "frame_signal_tool");
  const caller = new FrameController();
  const call = document.modelContext.executeTool(tool, {}, { signal: caller.signal }).catch((e) => `rejected: ${e}`);
  await running;
  caller.abort("from the frame");
  const outcome = await call;
  const toolReason = await toolSignal;
  registration.abort();
  const listedAfter = (await document.modelContext.getTools()).some((t) => t.name === "frame_signal_tool");
  let notASignal;
  try {
    await document.modelContext.registerTool({ name: "bad_signal_tool", description: "d", execute: () => 1 }, { signal: "x" });
    notASignal = "registered";
  } catch (error) {
    notASignal = `${error.name}: ${error.message}`;
  }
  frame.remove();
  return { outcome, toolReason, listedAfter, notASignal };
}

// A tool object naming this window and origin but no tool of this page: a DOMException UnknownError (its legacy
// numeric code kept), as native's registry answers; one naming another origin stays a TypeError.
export async function madeUpTools() {
  const ours = { name: "no_such_tool", description: "d", window, origin: self.origin };
  const theirs = { name: "no_such_tool", description: "d", window, origin: "https://other.example" };
  const outcome = async (tool) => {
    try {
      await document.modelContext.executeTool(tool, {});
      return "resolved";
    } catch (error) {
      return { name: error.name, isDomException: error instanceof DOMException, code: error.code, kind: error.kind };
    }
  };
  return { ours: await outcome(ours), theirs: await outcome(theirs) };
}

// A call refused by the tool's schema: a DOMException DataError (its platform code, 0, and the bridge's kind
// invalid_args) whose message is JSON text naming the first problem (path, reason, schemaPath) with the words of
// every problem; the tool does not run, and the corrected call runs it once. A `pattern` is the browser's RegExp.
export async function dataErrors() {
  let runs = 0;
  const registration = new AbortController();
  await document.modelContext.registerTool(
    {
      name: "data_error_tool",
      description: "d",
      inputSchema: {
        type: "object",
        properties: { age: { type: "integer", minimum: 0 }, code: { type: "string", pattern: "^[a-z]+$" } },
        required: ["age"],
      },
      execute: async (args) => {
        runs += 1;
        return `ran with ${JSON.stringify(args)}`;
      },
    },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "data_error_tool");
  const refusal = async (args) => {
    try {
      return { resolved: await document.modelContext.executeTool(tool, args) };
    } catch (error) {
      return { name: error.name, isDomException: error instanceof DOMException, code: error.code, kind: error.kind, message: JSON.parse(error.message) };
    }
  };
  const outcome = {
    missing: await refusal({}),
    wrongType: await refusal({ age: "old" }),
    noMatch: await refusal({ age: 3, code: "ABC1" }),
    runsBefore: runs,
    corrected: await refusal({ age: 3, code: "abc" }),
    runsAfter: runs,
  };
  registration.abort();
  return outcome;
}

// Arguments as native takes them: an array is an object and reaches the tool; left out, they are {}; a string that
// holds no JSON object or array, a number and null are TypeErrors.
export async function argumentForms() {
  const seen = [];
  const registration = new AbortController();
  await document.modelContext.registerTool(
    { name: "argument_forms_tool", description: "d", execute: (args) => { seen.push(args); return "ok"; } },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "argument_forms_tool");
  const outcome = async (args) => {
    try {
      return await document.modelContext.executeTool(tool, args);
    } catch (error) {
      return error.name;
    }
  };
  const results = [await outcome([1, 2]), await outcome(), await outcome("[3]"), await outcome("hello"), await outcome(7), await outcome(null)];
  registration.abort();
  return { results, seen };
}

// toolactivated and toolcancel reach the page's window as well as its ModelContext, each with the tool's name.
export async function windowToolEvents() {
  const heard = [];
  const listen = (target, where) => {
    for (const type of ["toolactivated", "toolcancel"]) {
      target.addEventListener(type, (event) => heard.push(`${where}:${event.type}:${event.toolName}`));
    }
  };
  listen(window, "window");
  listen(document.modelContext, "context");
  const registration = new AbortController();
  let started;
  const running = new Promise((resolve) => (started = resolve));
  await document.modelContext.registerTool(
    { name: "window_events_tool", description: "d", execute: () => { started(); return new Promise(() => {}); } },
    { signal: registration.signal },
  );
  const tool = (await document.modelContext.getTools()).find((t) => t.name === "window_events_tool");
  const caller = new AbortController();
  const call = document.modelContext.executeTool(tool, {}, { signal: caller.signal }).catch((error) => error.name);
  await running;
  caller.abort();
  const rejected = await call;
  registration.abort();
  return { heard, rejected };
}

// The bridge's own WEBMCP_* window messages never reach the page's message listeners (a `{ once: true }` listener
// would be spent on one of them); the page's own messages do, and so does the answer to a request the page's script
// sent by hand (the request itself is the bridge's to answer).
export async function pageListenersMissOurMessages() {
  const heard = [];
  const first = new Promise((resolve) =>
    window.addEventListener("message", (event) => { heard.push(event.data?.type ?? event.data); resolve(); }, { once: true }),
  );
  let answered;
  const answer = new Promise((resolve) => (answered = resolve));
  window.addEventListener("message", (event) => {
    heard.push(`any:${event.data?.type ?? event.data}`);
    if (event.data?.requestId === "page_listener_probe") answered();
  });
  window.postMessage({ type: "WEBMCP_GET_TOOLS_REQUEST", requestId: "page_listener_probe" }, "*");
  window.postMessage("the page's own", "*");
  await Promise.all([first, answer]);
  return heard;
}
