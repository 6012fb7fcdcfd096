// The bridge's BroadcastChannels (the calls channel, announce.js; the claims' channels, tab_claim.js), closed while
// the page is in the back/forward cache: Chromium evicts a cached page that a message on one reaches. Back, they
// open again. (The tab's lock, which Firefox keeps a cached page out for, is let go of in tab_claim.js.)

// The channels open, or closed only while the page is cached: `{ channelName, hear, channel }`.
const channels = new Set();

function connect(entry) {
  try {
    entry.channel = new BroadcastChannel(entry.channelName);
    entry.channel.onmessage = (event) => entry.hear(event.data);
  } catch {}
}

// Opens channel `channelName`, handing the data of each message to `hear`; the entry's `channel` posts (null while
// the page is cached, or when the channel could not be opened).
export function listen(channelName, hear) {
  const entry = { channelName, hear, channel: null };
  channels.add(entry);
  connect(entry);
  return entry;
}

// Closes a channel of `listen` for good.
export function stopListening(entry) {
  entry.channel?.close();
  channels.delete(entry);
}

export function intoCache() {
  for (const entry of channels) {
    entry.channel?.close();
    entry.channel = null;
  }
}

export function backFromCache() {
  for (const entry of channels) if (!entry.channel) connect(entry);
}
