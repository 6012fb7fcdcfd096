// Declarative form tools: which named fields of a `<form toolname>` the tool describes and fills, grouped by name
// (a radio group, a set of checkboxes), what kind of value each takes, and why a field is left out (docs/forms.md).

// Input types that carry no value of their own: buttons.
const BUTTON_TYPES = new Set(["submit", "reset", "button", "image"]);

// Autocomplete tokens that make a text field a password field in all but its type.
const SECRET_AUTOCOMPLETE = new Set(["current-password", "new-password", "one-time-code"]);

// Why a field is left out of the schema, as words that finish "<name> is ...".
export const EXCLUSIONS = {
  password: "a password field, which only the visitor fills",
  hidden: "a hidden field, which the page fills",
  file: "a file field, which only the visitor fills",
  disabled: "disabled",
  readonly: "read-only",
  empty: "a list with no options to choose from",
};

export function collapse(text) {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

export function attribute(element, name) {
  const value = collapse(element?.getAttribute?.(name));
  return value === "" ? undefined : value;
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

export function usableOptions(select) {
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
export function collectFields(form) {
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

export function choiceValues(group) {
  if (group.box) return [...new Set(group.controls.map((c) => c.value))];
  return usableOptions(group.controls[0]).map((o) => o.value);
}
