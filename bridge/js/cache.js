// The page's way into the back/forward cache and back. What the bridge holds that would keep a page out of the
// cache, or have it evicted there, is let go of while it is cached: the tab's lock (Firefox keeps a page that holds
// a Web Lock out; WebKit takes a cached page's locks) and its BroadcastChannels (Chromium evicts a cached page that
// a message on one reaches). Back, the page asks for the lock again, opens the channels, and says `hello` on the
// calls channel (docs/once-only.md §5).

import { pauseCalls, resumeCalls } from "./announce.js";
import { letGoOfTabLock, pauseProbes, resumeProbes, takeTabLockAgain } from "./tab_claim.js";

export function intoCache() {
  pauseCalls();
  pauseProbes();
  letGoOfTabLock();
}

export function backFromCache(hello) {
  resumeProbes();
  resumeCalls(hello);
  takeTabLockAgain();
}
