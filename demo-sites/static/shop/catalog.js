// The pizza catalog and its search. Prices are in euro cents.

export const PRODUCTS = Object.freeze([
  { sku: "margherita", name: "Margherita", priceCents: 850, tags: ["pizza", "vegetarian", "classic"] },
  { sku: "marinara", name: "Marinara", priceCents: 750, tags: ["pizza", "vegan", "classic"] },
  { sku: "diavola", name: "Diavola", priceCents: 1050, tags: ["pizza", "spicy", "salami"] },
  { sku: "quattro-formaggi", name: "Quattro formaggi", priceCents: 1150, tags: ["pizza", "vegetarian", "cheese"] },
  { sku: "funghi", name: "Funghi", priceCents: 950, tags: ["pizza", "vegetarian", "mushroom"] },
  { sku: "tiramisu", name: "Tiramisù", priceCents: 600, tags: ["dessert", "coffee"] },
].map(Object.freeze));

export const SKUS = PRODUCTS.map((product) => product.sku);

/** The product with this sku, or undefined. */
export function productOf(sku) {
  return PRODUCTS.find((product) => product.sku === sku);
}

/** Products whose name, sku or tags contain every word of the query (case-insensitive). */
export function searchProducts(query) {
  const words = String(query).toLowerCase().split(/\s+/).filter(Boolean);
  return PRODUCTS.filter((product) => {
    const haystack = [product.sku, product.name.toLowerCase(), ...product.tags].join(" ");
    return words.every((word) => haystack.includes(word));
  });
}

/** 1234 -> "€12.34". */
export function formatEuros(cents) {
  return `€${(cents / 100).toFixed(2)}`;
}
