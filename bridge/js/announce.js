// The BroadcastChannel on which the pages of this origin announce how their calls go (statuses only): Rust posts
// with announceCall and hears the other pages through the callbacks it gave to watchCalls.
//
// A page says it listens when it starts ({ kind: "webmcp-call-watcher", hello: true }); a page that hears a hello
// answers it ({ kind: "webmcp-call-watcher" }, one answer per hello). Each page thus learns whether another one listens, and
// onWatcher tells Rust the first time: until then a page announces nothing (a channel message costs as much as a
// call's own port message, and most pages have no same-origin page to tell).

const WATCHER = "webmcp-call-watcher";
let callsChannel = null;

export function watchCalls(channelName, onCalls, onWatcher) {
  let heard = false;
  try {
    callsChannel = new BroadcastChannel(channelName);
    callsChannel.onmessage = (event) => {
      const data = event.data;
      if (data?.kind !== WATCHER) return onCalls(data);
      if (data.hello === true) callsChannel.postMessage({ kind: WATCHER });
      if (!heard) {
        heard = true;
        onWatcher();
      }
    };
    callsChannel.postMessage({ kind: WATCHER, hello: true });
  } catch {}
}

export function announceCall(message) {
  try {
    callsChannel?.postMessage(message);
  } catch {}
}
