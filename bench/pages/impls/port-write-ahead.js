// Diagnostic: the floor plus the two small records written ahead, one per side (lib/journaled-port.js).
import { journaledPort } from "/lib/journaled-port.js";

export const { parent, child } = journaledPort({ payloads: false });
