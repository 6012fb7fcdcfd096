// The Vite configuration the README documents: nothing for `vite build`; for the dev server, the package stays out
// of dependency pre-bundling (which would move webmcp_bridge.js away from its .wasm).
import { defineConfig } from "vite";

export default defineConfig({
  optimizeDeps: { exclude: ["@webmcp-bridge/web"] },
  build: { target: "es2022" },
});
