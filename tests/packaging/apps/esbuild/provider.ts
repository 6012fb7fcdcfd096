import init from "@webmcp-bridge/web";
import wasmUrl from "@webmcp-bridge/web/wasm";
import { provider } from "../shared/roundtrip.ts";

await init({ module_or_path: wasmUrl });
provider();
