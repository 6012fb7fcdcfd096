// The shopping cart: quantities by sku, with change notifications.
import { productOf } from "./catalog.js";

export const MAX_QUANTITY = 20;

export class Cart extends EventTarget {
  #quantities = new Map();

  /** Adds `quantity` of `sku`; throws on an unknown sku or a quantity outside 1..MAX_QUANTITY. */
  add(sku, quantity = 1) {
    if (!productOf(sku)) throw Object.assign(new Error(`Unknown product "${sku}"`), { status: 404 });
    const total = (this.#quantities.get(sku) ?? 0) + quantity;
    if (!Number.isInteger(quantity) || quantity < 1 || total > MAX_QUANTITY) {
      throw Object.assign(new Error(`Quantity must be 1 to ${MAX_QUANTITY} per product`), { status: 400 });
    }
    this.#quantities.set(sku, total);
    this.dispatchEvent(new Event("change"));
  }

  clear() {
    this.#quantities.clear();
    this.dispatchEvent(new Event("change"));
  }

  /** [{ sku, name, quantity, priceCents, lineCents }] in insertion order. */
  lines() {
    return [...this.#quantities].map(([sku, quantity]) => {
      const product = productOf(sku);
      return { sku, name: product.name, quantity, priceCents: product.priceCents, lineCents: quantity * product.priceCents };
    });
  }

  totalCents() {
    return this.lines().reduce((sum, line) => sum + line.lineCents, 0);
  }

  isEmpty() {
    return this.#quantities.size === 0;
  }
}
