// The attacker's scoreboard.
import { el } from "/common/page.js";

const LABEL = { blocked: "blocked", leaked: "LEAKED", skipped: "skipped" };

/** Appends one attack result to the table body. */
export function addRow(tbody, entry) {
  tbody.append(
    el("tr", { dataset: { attack: entry.name, verdict: entry.verdict } },
      el("td", {}, el("code", {}, entry.name), el("div", { class: "muted" }, entry.description)),
      el("td", { class: `verdict-${entry.verdict === "leaked" ? "leaked" : entry.verdict === "blocked" ? "blocked" : "pending"}` }, LABEL[entry.verdict] ?? entry.verdict),
      el("td", { class: "mono" }, entry.detail),
    ),
  );
}

/** One line for people: how many attacks got through. */
export function summary(results) {
  const leaked = results.filter((r) => r.verdict === "leaked").length;
  const blocked = results.filter((r) => r.verdict === "blocked").length;
  const skipped = results.length - leaked - blocked;
  return leaked
    ? `${leaked} of ${results.length} attacks got something through.`
    : `Nothing got through: ${blocked} attacks blocked${skipped ? `, ${skipped} skipped` : ""}.`;
}
