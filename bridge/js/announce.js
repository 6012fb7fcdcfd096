// The BroadcastChannel on which the pages of this origin announce how their calls go (statuses only): Rust posts
// with announceCall and hears the other pages through the one callback it gave to watchCalls.

let callsChannel = null;
export function watchCalls(channelName, callback) {
  try {
    callsChannel = new BroadcastChannel(channelName);
    callsChannel.onmessage = (event) => callback(event.data);
  } catch {}
}
export function announceCall(message) {
  try {
    callsChannel?.postMessage(message);
  } catch {}
}
