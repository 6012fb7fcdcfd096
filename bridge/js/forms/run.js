// Declarative form tools: one call of a form's tool. Checks the arguments against the form, fills the fields,
// lets the page react, judges the form with constraint validation, and submits it when toolautosubmit asks.

import { argumentProblems, fieldList } from "./args.js";
import { EXCLUSIONS, collapse, collectFields } from "./fields.js";
import { fill } from "./fill.js";
import { toolEvent } from "../context.js";
import { installedBridge } from "../tools.js";
import { submitAsAgent, submitButtons, untilAborted } from "./submit.js";

function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function abortIfNeeded(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException("The call was stopped.", "AbortError");
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

function result(text, fields) {
  return { content: [{ type: "text", text }], ...fields };
}

// Why `form` is no longer the tool `toolName` (it left the page, or lost its toolname or tooldescription), or null.
function noLongerTool(form, toolName) {
  if (!form.isConnected) return "the form left the page";
  if (form.getAttribute("toolname") !== toolName) return "the form's toolname changed";
  if (!form.getAttribute("tooldescription")?.trim()) return "the form lost its tooldescription";
  return null;
}

// A form that stopped being its tool between being filled and being judged (its own handlers removed it, say)
// cancels the call, as native cancels a form call whose tool goes before the form is submitted: `toolcancel` at
// the page's modelContext and window, and an UnknownError for the caller.
function cancelIfNoLongerTool(form, toolName) {
  const why = noLongerTool(form, toolName);
  if (why === null) return;
  // At the page's ModelContext, then at its window, as runTool fires them (tools.js).
  const context = installedBridge();
  if (context instanceof EventTarget) context.dispatchEvent(toolEvent("toolcancel", toolName));
  globalThis.dispatchEvent(toolEvent("toolcancel", toolName));
  throw new DOMException(`${toolName}: ${why} before it was submitted; the call was cancelled`, "UnknownError");
}

export async function runFormTool(form, toolName, args, signal) {
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
  // The fields hold the values now, when runTool (tools.js) fires `toolactivated`: this function returns its
  // promise here. Let the page's input and change handlers (and a framework's re-render) run before the form is
  // judged.
  await nextTask();
  abortIfNeeded(signal);
  cancelIfNoLongerTool(form, toolName);
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
  const submission = submitAsAgent(form);
  if (!submission.seen) {
    const now = blockers(form, fields, new Map(), true);
    throw now.length > 0
      ? blockedError(toolName, now, filled, true)
      : new Error(`${toolName}: the browser did not submit the form`);
  }
  // The page's response is the call's result, as with native WebMCP. A form that left the page while its submit
  // event was dispatched (its submit handler removed it, say) ends the call as native's does: an UnknownError,
  // whatever the page responded. A form that leaves after that does not: its response still answers the call.
  if (submission.response) {
    if (submission.leftDuringSubmit) {
      throw new DOMException(`${toolName}: the form left the page during its submit event`, "UnknownError");
    }
    return untilAborted(submission.response, signal);
  }
  const note = submission.event.defaultPrevented
    ? " The page's submit handler took the submission over and gave no response."
    : "";
  return result(`${filledText(filled)} Submitted the form.${note}`, { filled, submitted: true });
}
