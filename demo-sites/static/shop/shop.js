// The shop page: a menu, a cart, the widget and pay iframes, and the tools exposed to the widget origin.
import { origins } from "/config.js";
import { countExecution, loadBridgeOrExplain, withCounterPrefix } from "/common/bridge.js";
import { el, numberParam, settle, showOrigin } from "/common/page.js";
import { PRODUCTS, formatEuros } from "./catalog.js";
import { Cart } from "./cart.js";
import { RateLimit } from "./rate-limit.js";
import { shopTools } from "./tools.js";

// Query parameters let the end-to-end suite tune the scenario: ?searchLimit=3&searchWindowMs=30000&payDelayMs=1200
const searchLimit = new RateLimit(numberParam("searchLimit", 3), numberParam("searchWindowMs", 30_000));
const payDelayMs = numberParam("payDelayMs", 1200);

const cart = new Cart();
const $ = (id) => document.getElementById(id);

function logActivity(text) {
  $("activity").prepend(el("li", {}, `${new Date().toLocaleTimeString()} ${text}`));
}

function renderMenu() {
  $("products").replaceChildren(
    ...PRODUCTS.map((product) =>
      el("li", { dataset: { sku: product.sku } },
        el("strong", {}, product.name),
        el("span", { class: "price" }, formatEuros(product.priceCents)),
        el("span", { class: "tags" }, product.tags.join(" · ")),
        el("button", { type: "button", class: "secondary", onclick: () => cart.add(product.sku, 1) }, "Add"),
      ),
    ),
  );
}

function renderCart() {
  const lines = cart.lines();
  $("cart-lines").replaceChildren(
    ...(lines.length
      ? lines.map((line) => el("li", { dataset: { sku: line.sku } }, `${line.quantity} × ${line.name} `, el("span", { class: "muted" }, formatEuros(line.lineCents))))
      : [el("li", { class: "muted" }, "Empty")]),
  );
  $("cart-total").textContent = formatEuros(cart.totalCents());
  $("checkout").disabled = cart.isEmpty();
}

/** Wraps a tool's execute so that every run shows in the activity log. */
function logged(tool) {
  return {
    ...tool,
    async execute(args, context) {
      logActivity(`${tool.name} called with ${JSON.stringify(args)}`);
      try {
        const result = await tool.execute(args, context);
        logActivity(`${tool.name} completed`);
        return result;
      } catch (error) {
        logActivity(`${tool.name} failed: ${error.message}${error.status ? ` (status ${error.status})` : ""}`);
        throw error;
      }
    },
  };
}

function embedFrames() {
  $("widget-frame").src = withCounterPrefix(`${origins.widget}/`);
  $("pay-frame").src = withCounterPrefix(`${origins.pay}/?delayMs=${payDelayMs}`);
}

function wireRequestDemoForm() {
  $("request-demo").addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    await countExecution("request_demo");
    $("request-demo-status").textContent = `Thanks! We will write to ${data.get("email")} about the ${data.get("plan")} plan.`;
    logActivity("request_demo submitted");
  });
}

async function main() {
  showOrigin();
  renderMenu();
  renderCart();
  cart.addEventListener("change", renderCart);
  wireRequestDemoForm();

  const bridge = await loadBridgeOrExplain();
  if (!bridge) {
    settle("no-bridge");
    return;
  }
  // Tools without their own exposedTo are visible to the origins of this list only.
  const modelContext = bridge.install({ exposeToolsTo: origins.widget });

  async function payInvoice(invoice, signal) {
    const tools = await modelContext.getTools({ fromOrigins: [origins.pay] });
    const payTool = tools.find((tool) => tool.name === "pay_invoice" && tool.origin === origins.pay);
    if (!payTool) {
      throw Object.assign(new Error("The payment provider is not available; try again in a moment"), { status: 503 });
    }
    return modelContext.executeTool(payTool, invoice, { signal });
  }

  const tools = shopTools({ cart, searchLimit, payInvoice }).map(logged);
  for (const tool of tools) modelContext.registerTool(tool);

  $("checkout").addEventListener("click", async () => {
    $("checkout").disabled = true;
    $("checkout-status").textContent = "Paying…";
    try {
      const result = await tools.find((tool) => tool.name === "checkout").execute({}, {});
      $("checkout-status").textContent = result.content[0].text;
    } catch (error) {
      $("checkout-status").textContent = `Checkout failed: ${error.message}`;
    } finally {
      renderCart();
    }
  });

  settle("ready");
}

// The frames load after the tools are registered (or the bridge failed), so the widget's first list is complete.
main()
  .catch((error) => {
    console.error("webmcp demo shop:", error);
    settle("error", error);
  })
  .finally(embedFrames);
