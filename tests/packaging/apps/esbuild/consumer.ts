// The esbuild recipe of the README: import the .wasm's URL (loader `file` copies it next to the bundle) and give it
// to init().
import init from "interpane";
import wasmUrl from "interpane/wasm";
import { consumer } from "../shared/roundtrip.ts";

await init({ module_or_path: wasmUrl });
await consumer();
