import init from "@webmcp-bridge/web";
import { provider } from "../shared/roundtrip.ts";

await init();
provider();
