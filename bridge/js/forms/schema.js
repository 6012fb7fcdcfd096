// Declarative form tools: the input schema of a form, built from its fields (types, enums, limits, formats,
// required fields) and their descriptions (toolparamdescription, labels, legends, aria-description).

import { attribute, choiceValues, collapse } from "./fields.js";

// Elements whose text is not part of a label's text (the spec's "labelable elements", and the options of a select).
const NOT_LABEL_TEXT = "input, select, textarea, button, meter, output, progress, option, datalist";

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

export function inputSchema(fields) {
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
