// The conversation: messages, and one chip per tool call showing how it is going.
import { el } from "/common/page.js";

export class Transcript {
  #list;
  #chips = new Map();

  constructor(list) {
    this.#list = list;
  }

  say(role, text) {
    this.#append(el("li", { class: `message ${role}` }, text));
  }

  /**
   * Adds a running chip for a call; returns the chip's settle(state, detail). `path` is the path the call takes,
   * as the bridge's tool object says (`"bridge"`: the bridge's protocol; `"native"`: the browser's own WebMCP).
   */
  startCall(callId, name, args, path) {
    const label = el("span", { class: "chip-label" }, `${name} · running`);
    const chip = el("span", { class: "chip", dataset: { state: "running", tool: name, callId } }, label);
    if (path) {
      chip.dataset.path = path;
      const through = path === "native" ? "the browser's own WebMCP" : "the bridge's protocol";
      chip.append(el("span", { class: "chip-path", title: `called through ${through}` }, `via ${path}`));
    }
    const detail = el("div", { class: "call-detail mono" }, JSON.stringify(args));
    this.#append(el("li", { class: "message call" }, chip, detail));
    const settle = (state, text, extra = {}) => {
      chip.dataset.state = state;
      for (const [key, value] of Object.entries(extra)) if (value !== undefined) chip.dataset[key] = String(value);
      label.textContent = `${name} · ${state}`;
      detail.textContent = text;
    };
    this.#chips.set(callId, settle);
    return settle;
  }

  /** Whether this transcript shows the call already. */
  has(callId) {
    return this.#chips.has(callId);
  }

  #append(item) {
    this.#list.append(item);
    // Scroll the list only: scrollIntoView would also scroll the embedding page.
    this.#list.scrollTop = this.#list.scrollHeight;
  }
}
