// The npm package as web developers use it, tested: the tarball's contents, strict TypeScript (the README's
// examples included), and a cross-origin round trip in headless Chromium for each way of loading it (Vite build,
// Vite dev server, esbuild, a plain page next to the package folder, a React app using useTool). Each round trip
// serves one folder on two loopback ports (two origins): the page of origin A embeds the page of origin B, calls its
// tools and checks what came back.
//
// Run by run.sh (which packs the package and installs it into node_modules first). Prints one line per test and
// `test result: ok. N passed; M failed` like cargo; exits non-zero on any failure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const out = path.join(root, "target/packaging");
const installed = path.join(here, "node_modules/interpane");
const tarball = process.env.PACKAGE_TARBALL;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const tests = [];
const test = (name, body) => tests.push({ name, body });

// ---- serving: one handler on two loopback ports = two origins -------------------------------------------------

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};

function staticHandler(dir) {
  return (request, response) => {
    const url = new URL(request.url, "http://localhost");
    const file = path.join(dir, decodeURIComponent(url.pathname));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(response);
  };
}

function listen(handler) {
  return new Promise((resolve, reject) => {
    const server = http.createServer(handler);
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function twoOrigins(handler) {
  const servers = [await listen(handler), await listen(handler)];
  const [a, b] = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
  return {
    a,
    b,
    close: () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))),
  };
}

// ---- the browser ---------------------------------------------------------------------------------------------

let browser = null;
async function openBrowser() {
  if (!browser) {
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  }
  return browser;
}

/** Opens `url` and returns the page's `window.__result` once it is set. */
async function pageResult(url, timeoutMs = 30000) {
  const context = await (await openBrowser()).newContext();
  const page = await context.newPage();
  const log = [];
  page.on("console", (message) => log.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => log.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => log.push(`request failed: ${request.url()}`));
  page.on("response", (response) => {
    if (response.status() >= 400) log.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: timeoutMs });
    return await page.evaluate(() => window.__result);
  } catch (error) {
    throw new Error(`${url}: ${error.message.split("\n")[0]}\n    page log:\n      ${log.join("\n      ")}`);
  } finally {
    await context.close();
  }
}

/** The round trip of apps/shared/roundtrip.ts (and the plain pages): A called B's tools and got B's answers. */
async function checkRoundTrip(origins, consumerPath, providerPath) {
  const url = `${origins.a}${consumerPath}?provider=${encodeURIComponent(origins.b + providerPath)}`;
  const result = await pageResult(url);
  assert.equal(result.ok, true, result.error);
  assert.equal(result.consumer, origins.a);
  assert.equal(result.provider, origins.b);
  assert.deepEqual(result.result, { echoed: "hello from A", ranAt: origins.b });
  assert.deepEqual(result.failure, { kind: "tool_error", status: 429, retryAfter: 30 });
}

// ---- the package ----------------------------------------------------------------------------------------------

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const cargoVersion = () => /^version = "([^"]+)"/m.exec(fs.readFileSync(path.join(root, "Cargo.toml"), "utf8"))[1];

test("tarball holds the package npm publish would upload", () => {
  assert.ok(tarball && fs.existsSync(tarball), `no tarball (PACKAGE_TARBALL=${tarball})`);
  const listing = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" });
  const files = listing.stdout.trim().split("\n").map((f) => f.replace(/^package\//, "")).sort();
  for (const file of [
    "package.json", "README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE", "index.js", "index.d.ts",
    "react.js", "react.d.ts", "wasm.d.ts", "interpane.js", "interpane.d.ts", "interpane_bg.wasm",
  ]) {
    assert.ok(files.includes(file), `${file} is missing from the tarball`);
  }
  const strays = files.filter((f) => !/^(snippets\/.*\.js|[\w.-]+\.(js|d\.ts|wasm|json|md)|LICENSE-(MIT|APACHE))$/.test(f));
  assert.deepEqual(strays, [], "unexpected files in the tarball");
  const manifest = readJson(path.join(installed, "package.json"));
  assert.equal(manifest.name, "interpane");
  assert.equal(manifest.version, cargoVersion(), "the package and the crates have one version");
  assert.equal(manifest.license, "MIT OR Apache-2.0");
  assert.equal(manifest.type, "module");
  assert.equal(manifest.sideEffects, false);
  // No repository until the project has a public one (the old URL pointed at one that does not exist).
  assert.equal(manifest.repository, undefined);
  assert.equal(manifest.homepage, "https://docs.rs/interpane");
  assert.doesNotMatch(JSON.stringify(manifest), /example\.invalid/);
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string") continue;
    assert.ok(target.types, `exports["${subpath}"] has no types`);
    assert.ok(Object.keys(target)[0] === "types", `exports["${subpath}"]: types must come first`);
    for (const file of Object.values(target)) assert.ok(files.includes(file.replace(/^\.\//, "")), `${file} not packed`);
  }
  const license = fs.readFileSync(path.join(root, "LICENSE-MIT"), "utf8");
  assert.equal(fs.readFileSync(path.join(installed, "LICENSE-MIT"), "utf8"), license);
  console.log(`    ${path.basename(tarball)}: ${fs.statSync(tarball).size} bytes, ${files.length} files`);
});

test("install() options the bridge knows match InstallOptions in the types", async () => {
  const types = fs.readFileSync(path.join(installed, "interpane.d.ts"), "utf8");
  const block = /export interface InstallOptions \{([\s\S]*?)\n\}/.exec(types)[1];
  const typed = [...block.matchAll(/^\s+(\w+)\?:/gm)].map((m) => m[1]).sort();
  // The one list is the wasm's (installOptions(), which the entry warns with): read from the installed package.
  const glue = await import(pathToFileURL(path.join(installed, "interpane.js")).href);
  glue.initSync({ module: fs.readFileSync(path.join(installed, "interpane_bg.wasm")) });
  const known = [...glue.installOptions()].sort();
  assert.deepEqual(known, typed, "the bridge's options and the types' (one is missing in the other)");
});

test("react.js exports at run time exactly what react.d.ts declares", async () => {
  const react = await import("interpane/react");
  assert.deepEqual(Object.keys(react).sort(), ["useTool"]);
});

/** The README's JavaScript examples, as files tsc checks (a block without import/export is made a module). */
function extractReadmeExamples() {
  const dir = path.join(here, ".generated/readme");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const sources = { repo: path.join(root, "README.md"), npm: path.join(root, "bridge/npm/README.md") };
  let count = 0;
  for (const [label, file] of Object.entries(sources)) {
    const text = fs.readFileSync(file, "utf8");
    let n = 0;
    for (const match of text.matchAll(/^( *)```(js|jsx|ts|tsx)\n([\s\S]*?)^\1```/gm)) {
      const indent = match[1];
      let code = match[3].split("\n").map((line) => line.slice(indent.length)).join("\n");
      if (!/^\s*(import|export)\s/m.test(code)) code = `export {};\n${code}`;
      fs.writeFileSync(path.join(dir, `${label}-${++n}.${match[2]}`), code);
      count++;
    }
  }
  return count;
}

test("types compile under strict: the README's examples, the apps, the type expectations", () => {
  const examples = extractReadmeExamples();
  assert.ok(examples >= 5, `only ${examples} examples found in the READMEs`);
  const tsc = spawnSync(process.execPath, [path.join(here, "node_modules/typescript/bin/tsc"), "-p", here], {
    encoding: "utf8",
  });
  assert.equal(tsc.status, 0, `tsc found errors:\n${tsc.stdout}${tsc.stderr}`);
  console.log(`    tsc --strict: ${examples} README examples, apps/**, apps/types/api.ts`);
});

// ---- plain page ------------------------------------------------------------------------------------------------

function stagePlain() {
  const dir = path.join(out, "plain");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(path.join(here, "apps/plain"), dir, { recursive: true });
  fs.cpSync(installed, path.join(dir, "interpane"), { recursive: true });
  return dir;
}

test("plain page next to the package folder: round trip across two origins", async () => {
  const origins = await twoOrigins(staticHandler(stagePlain()));
  try {
    await checkRoundTrip(origins, "/consumer.html", "/provider.html");
  } finally {
    await origins.close();
  }
});

test("mistakes get clear words: install() before init(), a misspelled option, a second install()", async () => {
  const origins = await twoOrigins(staticHandler(stagePlain()));
  try {
    const result = await pageResult(`${origins.a}/mistakes.html`);
    assert.deepEqual(result.exports, ["default", "initSync", "install", "isToolCallError"], "index.js exports");
    assert.match(result.beforeInit, /install\(\) ran before init\(\).*await init\(\)/);
    assert.match(result.whileLoading, /still loading.*await the promise init\(\) returns/);
    assert.equal(result.misspelled.length, 1, JSON.stringify(result.misspelled));
    assert.match(result.misspelled[0], /no option "exposeToolTo".*Did you mean "exposeToolsTo"\?/);
    assert.equal(result.secondInstall.length, 1, JSON.stringify(result.secondInstall));
    assert.match(result.secondInstall[0], /called again with other options.*https:\/\/other\.example/);
    assert.equal(result.sameObject, true, "every install() returns document.modelContext");
    assert.deepEqual(result.quietAgain, [], "install() with no (or the same) options does not warn");
  } finally {
    await origins.close();
  }
});

// ---- Vite -------------------------------------------------------------------------------------------------------

const viteConfig = path.join(here, "vite.config.js");

test("Vite build (strict TypeScript app): round trip across two origins", async () => {
  const { build } = await import("vite");
  const dist = path.join(out, "vite-dist");
  await build({
    root: here,
    configFile: viteConfig,
    logLevel: "warn",
    build: {
      outDir: dist,
      emptyOutDir: true,
      rollupOptions: { input: ["apps/vite/consumer.html", "apps/vite/provider.html"].map((f) => path.join(here, f)) },
    },
  });
  const assets = fs.readdirSync(path.join(dist, "assets"));
  assert.ok(assets.some((f) => f.endsWith(".wasm")), `vite build emitted no .wasm: ${assets}`);
  const origins = await twoOrigins(staticHandler(dist));
  try {
    await checkRoundTrip(origins, "/apps/vite/consumer.html", "/apps/vite/provider.html");
  } finally {
    await origins.close();
  }
});

test("Vite dev server: round trip across two origins", async () => {
  const { createServer } = await import("vite");
  const vite = await createServer({
    root: here,
    configFile: viteConfig,
    logLevel: "warn",
    appType: "mpa",
    cacheDir: path.join(out, "vite-cache"),
    optimizeDeps: { entries: ["apps/vite/*.html"] },
    server: { middlewareMode: true, hmr: false, ws: false },
  });
  const origins = await twoOrigins(vite.middlewares);
  try {
    await checkRoundTrip(origins, "/apps/vite/consumer.html", "/apps/vite/provider.html");
  } finally {
    await origins.close();
    await vite.close();
  }
});

// ---- esbuild ----------------------------------------------------------------------------------------------------

async function esbuildApp(name, entries, extra = {}) {
  const esbuild = await import("esbuild");
  const dist = path.join(out, `${name}-dist`);
  fs.rmSync(dist, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries.map((e) => path.join(here, "apps", name, e)),
    bundle: true,
    format: "esm",
    target: "es2022",
    outdir: dist,
    loader: { ".wasm": "file" },
    logLevel: "warning",
    ...extra,
  });
  for (const file of fs.readdirSync(path.join(here, "apps", name)).filter((f) => f.endsWith(".html"))) {
    fs.copyFileSync(path.join(here, "apps", name, file), path.join(dist, file));
  }
  return dist;
}

test("esbuild (the README's recipe, .wasm shipped by the file loader): round trip across two origins", async () => {
  const dist = await esbuildApp("esbuild", ["consumer.ts", "provider.ts"]);
  assert.ok(fs.readdirSync(dist).some((f) => f.endsWith(".wasm")), "esbuild shipped no .wasm");
  const origins = await twoOrigins(staticHandler(dist));
  try {
    await checkRoundTrip(origins, "/consumer.html", "/provider.html");
  } finally {
    await origins.close();
  }
});

// ---- React ------------------------------------------------------------------------------------------------------

test("React useTool under StrictMode: one registration, the latest render's execute, gone on unmount", async () => {
  const dist = await esbuildApp("react", ["consumer.ts", "provider.tsx"], {
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"development"' },
  });
  const origins = await twoOrigins(staticHandler(dist));
  try {
    const url = `${origins.a}/consumer.html?provider=${encodeURIComponent(`${origins.b}/provider.html`)}`;
    const result = await pageResult(url);
    assert.equal(result.ok, true, result.error);
    assert.equal(result.listed, 1, "getTools lists read_count once");
    for (const name of ["read_count", "bump", "hide_counter"]) {
      assert.equal(result.mounted.active[name], 1, `${name}: one active registration while mounted`);
      assert.ok(result.mounted.registered[name] >= 2, `${name}: StrictMode mounted twice (React dev build)`);
    }
    assert.equal(result.before, 0);
    assert.equal(result.after, 1, "read_count ran the latest render's execute (a stale one answers 0)");
    assert.equal(result.gone, true, "the tools are gone once the component unmounts");
    for (const name of ["read_count", "bump", "hide_counter"]) assert.equal(result.unmounted.active[name], 0, name);
  } finally {
    await origins.close();
  }
});

// ---- run -------------------------------------------------------------------------------------------------------

fs.mkdirSync(out, { recursive: true });
let passed = 0;
let failures = 0;
const started = Date.now();
for (const { name, body } of tests) {
  const start = Date.now();
  try {
    await body();
    passed++;
    console.log(`test ${name} ... ok (${Date.now() - start} ms)`);
  } catch (error) {
    failures++;
    console.log(`test ${name} ... FAILED (${Date.now() - start} ms)\n    ${error.stack ?? error}`);
  }
}
await browser?.close();
console.log(
  `\ntest result: ${failures === 0 ? "ok" : "FAILED"}. ${passed} passed; ${failures} failed; ` +
    `finished in ${((Date.now() - started) / 1000).toFixed(1)}s`,
);
process.exit(failures === 0 ? 0 : 1);
