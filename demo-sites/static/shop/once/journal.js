// Reads the bridge's call journals out of sessionStorage, for the end-to-end suite's checks and failure reports.
// The bridge writes each page's journal as a log of segments under `webmcp:log:<c|p>:<tab>:<slot>:<seq>`; a
// segment is `{ v, seq, at, snap, set, del }`. Replaying a log gives the live entries (`webmcp:c:<wire id>` for
// the consumer, `webmcp:p:...` for the provider), each a JSON object.

/** "top", or the frame indexes from the top window ("top/1"): the slot the bridge names this page by. */
export function framePath() {
  const parts = [];
  let current = window;
  while (current.parent !== current) {
    const parent = current.parent;
    let index = -1;
    for (let i = 0; i < parent.length; i++) if (parent[i] === current) index = i;
    parts.unshift(index);
    current = parent;
  }
  return ["top", ...parts].join("/");
}

/** sessionStorage, or the error name when this page cannot use it (SecurityError when storage is blocked). */
export function storageProbe() {
  try {
    const storage = window.sessionStorage;
    storage.setItem("once:probe", "1");
    storage.removeItem("once:probe");
    return { usable: true, error: null };
  } catch (error) {
    return { usable: false, error: error?.name ?? String(error) };
  }
}

/** Every journal log in sessionStorage: `{ [log prefix]: { [entry key]: entry } }`, plus unreadable segments. */
export function readJournals() {
  let storage;
  try {
    storage = window.sessionStorage;
    void storage.length;
  } catch (error) {
    return { unavailable: error?.name ?? String(error), logs: {} };
  }
  const segments = new Map();
  const unreadable = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (!key || !key.startsWith("webmcp:log:")) continue;
    const cut = key.lastIndexOf(":");
    const log = key.slice(0, cut + 1);
    try {
      const segment = JSON.parse(storage.getItem(key));
      if (!segments.has(log)) segments.set(log, []);
      segments.get(log).push(segment);
    } catch {
      unreadable.push(key);
    }
  }
  const logs = {};
  for (const [log, list] of segments) {
    list.sort((a, b) => a.seq - b.seq);
    const live = {};
    for (const segment of list) {
      if (segment.snap) for (const key of Object.keys(live)) delete live[key];
      for (const gone of segment.del ?? []) delete live[gone];
      for (const [key, value] of Object.entries(segment.set ?? {})) {
        try {
          live[key] = JSON.parse(value);
        } catch {
          live[key] = { unreadable: value };
        }
      }
    }
    logs[log] = live;
  }
  return { tab: safeGet(storage, "webmcp:tab"), logs, unreadable };
}

function safeGet(storage, key) {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

/** This page's consumer entries (its own tab and slot) that are not settled: `[{ callId, state }]`. */
export function unsettledCalls() {
  const { tab, logs } = readJournals();
  const own = logs?.[`webmcp:log:c:${tab}:${framePath()}:`] ?? {};
  return Object.values(own)
    .filter((entry) => entry.s !== "settled")
    .map((entry) => ({ callId: entry.k, state: entry.s }));
}
