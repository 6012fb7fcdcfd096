// Declarative form tools: watching the document for forms that appear, disappear or change, and reporting each to
// Rust (src/forms.rs), which hands it to the session (policy's session/forms.rs), where what becomes a tool is
// decided. The rules are written down in docs/forms.md.

import { bridgeIn } from "../tools.js";
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

// The documents whose forms are this page's: `root` and, inside it, the `about:blank` documents of its frames (a
// frame without `src`, which only this page's script fills) that have no `modelContext` of their own; theirs too,
// at any depth. A frame that loads a page of its own (a URL, `srcdoc`) is that page's: its forms are its own tools,
// listed through its bridge. So is a frame whose document has a `modelContext`: the browser's own WebMCP (which
// makes the frame's forms tools of the frame) or a bridge installed there.
function documentsOf(root) {
  const documents = [root];
  for (let i = 0; i < documents.length; i += 1) {
    for (const frame of documents[i].querySelectorAll("iframe, frame")) {
      const inner = frame.contentDocument; // null for a frame of another origin
      if (!inner || inner.URL !== "about:blank" || !inner.defaultView || documents.includes(inner)) continue;
      if ("modelContext" in inner || bridgeIn(inner.defaultView) !== undefined) continue;
      documents.push(inner);
    }
  }
  return documents;
}

const OBSERVED = {
  subtree: true,
  childList: true,
  characterData: true,
  attributes: true,
  attributeFilter: WATCHED_ATTRIBUTES,
};

// Watches `root` (a document, with the documents of its frames that documentsOf counts as its own) for
// `form[toolname]` elements and calls `report(kind, id, definition)`: "added" (with the definition), "removed"
// (definition null), "renamed" or "changed" (with the new definition). `id` stays the same for a form as long as it
// is in the page. The first report comes in a microtask, so that tools the page registers right after installing
// the bridge come first.
export function watchForms(root, report) {
  const tracked = new Map();
  let nextId = 1;
  let observed = [];
  const observer = new MutationObserver((records) => sync(records));
  // A frame that loads a document replaces the one it had without a mutation of the document that holds the frame.
  const loaded = (event) => {
    if (event.target?.localName === "iframe" || event.target?.localName === "frame") sync([]);
  };
  // Observes each document of the page once, and hears its frames load; a document that left (its frame was
  // removed or navigated) is let go.
  const observe = (documents) => {
    const left = observed.some((d) => !documents.includes(d));
    if (left) observer.disconnect();
    for (const document of observed) {
      if (!documents.includes(document)) document.removeEventListener("load", loaded, { capture: true });
    }
    for (const document of documents) {
      if (left || !observed.includes(document)) observer.observe(document, OBSERVED);
      if (!observed.includes(document)) document.addEventListener("load", loaded, { capture: true });
    }
    observed = documents;
  };
  let syncing = false;
  const sync = (given) => {
    syncing = true;
    try {
      syncNow(given);
    } finally {
      syncing = false;
    }
  };
  const syncNow = (given) => {
    // The records still pending too: observe() may disconnect the observer, which would drop them.
    const pending = observer.takeRecords();
    const records = given && [...given, ...pending];
    const documents = documentsOf(root);
    const changedDocuments = documents.length !== observed.length || documents.some((d, i) => d !== observed[i]);
    observe(documents);
    const current = new Set(documents.flatMap((d) => [...d.querySelectorAll("form[toolname]")]));
    for (const [form, entry] of tracked) {
      if (!current.has(form)) {
        tracked.delete(form);
        report("removed", entry.id, null);
      }
    }
    for (const form of current) {
      const entry = tracked.get(form);
      if (entry && records && !changedDocuments && !touches(form, records)) continue;
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
  observe([root]);
  let started = false;
  queueMicrotask(() => {
    if (!started) sync(null);
    started = true;
  });
  return {
    // Reports at once the changes the observer would report in a microtask, so that a listing made in the same
    // task as a change (a form appended, then getTools) sees it, as native's does.
    flush: () => {
      // A listing made from inside a report (a toolchange handler) lists what the sync under way reports.
      if (syncing) return;
      const records = observer.takeRecords();
      if (!started) sync(null);
      else if (records.length > 0) sync(records);
      started = true;
    },
    disconnect: () => observe([]),
  };
}
