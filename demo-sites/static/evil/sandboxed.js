// The attacker inside <iframe sandbox="allow-scripts">: an opaque origin ("null"). Its victims are its
// sibling frames, the shop and pay embedded by opaque.html; it reports to that page.
import { origins } from "/config.js";
import { loadBridge } from "/common/bridge.js";
import { demo, settle, showOrigin } from "/common/page.js";
import { attacks, runAttacks, settleReplies, waitForBridge, watchReplies } from "./attacks.js";
import { addRow, summary } from "./results-table.js";

async function main() {
  showOrigin();
  const shop = { window: parent.frames[0], origin: origins.shop };
  const pay = { window: parent.frames[1], origin: origins.pay };
  const bridge = await loadBridge().catch(() => null);
  // A bridge never answers an opaque origin, so this waits the whole timeout: that silence is the point.
  await Promise.all([waitForBridge(shop, 1000), waitForBridge(pay, 1000)]);
  const tbody = document.getElementById("results");
  const watch = watchReplies([shop, pay]);
  const results = await runAttacks(attacks({ shop, pay, origins, bridge }), (entry) => addRow(tbody, entry));
  await settleReplies();
  watch.stop();
  results.push(watch.row());
  addRow(tbody, watch.row());
  document.getElementById("summary").textContent = summary(results);
  demo.results = results;
  settle("done");
  parent.postMessage({ type: "evil-results", results }, origins.evil);
}

main().catch((error) => {
  console.error("webmcp demo evil (sandboxed):", error);
  settle("error", error);
  parent.postMessage({ type: "evil-results", results: [{ name: "sandboxed-page", description: "the sandboxed attacker", verdict: "skipped", detail: String(error) }] }, origins.evil);
});
