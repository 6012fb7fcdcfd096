// The BroadcastChannel on which the pages of this origin tell each other how their calls go (statuses only). This
// module only moves messages: every message heard goes to Rust as it is, and Rust's messages (JSON text) are
// posted as objects. What they are — the statuses, the hello a page says when it starts and the answer to each
// hello — is read, written and decided in the policy (policy/src/calls_channel.rs, the session).

import { listen } from "./cache.js";

let calls = null;

export function watchCalls(channelName, onMessage) {
  calls = listen(channelName, onMessage);
}

export function postCalls(text) {
  try {
    calls?.channel?.postMessage(JSON.parse(text));
  } catch {}
}
