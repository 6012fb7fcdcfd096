// Diagnostic: the floor plus the least journaling once-only with nothing lost needs (lib/journaled-port.js).
import { journaledPort } from "/lib/journaled-port.js";

export const { parent, child } = journaledPort({ payloads: true });
