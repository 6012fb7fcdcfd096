// A Vite app (strict TypeScript): the package as installed from its tarball, with no configuration for `vite build`.
import init from "interpane";
import { consumer } from "../shared/roundtrip.ts";

await init();
await consumer();
