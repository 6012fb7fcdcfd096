// The payment provider: one tool, pay_invoice, visible to the shop's origin and no other.
import { origins } from "/config.js";
import { countExecution, loadBridgeOrExplain, serverDelay, textResult } from "/common/bridge.js";
import { el, numberParam, settle, showOrigin } from "/common/page.js";

const delayMs = numberParam("delayMs", 1200);
const invoices = document.getElementById("invoices");
let first = true;

function showInvoice(invoice) {
  if (first) invoices.replaceChildren();
  first = false;
  const item = el("li", { class: "pending" }, `${invoice.invoiceId}: ${(invoice.amountCents / 100).toFixed(2)} ${invoice.currency} · contacting the bank…`);
  invoices.prepend(item);
  return (state, text) => {
    item.className = state;
    item.textContent = `${invoice.invoiceId}: ${(invoice.amountCents / 100).toFixed(2)} ${invoice.currency} · ${text}`;
  };
}

export const payInvoiceTool = {
  name: "pay_invoice",
  description: "Charge the shop's customer for an invoice and return a receipt.",
  inputSchema: {
    type: "object",
    properties: {
      invoiceId: { type: "string", minLength: 1, maxLength: 64 },
      amountCents: { type: "integer", minimum: 1, maximum: 1_000_000 },
      currency: { type: "string", enum: ["EUR"] },
      description: { type: "string", maxLength: 500 },
    },
    required: ["invoiceId", "amountCents", "currency"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false },
  async execute(invoice, { signal } = {}) {
    await countExecution("pay_invoice");
    const update = showInvoice(invoice);
    try {
      await serverDelay(delayMs, signal);
    } catch (error) {
      update("cancelled", signal?.aborted ? "cancelled by the shop" : `failed: ${error.message}`);
      throw error;
    }
    const receipt = `rcpt-${invoice.invoiceId}`;
    update("paid", `paid (receipt ${receipt})`);
    return textResult(`Receipt ${receipt}.`, { structuredContent: { receipt, amountCents: invoice.amountCents } });
  },
};

async function main() {
  showOrigin();
  const bridge = await loadBridgeOrExplain();
  if (!bridge) return settle("no-bridge");
  const modelContext = bridge.install({ exposeToolsTo: origins.shop });
  modelContext.registerTool(payInvoiceTool, { exposedTo: [origins.shop] });
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo pay:", error);
  settle("error", error);
});
