// The attacker frame of the attack cases, embedded by the victim shop (/attack/victim.html on the shop's origin).
// It reaches the shop (its parent), the widget and the pay frames (the shop's frames 0 and 1), and embeds two
// more attackers: a page of the pay origin that the shop never asked anything (a wrong source window of the right
// origin) and a sandboxed page (an opaque origin). The suite drives it through window.__attack (see raw.js) and
// window.__flood.
import { origins } from "/config.js";
import { withCounterPrefix } from "/common/bridge.js";
import { settle, showOrigin } from "/common/page.js";
import { load } from "../victims.js";
import { freshId, helpers, rawClient } from "./raw.js";

const attack = rawClient({
  shop: () => ({ window: parent, origin: origins.shop }),
  widget: () => ({ window: parent.frames[0], origin: origins.widget }),
  pay: () => ({ window: parent.frames[1], origin: origins.pay }),
});
Object.defineProperty(window, "__attack", { value: attack });

/** The messages of a flood, the way issue 8 describes it: mostly valid-looking, some malformed, a few large. */
function floodMessage(index) {
  if (index % 1000 === 999) return helpers.execute("search_products", { query: helpers.big(1024 * 1024 + 64) });
  if (index % 1000 === 499) return helpers.execute("search_products", { query: helpers.big(900 * 1024) });
  if (index % 97 === 0) return ["WEBMCP_GET_TOOLS_REQUEST", index];
  switch (index % 10) {
    case 0: case 1: case 2: case 3:
      return helpers.getTools();
    case 4: case 5:
      return helpers.execute("add_to_cart", { sku: "margherita", quantity: 1 });
    case 6:
      return helpers.execute("checkout", {}, { origin: origins.widget });
    case 7:
      return index % 20 === 7 ? helpers.execute("../checkout", {}) : { type: "WEBMCP_EXECUTE_TOOL_REQUEST", name: "get_cart" };
    case 8:
      return [
        { type: "WEBMCP_CANCEL_TOOL", requestId: freshId() },
        { type: "WEBMCP_CALL_STATUS_REQUEST", requestId: freshId() },
        { type: "WEBMCP_CALL_ACK", requestIds: [freshId(), freshId()] },
      ][Math.floor(index / 10) % 3];
    default:
      return helpers.success(freshId(), "forged");
  }
}

/**
 * Floods the shop with `count` messages when the widget (driven by the suite) says go, so that the widget's calls
 * overlap the flood; tells the widget when it started and when the shop had handled all of it (a round trip).
 */
function armFlood(count) {
  return new Promise((resolve) => {
    const onGo = async (event) => {
      if (event.origin !== origins.widget || event.data?.type !== "e2e-flood-go") return;
      window.removeEventListener("message", onGo);
      const widget = { window: event.source, origin: event.origin };
      widget.window.postMessage({ type: "e2e-flood-started" }, widget.origin);
      const started = performance.now();
      for (let index = 0; index < count; index += 1) parent.postMessage(floodMessage(index), origins.shop);
      const postedMs = performance.now() - started;
      await attack.roundTrip("shop", 120_000);
      const handledMs = performance.now() - started;
      const report = { type: "e2e-flood-finished", count, postedMs, handledMs };
      widget.window.postMessage(report, widget.origin);
      resolve(report);
    };
    window.addEventListener("message", onGo);
  });
}

let flood = null;
Object.defineProperty(window, "__flood", {
  value: {
    arm(count) {
      flood = armFlood(count);
      return true;
    },
    finished: () => flood,
  },
});

async function main() {
  showOrigin();
  await Promise.all([
    load(document.getElementById("impostor-frame"), withCounterPrefix(`${origins.pay}/attack/impostor.html`)),
    load(document.getElementById("opaque-frame"), withCounterPrefix(`${origins.evil}/attack/opaque.html`)),
  ]);
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo attacker:", error);
  settle("error", error);
});
