// `import wasmUrl from "interpane/wasm"`: the URL of the WebAssembly module, for bundlers that copy
// imported files (esbuild's `--loader:.wasm=file`, Vite's `?url`). Pass it to `init({ module_or_path: wasmUrl })`.
declare const url: string;
export default url;
