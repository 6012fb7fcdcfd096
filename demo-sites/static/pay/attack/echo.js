// A bridge provider for the prototype-pollution case: its one tool, echo_args (visible to the shop's origin), takes
// any object and reports how the arguments arrived in execute: their JSON, where they are not plain data, and what
// this page's prototypes look like after the call.
import { origins } from "/config.js";
import { countExecution, loadBridge } from "/common/bridge.js";
import { settle, showOrigin } from "/common/page.js";

async function main() {
  showOrigin();
  const { inspect, prototypesNow } = await import(`${origins.shop}/attack/inspect.js`);
  const bridge = await loadBridge();
  const context = bridge.install({ exposeToolsTo: [origins.shop] });
  context.registerTool({
    name: "echo_args",
    description: "Reports how its arguments arrived.",
    inputSchema: { type: "object" },
    async execute(args) {
      await countExecution("echo_args");
      // Touch what a careless tool would: copying the arguments into a fresh object.
      const copy = Object.assign({}, args);
      return {
        json: JSON.stringify(args),
        args: inspect(args),
        constructorIsOwnData: Object.prototype.hasOwnProperty.call(args, "constructor") ? typeof args.constructor : "absent",
        copyPrototypeIsObject: Object.getPrototypeOf(copy) === Object.prototype,
        prototypes: prototypesNow(),
      };
    },
  });
  Object.defineProperty(window, "__echo", { value: { prototypes: prototypesNow } });
  await context.ready;
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo echo:", error);
  settle("error", error);
});
