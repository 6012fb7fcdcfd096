// Declarative form tools: the DOM half. A `<form toolname tooldescription>` becomes a tool definition
// `{ name, description, inputSchema, execute }` built from its named fields, and a MutationObserver reports forms
// that appear, disappear or change. Rust (src/forms.rs) decides what becomes a tool and registers it; nothing
// here touches the bridge. The rules are written down in docs/forms.md.

// Attributes whose change can alter a form's tool: its name, description, schema or a field's description.
const WATCHED_ATTRIBUTES = [
  "toolname", "tooldescription", "toolautosubmit", "toolparamdescription", "aria-description",
  "name", "type", "value", "label", "required", "disabled", "readonly", "multiple",
  "min", "max", "step", "minlength", "maxlength", "pattern", "autocomplete", "for", "id", "form",
];

// Input types that carry no value of their own: buttons.
const BUTTON_TYPES = new Set(["submit", "reset", "button", "image"]);
// Input types whose value the browser rewrites when it does not fit (dates, numbers, colours): after filling
// one, the value is read back to tell the caller when the browser did not keep it.
const SANITIZED_TYPES = new Set(["number", "range", "date", "time", "datetime-local", "month", "week", "color"]);
// Autocomplete tokens that make a text field a password field in all but its type.
const SECRET_AUTOCOMPLETE = new Set(["current-password", "new-password", "one-time-code"]);
// Elements whose text is not part of a label's text (the spec's "labelable elements", and the options of a select).
const NOT_LABEL_TEXT = "input, select, textarea, button, meter, output, progress, option, datalist";

// Why a field is left out of the schema, as words that finish "<name> is ...".
const EXCLUSIONS = {
  password: "a password field, which only the visitor fills",
  hidden: "a hidden field, which the page fills",
  file: "a file field, which only the visitor fills",
  disabled: "disabled",
  readonly: "read-only",
  empty: "a list with no options to choose from",
};

function collapse(text) {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

function attribute(element, name) {
  const value = collapse(element?.getAttribute?.(name));
  return value === "" ? undefined : value;
}

// The text of a label without the text of the fields it holds (a select's options would otherwise join it).
function labelText(label) {
  const parts = [];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) parts.push(child.data);
      else if (child.nodeType === Node.ELEMENT_NODE && !child.matches(NOT_LABEL_TEXT)) walk(child);
    }
  };
  walk(label);
  return collapse(parts.join(" "));
}

function firstLabelText(control) {
  for (const label of control.labels ?? []) {
    const text = labelText(label);
    if (text) return text;
  }
  return undefined;
}

// toolparamdescription, else the label's text, else aria-description.
function controlDescription(control) {
  return attribute(control, "toolparamdescription") ?? firstLabelText(control) ?? attribute(control, "aria-description");
}

// A radio or checkbox group: toolparamdescription on one of its boxes or on the fieldset around them, else the
// fieldset's legend, else aria-description (of a box, then of the fieldset).
function groupDescription(controls) {
  const fieldset = controls[0].closest("fieldset");
  const shared = fieldset && controls.every((c) => fieldset.contains(c)) ? fieldset : null;
  const legend = shared ? [...shared.children].find((c) => c.localName === "legend") : null;
  for (const c of controls) {
    const own = attribute(c, "toolparamdescription");
    if (own) return own;
  }
  return (
    attribute(shared, "toolparamdescription") ??
    (legend ? collapse(legend.textContent) || undefined : undefined) ??
    controls.map((c) => attribute(c, "aria-description")).find(Boolean) ??
    attribute(shared, "aria-description")
  );
}

function exclusion(control) {
  if (control.localName === "input") {
    if (control.type === "password") return "password";
    if (control.type === "hidden") return "hidden";
    if (control.type === "file") return "file";
  }
  const tokens = (control.getAttribute("autocomplete") ?? "").toLowerCase().split(/\s+/);
  if (tokens.some((t) => SECRET_AUTOCOMPLETE.has(t))) return "password";
  if (control.matches(":disabled")) return "disabled";
  if (control.readOnly) return "readonly";
  return null;
}

function usableOptions(select) {
  const seen = new Set();
  return [...select.options].filter((o) => {
    if (o.value === "" || o.matches(":disabled") || seen.has(o.value)) return false;
    seen.add(o.value);
    return true;
  });
}

function boxKind(control) {
  return control.localName === "input" && (control.type === "radio" || control.type === "checkbox")
    ? control.type
    : null;
}

// The named fields of a form, in document order: `groups` (name -> the field or boxes the schema describes) and
// `excluded` (name -> why it is left out; only names that no included field has).
function collectFields(form) {
  const groups = new Map();
  const excluded = new Map();
  for (const control of form.elements) {
    if (!["input", "select", "textarea"].includes(control.localName)) continue;
    if (control.localName === "input" && BUTTON_TYPES.has(control.type)) continue;
    const name = control.name;
    if (!name) continue;
    const reason = exclusion(control);
    if (reason) {
      if (!excluded.has(name)) excluded.set(name, reason);
      continue;
    }
    const box = boxKind(control);
    const group = groups.get(name);
    if (group) {
      // Boxes of one name form a group; any other second field of a name is ignored (the first one is filled).
      if (box && group.box === box) group.controls.push(control);
      continue;
    }
    if (control.localName === "select" && usableOptions(control).length === 0) {
      if (!excluded.has(name)) excluded.set(name, "empty");
      continue;
    }
    groups.set(name, { name, box, controls: [control] });
  }
  for (const name of groups.keys()) excluded.delete(name);
  for (const group of groups.values()) group.kind = groupKind(group);
  return { groups, excluded };
}

function groupKind(group) {
  const control = group.controls[0];
  if (group.box === "radio") return "choice";
  if (group.box === "checkbox") return group.controls.length > 1 ? "choices" : "boolean";
  if (control.localName === "select") return control.multiple ? "choices" : "choice";
  if (control.localName === "input" && (control.type === "number" || control.type === "range")) return "number";
  return "text";
}

function choiceValues(group) {
  if (group.box) return [...new Set(group.controls.map((c) => c.value))];
  return usableOptions(group.controls[0]).map((o) => o.value);
}

function finiteAttribute(control, name) {
  const text = control.getAttribute(name);
  if (text === null || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

// A number field holds whole numbers when its step (1 unless given; "any" allows every number) and the base the
// step counts from (min, else the value attribute) are whole.
function numberType(control) {
  const step = (control.getAttribute("step") ?? "").trim().toLowerCase();
  if (step === "any") return "number";
  const size = step === "" ? 1 : Number(step);
  const base = finiteAttribute(control, "min") ?? finiteAttribute(control, "value") ?? 0;
  if (!Number.isFinite(size) || size <= 0) return Number.isInteger(base) ? "integer" : "number";
  return Number.isInteger(size) && Number.isInteger(base) ? "integer" : "number";
}

const FORMATS = { email: "email", url: "uri", date: "date", time: "time" };

function propertySchema(group) {
  const control = group.controls[0];
  const description = group.box === "radio" || (group.box === "checkbox" && group.controls.length > 1)
    ? groupDescription(group.controls)
    : controlDescription(control);
  const schema = {};
  switch (group.kind) {
    case "boolean":
      schema.type = "boolean";
      break;
    case "choice":
      schema.type = "string";
      schema.enum = choiceValues(group);
      break;
    case "choices":
      schema.type = "array";
      schema.items = { type: "string", enum: choiceValues(group) };
      schema.uniqueItems = true;
      break;
    case "number": {
      schema.type = numberType(control);
      const range = control.type === "range";
      const minimum = finiteAttribute(control, "min") ?? (range ? 0 : undefined);
      const maximum = finiteAttribute(control, "max") ?? (range ? 100 : undefined);
      if (minimum !== undefined) schema.minimum = minimum;
      if (maximum !== undefined) schema.maximum = maximum;
      break;
    }
    default: {
      schema.type = "string";
      const format = control.localName === "input" ? FORMATS[control.type] : undefined;
      if (format) schema.format = format;
      const pattern = control.getAttribute("pattern");
      if (pattern && control.localName === "input") schema.pattern = `^(?:${pattern})$`;
      if (control.minLength > 0) schema.minLength = control.minLength;
      if (control.maxLength >= 0) schema.maxLength = control.maxLength;
    }
  }
  if (description) schema.description = description;
  return schema;
}

function isRequired(group) {
  return group.controls.some((c) => c.required);
}

function inputSchema(fields) {
  const properties = {};
  const required = [];
  for (const group of fields.groups.values()) {
    properties[group.name] = propertySchema(group);
    if (isRequired(group)) required.push(group.name);
  }
  const schema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

// ---------------------------------------------------------------------------------------------------------------
// Filling and submitting.

function fieldList(names) {
  return names.length === 0 ? "none" : names.join(", ");
}

// What is wrong with the arguments, one sentence each. Rust checked them against the schema already; this keeps a
// direct call to `execute` (or a form that changed since) from filling anything it should not.
function argumentProblems(fields, args) {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return ["the arguments must be an object"];
  const problems = [];
  const names = [...fields.groups.keys()];
  for (const name of Object.keys(args)) {
    const group = fields.groups.get(name);
    if (!group) {
      const why = fields.excluded.get(name);
      problems.push(why
        ? `${name} is ${EXCLUSIONS[why]}: it cannot be filled through the tool`
        : `the form has no field ${JSON.stringify(name)} (fields: ${fieldList(names)})`);
      continue;
    }
    const problem = valueProblem(group, args[name]);
    if (problem) problems.push(`${name} ${problem}`);
  }
  return problems;
}

function valueProblem(group, value) {
  switch (group.kind) {
    case "boolean":
      return typeof value === "boolean" ? null : "must be true or false";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a number";
    case "choice": {
      const values = choiceValues(group);
      return values.includes(value) ? null : `must be one of ${values.join(", ")}`;
    }
    case "choices": {
      const values = choiceValues(group);
      return Array.isArray(value) && value.every((v) => values.includes(v))
        ? null
        : `must be a list of values among ${values.join(", ")}`;
    }
    default:
      return typeof value === "string" ? null : "must be a string";
  }
}

const PROTOTYPES = {
  input: () => HTMLInputElement.prototype,
  select: () => HTMLSelectElement.prototype,
  textarea: () => HTMLTextAreaElement.prototype,
};

// Sets a field's value through the element's own class setter, past any setter a framework put on the instance
// (React tracks values that way and would ignore the input event otherwise).
function setValue(control, value) {
  const descriptor = Object.getOwnPropertyDescriptor(PROTOTYPES[control.localName](), "value");
  if (descriptor?.set) descriptor.set.call(control, value);
  else control.value = value;
}

function announceEdit(control, text) {
  const input = control.localName === "select"
    ? new Event("input", { bubbles: true, composed: true })
    : new InputEvent("input", { bubbles: true, composed: true, inputType: "insertReplacementText", data: text });
  control.dispatchEvent(input);
  control.dispatchEvent(new Event("change", { bubbles: true }));
}

// A checkbox or radio is clicked, as a visitor would: the browser fires click, input and change.
function setChecked(control, checked) {
  if (control.checked !== checked) control.click();
  return control.checked === checked;
}

// Fills one field. Returns why the field did not keep the value, or null.
function fill(group, value) {
  const control = group.controls[0];
  switch (group.kind) {
    case "boolean":
      return setChecked(control, value) ? null : `the page kept it ${control.checked ? "checked" : "unchecked"}`;
    case "choice": {
      if (group.box) {
        const box = group.controls.find((c) => c.value === value);
        return setChecked(box, true) ? null : `the page did not let ${JSON.stringify(value)} be chosen`;
      }
      if (control.value !== value) {
        setValue(control, value);
        announceEdit(control, value);
      }
      return control.value === value ? null : `the page kept ${JSON.stringify(control.value)}`;
    }
    case "choices": {
      const wanted = new Set(value);
      if (group.box) {
        const refused = group.controls.filter((c) => !setChecked(c, wanted.has(c.value)));
        return refused.length === 0 ? null : `the page did not let ${refused.map((c) => c.value).join(", ")} change`;
      }
      let changed = false;
      for (const option of usableOptions(control)) {
        if (option.selected !== wanted.has(option.value)) {
          option.selected = wanted.has(option.value);
          changed = true;
        }
      }
      if (changed) announceEdit(control, null);
      return null;
    }
    default: {
      const text = String(value);
      if (control.value !== text) {
        setValue(control, text);
        announceEdit(control, text);
      }
      const kept = control.value;
      if (control.localName === "input" && SANITIZED_TYPES.has(control.type)) {
        if (kept.toLowerCase() !== text.toLowerCase()) {
          return kept === ""
            ? `the browser did not accept ${JSON.stringify(text)} for a ${control.type} field`
            : `the browser turned ${JSON.stringify(text)} into ${JSON.stringify(kept)}`;
        }
      }
      return null;
    }
  }
}

function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function abortIfNeeded(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException("The call was stopped.", "AbortError");
}

function submitButtons(form) {
  return [...form.elements].filter((c) =>
    (c.localName === "button" && c.type === "submit") ||
    (c.localName === "input" && (c.type === "submit" || c.type === "image")));
}

// What stops the form from being submitted, as { name, reason, by }: `by` is "agent" when the value given (or
// left) in a field of the schema is wrong, "visitor" when only the visitor can fix it (a field left out of the
// schema), "page" when the page keeps every submit button disabled (checked only when the form is to be submitted).
function blockers(form, fields, refusedValues, submitting) {
  const found = new Map();
  for (const [name, reason] of refusedValues) found.set(name, { name, reason, by: "agent" });
  for (const control of form.elements) {
    if (!control.willValidate || control.validity.valid) continue;
    const name = control.name || control.id || control.localName;
    if (found.has(name)) continue;
    const why = fields.excluded.get(name);
    const message = collapse(control.validationMessage) || "the browser does not accept its value";
    const reason = why ? `${EXCLUSIONS[why]}: ${message}` : message;
    found.set(name, { name, reason, by: fields.groups.has(name) ? "agent" : "visitor" });
  }
  const buttons = submitButtons(form);
  if (submitting && buttons.length > 0 && buttons.every((b) => b.matches(":disabled"))) {
    found.set("", { name: "", reason: "the page keeps its submit button disabled", by: "page" });
  }
  return [...found.values()];
}

function described(blocked) {
  return blocked.map((b) => `${b.name} (${b.reason})`).join("; ");
}

function blockedError(toolName, blocked, filled, submitting) {
  const parts = [];
  const agent = blocked.filter((b) => b.by === "agent");
  const visitor = blocked.filter((b) => b.by === "visitor");
  if (agent.length > 0) parts.push(`the browser refused ${described(agent)}`);
  if (visitor.length > 0) parts.push(`the visitor must complete ${described(visitor)}`);
  for (const b of blocked.filter((b) => b.by === "page")) parts.push(b.reason);
  const what = submitting ? "was not submitted" : "is not ready";
  const kept = filled.length > 0 ? ` The values given (${fieldList(filled)}) were left in the form.` : "";
  return new Error(`${toolName}: the form ${what}: ${parts.join("; and ")}.${kept}`);
}

function filledText(filled) {
  return filled.length === 0 ? "Filled no field." : `Filled ${fieldList(filled)}.`;
}

// Submits as the visitor would with the form's first submit button (validation and submit handlers run). The
// submit event gets `agentInvoked` and `respondWith()` (the WebMCP draft's hook), for this submission only.
function submitAsAgent(form) {
  const submission = { seen: false, event: null, response: undefined };
  let dispatching = false;
  const hook = (event) => {
    if (event.target !== form || submission.seen) return;
    submission.seen = true;
    submission.event = event;
    dispatching = true;
    Object.defineProperty(event, "agentInvoked", { value: true, configurable: true });
    Object.defineProperty(event, "respondWith", {
      configurable: true,
      value(response) {
        if (!dispatching) {
          throw new DOMException("respondWith() must be called while the submit event is dispatched", "InvalidStateError");
        }
        if (!event.defaultPrevented) {
          throw new DOMException("call event.preventDefault() before event.respondWith()", "InvalidStateError");
        }
        if (submission.response) throw new DOMException("respondWith() was already called", "InvalidStateError");
        submission.response = Promise.resolve(response);
        // Handled below; this keeps an early rejection from being reported as unhandled meanwhile.
        submission.response.catch(() => {});
      },
    });
  };
  const submitter = submitButtons(form).find((b) => !b.matches(":disabled")) ?? null;
  window.addEventListener("submit", hook, { capture: true });
  try {
    form.requestSubmit(submitter);
  } finally {
    dispatching = false;
    window.removeEventListener("submit", hook, { capture: true });
  }
  return submission;
}

function untilAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason ?? new DOMException("The call was stopped.", "AbortError"));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

function result(text, fields) {
  return { content: [{ type: "text", text }], ...fields };
}

async function runFormTool(form, toolName, args, signal) {
  abortIfNeeded(signal);
  const fields = collectFields(form);
  const problems = argumentProblems(fields, args ?? {});
  if (problems.length > 0) throw new TypeError(`${toolName}: ${problems.join("; ")}`);
  const filled = [];
  const refused = new Map();
  for (const group of fields.groups.values()) {
    if (!Object.hasOwn(args ?? {}, group.name)) continue;
    const problem = fill(group, args[group.name]);
    filled.push(group.name);
    if (problem) refused.set(group.name, problem);
  }
  // Let the page's input and change handlers (and a framework's re-render) run before the form is judged.
  await nextTask();
  abortIfNeeded(signal);
  const autosubmit = form.hasAttribute("toolautosubmit");
  const blocked = blockers(form, fields, refused, autosubmit);
  if (blocked.some((b) => b.by === "agent") || (autosubmit && blocked.length > 0)) {
    throw blockedError(toolName, blocked, filled, autosubmit);
  }
  if (!autosubmit) {
    const waiting = blocked.length > 0 ? ` The visitor must also complete ${described(blocked)}.` : "";
    return result(`${filledText(filled)} Not submitted: the visitor reviews the form and submits it.${waiting}`, {
      filled,
      submitted: false,
    });
  }
  if (!form.isConnected) throw new Error(`${toolName}: the form left the page before it could be submitted`);
  const submission = submitAsAgent(form);
  if (!submission.seen) {
    const now = blockers(form, fields, new Map(), true);
    throw now.length > 0
      ? blockedError(toolName, now, filled, true)
      : new Error(`${toolName}: the browser did not submit the form`);
  }
  if (submission.response) {
    const response = await untilAborted(submission.response, signal);
    return result(`${filledText(filled)} Submitted the form; the page responded.`, {
      filled,
      submitted: true,
      response,
    });
  }
  const note = submission.event.defaultPrevented
    ? " The page's submit handler took the submission over and gave no response."
    : "";
  return result(`${filledText(filled)} Submitted the form.${note}`, { filled, submitted: true });
}

// The form of each definition formTool made (for releaseNativeName).
const formOf = new WeakMap();

// The tool definition of a `<form toolname>`: Rust checks the name and description and compiles the schema.
export function formTool(form) {
  const name = form.getAttribute("toolname") ?? "";
  const definition = {
    name,
    description: collapse(form.getAttribute("tooldescription")),
    inputSchema: inputSchema(collectFields(form)),
    execute(args, context) {
      return runFormTool(form, name, args, context?.signal);
    },
  };
  formOf.set(definition, form);
  return definition;
}

// Native WebMCP (docs/native.md) makes every `<form toolname>` a tool of its own page too, with password fields in
// its schema and filled by the browser's agent. So that a form is one tool, the bridge's (which leaves passwords to
// the visitor), Rust registers the bridge's tool for the form with native between these two calls: the first takes
// `toolname` off the form (native drops its own tool for it and frees the name) and returns it, the second puts it
// back at once (native then leaves the form alone, the name being taken). Both run in one task, so the page's
// MutationObservers see the attribute as it was (watchForms compares the form's tool, which has not changed).
export function releaseNativeName(definition) {
  const form = formOf.get(definition);
  const written = form?.getAttribute("toolname") ?? null;
  if (written !== null) form.removeAttribute("toolname");
  return written;
}

export function restoreNativeName(definition, written) {
  const form = formOf.get(definition);
  if (form && written !== null && written !== undefined && !form.hasAttribute("toolname")) {
    form.setAttribute("toolname", written);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Watching the document.

function signature(definition) {
  return `${definition.name}\n${definition.description}\n${JSON.stringify(definition.inputSchema)}`;
}

// Whether a batch of mutation records may have changed `form`'s tool.
function touches(form, records) {
  for (const record of records) {
    const target = record.target;
    if (target === form || form.contains(target)) return true;
    const element = target.nodeType === Node.ELEMENT_NODE ? target : target.parentElement;
    if (element?.form === form) return true;
    const label = element?.closest("label");
    if (label?.control?.form === form) return true;
    for (const node of record.addedNodes) {
      if (node.form === form) return true;
    }
  }
  return false;
}

// Watches `root` (a document) for `form[toolname]` elements and calls `report(kind, id, definition)`:
// "added" (with the definition), "removed" (definition null), "renamed" or "changed" (with the new definition).
// `id` stays the same for a form as long as it is in the page. The first report comes in a microtask, so that tools
// the page registers right after installing the bridge come first.
export function watchForms(root, report) {
  const tracked = new Map();
  let nextId = 1;
  const sync = (records) => {
    const current = new Set(root.querySelectorAll("form[toolname]"));
    for (const [form, entry] of tracked) {
      if (!current.has(form)) {
        tracked.delete(form);
        report("removed", entry.id, null);
      }
    }
    for (const form of current) {
      const entry = tracked.get(form);
      if (entry && records && !touches(form, records)) continue;
      const definition = formTool(form);
      const key = signature(definition);
      if (!entry) {
        tracked.set(form, { id: nextId, key, name: definition.name });
        report("added", nextId, definition);
        nextId += 1;
      } else if (entry.key !== key) {
        const kind = entry.name === definition.name ? "changed" : "renamed";
        entry.key = key;
        entry.name = definition.name;
        report(kind, entry.id, definition);
      }
    }
  };
  const observer = new MutationObserver((records) => sync(records));
  observer.observe(root, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: WATCHED_ATTRIBUTES,
  });
  queueMicrotask(() => sync(null));
  return { disconnect: () => observer.disconnect() };
}
