// The browser's own URL parser, for origin lists (issue 24): the Rust side (interpane-policy) applies every rule to
// the parts, so that the url crate stays out of the download. One call returns every part at once.

// Taken when the module loads: a page that later replaces `URL` does not change how lists are read.
const NativeURL = URL;

/**
 * The parts of the absolute URL `text`, one a line: the scheme with its `:`, the host, the port ("" when none or
 * the default), "1" or "0" for credentials, a query and a fragment (present even when empty, which `search` and
 * `hash` cannot tell), then the path. `undefined` when `text` is not a URL (the parser says no more than that).
 */
export function urlParts(text) {
  let url;
  try {
    url = new NativeURL(text);
  } catch {
    return undefined;
  }
  // In the serialization, the first `#` starts the fragment, and a `?` before it the query: both are
  // percent-encoded everywhere else.
  const href = url.href;
  const hash = href.indexOf("#");
  const query = (hash < 0 ? href : href.slice(0, hash)).includes("?");
  const credentials = url.username !== "" || url.password !== "";
  return [url.protocol, url.hostname, url.port, credentials ? 1 : 0, query ? 1 : 0, hash < 0 ? 0 : 1, url.pathname]
    .join("\n");
}
