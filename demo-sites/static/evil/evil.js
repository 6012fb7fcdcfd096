// The attacker's page: embeds shop and pay, runs every attack, and shows that nothing got through.
import { origins } from "/config.js";
import { loadBridge, withCounterPrefix } from "/common/bridge.js";
import { demo, settle, showOrigin } from "/common/page.js";
import { attacks, runAttacks, settleReplies, waitForBridge, watchReplies } from "./attacks.js";
import { addRow, summary } from "./results-table.js";
import { load, victimExecutions } from "./victims.js";

const $ = (id) => document.getElementById(id);

async function main() {
  showOrigin();
  const [shopFrame, payFrame] = await Promise.all([
    load($("shop-frame"), withCounterPrefix(`${origins.shop}/`)),
    load($("pay-frame"), withCounterPrefix(`${origins.pay}/`)),
  ]);
  const shop = { window: shopFrame.contentWindow, origin: origins.shop };
  const pay = { window: payFrame.contentWindow, origin: origins.pay };
  const bridge = await loadBridge().catch(() => null);
  $("summary").textContent = "Waiting for the victims' bridges…";
  await Promise.all([waitForBridge(shop), waitForBridge(pay)]);

  const before = await victimExecutions();
  $("summary").textContent = "Attacking…";
  const watch = watchReplies([shop, pay]);
  const results = await runAttacks(attacks({ shop, pay, origins, bridge }), (entry) => addRow($("results"), entry));
  await settleReplies();
  watch.stop();
  results.push(watch.row());
  addRow($("results"), watch.row());
  const after = await victimExecutions();
  const executed = after.shop - before.shop + (after.pay - before.pay);
  const counterRow = {
    name: "server-counters",
    description: "executions counted by the shop's and pay's own pages during the attacks",
    verdict: executed === 0 ? "blocked" : "leaked",
    detail: `shop ${before.shop} → ${after.shop}, pay ${before.pay} → ${after.pay}`,
  };
  results.push(counterRow);
  addRow($("results"), counterRow);
  $("summary").textContent = summary(results);
  demo.results = results;
  settle("done");
}

main().catch((error) => {
  console.error("webmcp demo evil:", error);
  settle("error", error);
});
