// The sandboxed attacker inside the attacker frame (sandbox="allow-scripts": an opaque origin). It posts to the
// shop (the top window) and the widget at their real origins; the suite checks in the shop that nothing was
// answered. It cannot make a round trip: no bridge answers an opaque origin, which is the point.
import { origins } from "/config.js";
import { settle, showOrigin } from "/common/page.js";
import { rawClient } from "./raw.js";

showOrigin();
const attack = rawClient({
  shop: () => ({ window: top, origin: origins.shop }),
  widget: () => ({ window: top.frames[0], origin: origins.widget }),
});
Object.defineProperty(window, "__attack", { value: attack });
settle("ready");
