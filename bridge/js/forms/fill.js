// Declarative form tools: filling one field as a visitor would (the element's own value setter, then input and
// change events; a box is clicked), and telling when the page or the browser did not keep the value.

import { usableOptions } from "./fields.js";

// Input types whose value the browser rewrites when it does not fit (dates, numbers, colours): after filling
// one, the value is read back to tell the caller when the browser did not keep it.
const SANITIZED_TYPES = new Set(["number", "range", "date", "time", "datetime-local", "month", "week", "color"]);

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
export function fill(group, value) {
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
