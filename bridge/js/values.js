// JavaScript values to and from the bridge: the Error and DOMException objects a call rejects with, the JSON text of
// a tool's result made safe to post, what a thrown value says, and JSON parsing without "__proto__" keys. Rust
// applies every rule about them; these functions only build and read the objects.

export function makeError(message, name, kind, status, retryAfter) {
  const error = new Error(message);
  if (name && name !== "Error") error.name = name;
  if (kind) {
    error.kind = kind;
    // `kind` under its earlier name, kept on Error objects (a DOMException's `code` is the platform's number).
    error.code = kind;
  }
  if (status !== undefined) error.status = status;
  if (retryAfter !== undefined) error.retryAfter = retryAfter;
  return error;
}

// A DOMException of the name native WebMCP rejects with (DataError, InvalidStateError, UnknownError), with the
// bridge's `kind` as an own property when given; its `code` stays the platform's number for the name, which
// code written for native WebMCP (and the platform tests) compare.
export function makeDomException(message, name, kind, status, retryAfter) {
  const error = new DOMException(message, name);
  if (kind) error.kind = kind;
  if (status !== undefined) error.status = status;
  if (retryAfter !== undefined) error.retryAfter = retryAfter;
  return error;
}

const textEncoder = new TextEncoder();

// A long string's UTF-8 bytes, which the wasm copies in at once (bridge/src/text_in.rs says why).
export function utf8Bytes(text) {
  return textEncoder.encode(text);
}

function nodeName(value) {
  if (typeof Node !== "undefined" && value instanceof Node) return `[${value.nodeName.toLowerCase()}]`;
  if (typeof Window !== "undefined" && value instanceof Window) return "[window]";
  return null;
}

// JSON text of a tool's result (or any value) that is always safe to post and to parse again: dates become ISO
// strings (their toJSON), undefined becomes null, functions and symbols are dropped, a DOM node becomes a short
// name such as "[dialog]", an object met again inside itself becomes "[circular]", a BigInt its decimal string.
export function safeJson(value) {
  // Plain data (most results) is written without a replacer: V8 writes long strings several times faster then.
  if (isPlainData(value, [])) return JSON.stringify(value) ?? "null";
  const ancestors = [];
  function replacer(key, current) {
    // `this` is the object that holds `key`: drop the ancestors that are not on the path to it.
    if (typeof current === "object" && current !== null) {
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      const name = nodeName(current);
      if (name !== null) return name;
      if (ancestors.includes(current)) return "[circular]";
      ancestors.push(current);
      return current;
    }
    if (typeof current === "bigint") return current.toString();
    return current;
  }
  const text = JSON.stringify(value === undefined ? null : value, replacer);
  // JSON.stringify returns undefined for a top-level function or symbol.
  return text === undefined ? "null" : text;
}

// Whether JSON.stringify(value) without a replacer writes what safeJson's replacer would: no BigInt, no DOM node or
// window, no cycle, nothing with a toJSON, a getter or a prototype of its own (a class instance, a Date, a Map),
// whose reading the replacer's path leaves to JSON.stringify. `path` holds the objects above `value`.
function isPlainData(value, path) {
  if (typeof value === "bigint") return false;
  if (typeof value !== "object" || value === null) return true;
  if (path.includes(value) || path.length > 64) return false;
  path.push(value);
  let plain;
  if (Array.isArray(value)) {
    plain = Object.getPrototypeOf(value) === Array.prototype && value.every((item) => isPlainData(item, path));
  } else {
    const prototype = Object.getPrototypeOf(value);
    plain =
      (prototype === Object.prototype || prototype === null) &&
      Object.entries(Object.getOwnPropertyDescriptors(value)).every(
        ([key, property]) =>
          !("get" in property) && key !== "toJSON" && (!property.enumerable || isPlainData(property.value, path)),
      );
  }
  path.pop();
  return plain;
}

// A value as text: a string as it is, anything else as JSON or, failing that, `String()` or its class tag.
export function describeValue(value) {
  try {
    return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

// The fields of whatever a tool threw that Rust reads: an Error, an object with a message, a string, anything.
// Rust applies the rules (which names, statuses and retryAfter values are kept).
export function describeThrown(thrown) {
  if (typeof thrown === "object" && thrown !== null) {
    const message = typeof thrown.message === "string" ? thrown.message : describeValue(thrown);
    return {
      message: message || "the tool failed without a message",
      name: typeof thrown.name === "string" ? thrown.name : undefined,
      status: thrown.status,
      retryAfter: thrown.retryAfter,
    };
  }
  return { message: describeValue(thrown) || "the tool failed without a message" };
}

// JSON.parse, with every "__proto__" key removed (a reviver deletes a key by returning undefined). The reviver
// slows parsing down, so the Rust side asks for it only when the text has such a key.
export function parseWithoutProtoKeys(text) {
  return JSON.parse(text, function (key, value) {
    return key === "__proto__" ? undefined : value;
  });
}

// A JSON Schema `pattern` as the browser's own RegExp (Unicode mode, as JSON Schema reads patterns), or the
// SyntaxError's message for one that is not a regular expression.
export function compilePattern(source) {
  try {
    return new RegExp(source, "u");
  } catch (error) {
    return String(error?.message ?? error);
  }
}
