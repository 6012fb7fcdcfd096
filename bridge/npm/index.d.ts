// The package's entry. The types of the bridge (and the `document.modelContext` global) are in
// interpane.d.ts, generated from the Rust crate; this file declares what index.js exports at runtime.
import type { InstallOptions, ModelContext, ToolCallError } from "./interpane.js";

export type * from "./interpane.js";
export { default, initSync } from "./interpane.js";

/**
 * Installs the bridge in this page and returns its `document.modelContext` (defined on `document` where the page
 * has none, or has the browser's native one, which then gets every tool registered through the bridge too). Call
 * it once, after `await init()`; a second call returns the first bridge (and warns when its options differ). A bad
 * option throws an Error that says what to write instead; an unknown one warns.
 */
export declare function install(options?: InstallOptions): ModelContext;

/** Whether `error` is the Error a failed call rejects with, with its `code`, `status` and `retryAfter`. */
export declare function isToolCallError(error: unknown): error is ToolCallError;
