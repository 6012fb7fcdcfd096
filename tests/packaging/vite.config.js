// The Vite configuration the README documents: nothing for `vite build`; for the dev server, the package stays out
// of dependency pre-bundling (which would move interpane.js away from its .wasm).
import { defineConfig } from "vite";

export default defineConfig({
  optimizeDeps: { exclude: ["interpane"] },
  build: { target: "es2022" },
});
