import init from "interpane";
import { provider } from "../shared/roundtrip.ts";

await init();
provider();
