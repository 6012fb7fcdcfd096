// Declarative form tools: the tool definition `{ name, description, inputSchema, execute }` of a `<form toolname>`,
// and taking its toolname off for a moment while Rust registers the bridge's tool for it with native WebMCP.

import { collapse, collectFields } from "./fields.js";
import { runFormTool } from "./run.js";
import { inputSchema } from "./schema.js";

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
