// A window of the pay origin inside the attacker's frame: the right origin, the wrong window. The suite hands it
// the id of the shop's call to the real pay frame and checks that its forged answers do not count. It speaks
// through the attacker's raw client (a module of the evil origin, served with CORS), as window.__attack.
import { origins } from "/config.js";
import { settle, showOrigin } from "/common/page.js";

async function main() {
  showOrigin();
  const { rawClient } = await import(`${origins.evil}/attack/raw.js`);
  const attack = rawClient({
    shop: () => ({ window: top, origin: origins.shop }),
    widget: () => ({ window: top.frames[0], origin: origins.widget }),
  });
  Object.defineProperty(window, "__attack", { value: attack });
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo impostor:", error);
  settle("error", error);
});
