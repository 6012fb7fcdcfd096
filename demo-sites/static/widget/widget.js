// The chat widget: lists the shop's tools and calls them for a scripted assistant.
import { origins } from "/config.js";
import { loadBridgeOrExplain, resultText } from "/common/bridge.js";
import { demo, el, settle, showOrigin } from "/common/page.js";
import { HELP, describeError, parseCommand, stateOfError } from "./assistant.js";
import { Transcript } from "./transcript.js";

const $ = (id) => document.getElementById(id);
const transcript = new Transcript($("transcript"));
const inFlight = new Set();
let modelContext = null;
let shopTools = [];

function renderTools() {
  $("tools").replaceChildren(
    ...(shopTools.length
      ? shopTools.map((tool) => el("li", { title: tool.description, dataset: { tool: tool.name } }, tool.name))
      : [el("li", { class: "muted" }, "None visible to this origin (yet).")]),
  );
}

/** Lists the tools the shop exposes to this origin. */
async function refreshTools() {
  const tools = await modelContext.getTools({ fromOrigins: [origins.shop] });
  shopTools = tools.filter((tool) => tool.origin === origins.shop);
  renderTools();
  return shopTools.map((tool) => tool.name);
}

/** Calls a shop tool and shows it as a chip; resolves to the chip's final state. */
async function callTool(name, args) {
  const tool = shopTools.find((candidate) => candidate.name === name);
  if (!tool) {
    transcript.say("assistant", `The shop shows me no tool called ${name}.`);
    return "unavailable";
  }
  const callId = `w-${crypto.randomUUID()}`;
  const settleChip = transcript.startCall(callId, name, args, tool.path);
  const controller = new AbortController();
  inFlight.add(controller);
  $("stop").disabled = false;
  try {
    const result = await modelContext.executeTool(tool, args, { signal: controller.signal, callId });
    settleChip("completed", resultText(result));
    return "completed";
  } catch (error) {
    const state = stateOfError(error);
    settleChip(state, describeError(error), { status: error?.status, retryAfter: error?.retryAfter, kind: error?.kind });
    return state;
  } finally {
    inFlight.delete(controller);
    $("stop").disabled = inFlight.size === 0;
  }
}

/** Aborts every call in flight. */
function stop() {
  for (const controller of inFlight) controller.abort();
}

/** Runs one typed command; resolves when its call (if any) settles. */
async function run(text) {
  const command = parseCommand(text);
  if (command.kind === "empty") return "empty";
  transcript.say("user", text);
  switch (command.kind) {
    case "help":
      transcript.say("assistant", HELP.join("\n"));
      return "help";
    case "tools":
      transcript.say("assistant", `The shop shows me: ${(await refreshTools()).join(", ") || "nothing"}.`);
      return "tools";
    case "call":
      return callTool(command.tool, command.args);
    default:
      transcript.say("assistant", command.reply);
      return "unknown";
  }
}

function wireControls() {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("command");
    const text = input.value;
    input.value = "";
    run(text);
  });
  for (const button of document.querySelectorAll("[data-command]")) {
    button.addEventListener("click", () => run(button.dataset.command));
  }
  $("stop").addEventListener("click", stop);
}

/** Calls that settled without this page seeing them start (recovered after a reload) still get a chip. */
function onToolResult(event) {
  if (transcript.has(event.callId)) return;
  // toolresult comes from the bridge's journal only: such a call took the bridge's path.
  const settleChip = transcript.startCall(event.callId, event.name, {}, "bridge");
  const detail = event.status === "completed" ? resultText(event.result) : describeError(event.error);
  settleChip(event.status, `${detail} (recovered after a reload)`, { recovered: event.recovered });
}

async function main() {
  showOrigin();
  wireControls();
  transcript.say("assistant", "Hi! I can search the menu, fill the cart and check out. Type help to see how.");
  const bridge = await loadBridgeOrExplain();
  if (!bridge) {
    $("tools").replaceChildren(el("li", { class: "muted" }, "No bridge: nothing to list."));
    return settle("no-bridge");
  }
  // The widget exposes nothing; it only consumes the shop's tools.
  modelContext = bridge.install({ exposeToolsTo: [] });
  modelContext.addEventListener("toolchange", () => refreshTools());
  modelContext.addEventListener("toolresult", onToolResult);
  Object.assign(demo, { run, stop, refreshTools });
  await refreshTools();
  settle("ready");
}

main().catch((error) => {
  console.error("webmcp demo widget:", error);
  settle("error", error);
});
