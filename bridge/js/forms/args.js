// Declarative form tools: what is wrong with a call's arguments for the form as it is now, one sentence each.
// The rule is the session's: every call (the page's, another window's, native's agent's through Input::FromNative)
// was held to the schema the session accepted for the form before execute runs. This reads the form as it is when
// the call fills it, which only the page can: a field removed, disabled or turned into a password field since that
// schema was made is refused here rather than filled (docs/forms.md, "Limits"), and fill() is kept to the values
// each kind of field can take.

import { EXCLUSIONS, choiceValues } from "./fields.js";

export function fieldList(names) {
  return names.length === 0 ? "none" : names.join(", ");
}

// What is wrong with the arguments, one sentence each: a name that is not a field of the schema (saying why when
// the field is left out), or a value its field cannot take.
export function argumentProblems(fields, args) {
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
