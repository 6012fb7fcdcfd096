// Declarative form tools: watching the document for forms that appear, disappear or change, and reporting each to
// Rust (src/forms.rs), which hands it to the session (policy's session/forms.rs), where what becomes a tool is
// decided. The rules are written down in docs/forms.md.

import { formTool } from "./tool.js";

// Attributes whose change can alter a form's tool: its name, description, schema or a field's description.
const WATCHED_ATTRIBUTES = [
  "toolname", "tooldescription", "toolautosubmit", "toolparamdescription", "aria-description",
  "name", "type", "value", "label", "required", "disabled", "readonly", "multiple",
  "min", "max", "step", "minlength", "maxlength", "pattern", "autocomplete", "for", "id", "form",
];

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
