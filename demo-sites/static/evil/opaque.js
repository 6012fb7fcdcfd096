// Hosts the sandboxed attacker next to the victims and shows what it reports.
import { origins } from "/config.js";
import { withCounterPrefix } from "/common/bridge.js";
import { demo, settle, showOrigin } from "/common/page.js";
import { addRow, summary } from "./results-table.js";
import { load, victimExecutions } from "./victims.js";

const $ = (id) => document.getElementById(id);

async function main() {
  showOrigin();
  await Promise.all([load($("shop-frame"), withCounterPrefix(`${origins.shop}/`)), load($("pay-frame"), withCounterPrefix(`${origins.pay}/`))]);
  const before = await victimExecutions();
  const sandboxed = $("sandboxed-frame");
  const reported = new Promise((resolve) => {
    window.addEventListener("message", (event) => {
      // Only the sandboxed frame's report counts: it comes from that window, with the opaque origin.
      if (event.source !== sandboxed.contentWindow || event.origin !== "null") return;
      if (event.data?.type === "evil-results" && Array.isArray(event.data.results)) resolve(event.data.results);
    });
  });
  $("summary").textContent = "The sandboxed frame is attacking…";
  await load(sandboxed, "/sandboxed.html");
  const results = await reported;
  const after = await victimExecutions();
  const executed = after.shop - before.shop + (after.pay - before.pay);
  results.push({
    name: "server-counters",
    description: "executions counted by the shop's and pay's own pages during the attacks",
    verdict: executed === 0 ? "blocked" : "leaked",
    detail: `shop ${before.shop} → ${after.shop}, pay ${before.pay} → ${after.pay}`,
  });
  for (const entry of results) addRow($("results"), entry);
  $("summary").textContent = summary(results);
  demo.results = results;
  settle("done");
}

main().catch((error) => {
  console.error("webmcp demo evil (opaque):", error);
  settle("error", error);
});
