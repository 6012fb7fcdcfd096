// Page-side helpers of the form tool tests (tests/forms.rs). Each returns what the Rust test asserts on; none
// asserts.

// Every console warning from the moment the module loads.
export const warnings = [];
const warn = console.warn.bind(console);
console.warn = (...args) => {
  warnings.push(args.map(String).join(" "));
  warn(...args);
};

export function nextTask(ms = 0) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Adds `html` to the page in a new container; returns the container.
export function addHtml(html) {
  const container = document.createElement("div");
  container.innerHTML = html;
  document.body.appendChild(container);
  return container;
}

// Adds a form; returns it.
export function addForm(html) {
  return addHtml(html).querySelector("form");
}

// `changes.next()` resolves true at the next toolchange of `mc`, or false after 3 s without one;
// `changes.count` counts every toolchange from now on.
export function toolChanges(mc) {
  const changes = { count: 0 };
  changes.next = () => new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 3000);
    mc.addEventListener("toolchange", () => (clearTimeout(timer), resolve(true)), { once: true });
  });
  mc.addEventListener("toolchange", () => (changes.count += 1));
  return changes;
}

// The tool of this page named `name`, as getTools returns it, or null once `timeoutMs` passed without it.
export async function toolNamed(mc, name, timeoutMs = 3000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const tools = await mc.getTools({ timeoutMs: 50 });
    const tool = tools.find((t) => t.name === name && t.origin === location.origin);
    if (tool || Date.now() > end) return tool ?? null;
    await nextTask(10);
  }
}

// The names of this page's tools now.
export async function toolNames(mc) {
  const tools = await mc.getTools({ timeoutMs: 50 });
  return tools.filter((t) => t.origin === location.origin).map((t) => t.name).sort();
}

// Calls this page's tool `name`: { ok, value } or { ok: false, name, message, code }.
export async function callTool(mc, name, args) {
  const tool = await toolNamed(mc, name);
  if (!tool) return { ok: false, message: `no tool ${name}` };
  try {
    return { ok: true, value: await mc.executeTool(tool, args) };
  } catch (error) {
    return { ok: false, name: error?.name, message: error?.message, kind: error?.kind, isDomException: error instanceof DOMException };
  }
}

// Counts input and change events on each named field of `form`, and those that bubble to the form.
export function countEvents(form) {
  const counts = { form: { input: 0, change: 0 } };
  for (const control of form.querySelectorAll("[name]")) {
    const key = control.type === "radio" || control.type === "checkbox" ? `${control.name}=${control.value}` : control.name;
    counts[key] = { input: 0, change: 0 };
    for (const type of ["input", "change"]) control.addEventListener(type, () => (counts[key][type] += 1));
  }
  for (const type of ["input", "change"]) form.addEventListener(type, () => (counts.form[type] += 1));
  return counts;
}

// Listens for submit events on `form` and records them. `behaviour`: "none": nothing (the form navigates);
// "prevent": preventDefault only; "respond": preventDefault and respondWith(Promise of `value`);
// "reject": preventDefault and respondWith(a rejected Promise); "misuse": respondWith before preventDefault
// (recording the error), then preventDefault, then respondWith again after the event (recording that error too).
export function watchSubmits(form, behaviour, value) {
  const seen = { count: 0, agentInvoked: [], submitters: [], errors: [] };
  form.addEventListener("submit", (event) => {
    seen.count += 1;
    seen.agentInvoked.push(event.agentInvoked === true);
    seen.submitters.push(event.submitter?.name ?? null);
    if (behaviour === "none") return;
    if (behaviour === "misuse") {
      try {
        event.respondWith(value);
      } catch (error) {
        seen.errors.push(error.name);
      }
      event.preventDefault();
      setTimeout(() => {
        try {
          event.respondWith(value);
        } catch (error) {
          seen.errors.push(error.name);
        }
      });
      return;
    }
    event.preventDefault();
    if (behaviour === "respond") event.respondWith(new Promise((resolve) => setTimeout(() => resolve(value), 5)));
    if (behaviour === "reject") event.respondWith(Promise.reject(new Error(value)));
    if (behaviour === "respond-and-remove") {
      event.respondWith(value);
      form.remove();
    }
  });
  return seen;
}

// The values of the named fields of `form` (checked boxes as name=value entries).
export function formValues(form) {
  const values = {};
  for (const control of form.querySelectorAll("[name]")) {
    if (control.type === "radio" || control.type === "checkbox") values[`${control.name}=${control.value}`] = control.checked;
    else if (control.multiple) values[control.name] = [...control.selectedOptions].map((o) => o.value);
    else values[control.name] = control.value;
  }
  return values;
}

export function validationMessage(form, name) {
  return form.elements[name].validationMessage;
}

// A same-origin iframe that acts as a plain consumer of the parent's tools (the polyfill's way: requests to '*').
export function consumerFrame() {
  const frame = document.createElement("iframe");
  frame.srcdoc = `<script>
    window.request = (message) => new Promise((resolve) => {
      const listener = (event) => {
        if (event.source === parent && event.data && event.data.requestId === message.requestId
            && event.data.type !== message.type) {
          window.removeEventListener("message", listener);
          resolve(JSON.stringify(event.data));
        }
      };
      window.addEventListener("message", listener);
      parent.postMessage(message, "*");
    });
    parent.postMessage({ formConsumerReady: true }, "*");
  <\/script>`;
  const ready = new Promise((resolve) => {
    const listener = (event) => {
      if (event.source === frame.contentWindow && event.data?.formConsumerReady) {
        window.removeEventListener("message", listener);
        resolve(frame);
      }
    };
    window.addEventListener("message", listener);
  });
  document.body.appendChild(frame);
  return ready;
}

// Sends `message` from the frame to this page and resolves with the JSON text of the answer.
export async function requestFromFrame(frame, message) {
  return await frame.contentWindow.request(message);
}

// Answers the next agent submit of `form` with respondWith(a promise this page settles later):
// `pending.submitted` resolves once the submit event was dispatched, `pending.respond(value)` settles the response.
export function respondLater(form) {
  const pending = {};
  pending.submitted = new Promise((resolve) => {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      event.respondWith(new Promise((respond) => (pending.respond = respond)));
      resolve();
    }, { once: true });
  });
  return pending;
}

// Records, for each `toolactivated` of the tool `name` at `target`, the value its field `field` of `form` held then.
export function valuesAtToolActivated(target, name, form, field) {
  const values = [];
  target.addEventListener("toolactivated", (event) => {
    if (event.toolName === name) values.push(form.elements[field].value);
  });
  return values;
}

// A frame without `src` (its document is about:blank, of this origin) whose body is `html`: { frame, form }, the
// first form of `html`.
export function blankFrameWith(html) {
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  frame.contentDocument.body.innerHTML = html;
  return { frame, form: frame.contentDocument.querySelector("form") };
}

// The form of `html`, written in a document that has no window, then moved or copied out of it with `operation`
// ("adoptNode", "importNode" or "cloneNode") and added to this page; returns it.
export function formFromFramelessDocument(html, operation) {
  const framelessDocument = document.implementation.createHTMLDocument();
  framelessDocument.body.innerHTML = html;
  const source = framelessDocument.querySelector("form");
  const form = operation === "cloneNode" ? source.cloneNode(true) : document[operation](source, true);
  document.body.appendChild(form);
  return form;
}

// Forms written in documents without a window (one made by createHTMLDocument, one by DOMParser); returns them.
export function formsInFramelessDocuments(html) {
  const made = document.implementation.createHTMLDocument();
  made.body.innerHTML = html;
  const parsed = new DOMParser().parseFromString(html, "text/html");
  return [made, parsed];
}

// Adds `html` to the page and lists this page's tools in the same task: { frames, names }, `frames` the number of
// frames the page had (with none, the listing answers at once, asking no other window).
export async function namesListedRightAfterAdding(mc, html) {
  const frames = window.length;
  addHtml(html);
  const tools = await mc.getTools({ timeoutMs: 50 });
  return { frames, names: tools.filter((t) => t.origin === location.origin).map((t) => t.name).sort() };
}

// Makes `form` stop being a tool at the first `input` event of its fields: `how` "remove" removes it, "attribute"
// takes its tooldescription off.
export function stopBeingToolOnInput(form, how) {
  form.addEventListener("input", () => (how === "remove" ? form.remove() : form.removeAttribute("tooldescription")),
    { once: true });
}

// Counts `toolactivated` and `toolcancel` of the tool `name` at `target`.
export function countToolEvents(target, name) {
  const counts = { toolactivated: 0, toolcancel: 0 };
  for (const type of Object.keys(counts)) {
    target.addEventListener(type, (event) => {
      if (event.toolName === name) counts[type] += 1;
    });
  }
  return counts;
}

// Makes `frame` load `html` as its srcdoc (a page of its own); resolves once it loaded.
export function loadSrcdoc(frame, html) {
  return new Promise((resolve) => {
    frame.addEventListener("load", () => resolve(), { once: true });
    frame.srcdoc = html;
  });
}
