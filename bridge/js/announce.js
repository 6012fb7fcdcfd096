// The BroadcastChannel on which the pages of this origin tell each other how their calls go (statuses only). This
// module only moves messages: every message heard goes to Rust as it is, and Rust's messages (JSON text) are
// posted as objects. What they are — the statuses, the hello a page says when it starts and the answer to each
// hello — is read, written and decided in the policy (policy/src/calls_channel.rs, the session).

let callsChannel = null;
let watched = null;

export function watchCalls(channelName, onMessage) {
  watched = { channelName, onMessage };
  openCalls();
}

function openCalls() {
  try {
    callsChannel = new BroadcastChannel(watched.channelName);
    callsChannel.onmessage = (event) => watched.onMessage(event.data);
  } catch {}
}

// Closed while the page is in the back/forward cache, and open again, saying `hello` (policy's
// calls_channel::HELLO), when it is back (cache.js).
export function pauseCalls() {
  callsChannel?.close();
  callsChannel = null;
}
export function resumeCalls(hello) {
  if (callsChannel || !watched) return;
  openCalls();
  postCalls(hello);
}

export function postCalls(text) {
  try {
    callsChannel?.postMessage(JSON.parse(text));
  } catch {}
}
