// Diagnostic: interpane on its private port with both call journals in memory instead of sessionStorage
// (install option storage: "memory"), to show what writing the journals costs per call. Not a configuration to
// ship: a reload can no longer resume calls.
import { childWith, parentWith } from "./bridge.js";

export const parent = parentWith({ storage: "memory" });
export const child = childWith({ storage: "memory" });
