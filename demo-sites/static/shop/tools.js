// The shop's WebMCP tools. Each one counts its execution on the server before anything else.
import { countExecution, resultText, textResult } from "/common/bridge.js";
import { SKUS, formatEuros, searchProducts } from "./catalog.js";
import { MAX_QUANTITY } from "./cart.js";

/**
 * The four tools, given the cart, the search rate limit and `payInvoice(invoice, signal)` (which calls the
 * pay provider's tool through the bridge).
 */
export function shopTools({ cart, searchLimit, payInvoice }) {
  return [
    {
      name: "search_products",
      description: "Search the pizza menu by words (for example 'vegetarian' or 'spicy pizza').",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string", minLength: 1, maxLength: 100, description: "Words to look for" } },
        required: ["query"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      async execute({ query }) {
        await countExecution("search_products");
        searchLimit.take();
        const found = searchProducts(query);
        const lines = found.map((p) => `${p.sku}: ${p.name}, ${formatEuros(p.priceCents)}`);
        return textResult(found.length ? lines.join("\n") : `Nothing matches "${query}".`, {
          structuredContent: { products: found },
        });
      },
    },
    {
      name: "add_to_cart",
      description: "Add a product to the cart.",
      inputSchema: {
        type: "object",
        properties: {
          sku: { type: "string", enum: SKUS, description: "The product's sku" },
          quantity: { type: "integer", minimum: 1, maximum: MAX_QUANTITY, description: "How many (default 1)" },
        },
        required: ["sku"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false },
      async execute({ sku, quantity = 1 }) {
        await countExecution("add_to_cart");
        cart.add(sku, quantity);
        return textResult(`Added ${quantity} × ${sku}. Cart total: ${formatEuros(cart.totalCents())}.`);
      },
    },
    {
      name: "get_cart",
      description: "Show the cart's lines and total.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true },
      async execute() {
        await countExecution("get_cart");
        const lines = cart.lines();
        const text = lines.length
          ? lines.map((l) => `${l.quantity} × ${l.name}: ${formatEuros(l.lineCents)}`).join("\n") +
            `\nTotal: ${formatEuros(cart.totalCents())}`
          : "The cart is empty.";
        return textResult(text, { structuredContent: { lines, totalCents: cart.totalCents() } });
      },
    },
    {
      name: "checkout",
      description: "Pay for the cart through the shop's payment provider, then empty the cart.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: false },
      async execute(_args, { signal } = {}) {
        await countExecution("checkout");
        if (cart.isEmpty()) throw Object.assign(new Error("The cart is empty: add a pizza first"), { status: 409 });
        const invoice = {
          invoiceId: `inv-${Date.now().toString(36)}`,
          amountCents: cart.totalCents(),
          currency: "EUR",
          description: cart.lines().map((l) => `${l.quantity}× ${l.sku}`).join(", "),
        };
        const receipt = await payInvoice(invoice, signal);
        cart.clear();
        return textResult(`Paid ${formatEuros(invoice.amountCents)}. ${resultText(receipt)}`);
      },
    },
  ];
}
