import init from "interpane";
import wasmUrl from "interpane/wasm";
import { provider } from "../shared/roundtrip.ts";

await init({ module_or_path: wasmUrl });
provider();
