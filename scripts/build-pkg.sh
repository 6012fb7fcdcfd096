#!/usr/bin/env bash
# Builds the npm package of the bridge (interpane) into bridge/pkg: the wasm-bindgen ES module and .wasm,
# the entry module and React hook of bridge/npm, types, package.json, licenses. scripts/pack.sh packs it.
# Usage: scripts/build-pkg.sh [--dev] [--record]
#   --dev     builds the debug profile, for quick iterations
#   --record  builds with the feature `record` into bridge/pkg-record instead: the page's session records what it
#             receives and the module exports recordedTape() (the replay test's package; never one to publish)
#   --names   keeps the wasm's function names (its name section), into bridge/pkg-names instead: CPU profiles
#             then name the wasm's functions (`interpane-bench --pkg-dir bridge/pkg-names --profile`; never one to
#             publish)
#
# Size choices (measured with twiggy and gzip -9; see docs/measurements/history.md): the `wasm-release` profile
# (opt-level "s" with "z" for the workspace's own two crates, fat LTO, one codegen unit, panic=abort), panics that trap without formatting a message when the
# standard library is built here (Debian's toolchain: -Cpanic=immediate-abort) and no file and line of a panic's
# place in the data (-Zlocation-detail=none: with panics that trap, nothing reads them; -1,563 bytes), no name or
# producers section, talc
# as the allocator, no url crate (origin lists are parsed by the browser's URL parser), short import and export
# names (tools/wasm-names). binaryen's wasm-opt is not used: Debian's (108) cannot read rustc's default wasm
# features, and npm's (132) makes the gzipped wasm larger with any pass (-Os +1,397 bytes, no pass at all +435,
# measured 2026-12-03).
set -euo pipefail
LOG_TAG=pkg
source "$(dirname "$0")/lib.sh"

profile=release
out="$ROOT/bridge/pkg"
# The package's features: the JavaScript API, without the url crate's parsing methods for Rust apps (the bridge
# parses with the browser's URL parser; with them the wasm is 129 bytes larger, measured 2026-12-03), with talc as
# the wasm's allocator (2,550 bytes less than dlmalloc gzipped).
features=(--no-default-features --features js-api,global-allocator)
name_section=(--remove-name-section)
for arg in "$@"; do
  case $arg in
    --dev) profile=dev ;;
    --record) features=(--no-default-features --features js-api,global-allocator,record); out="$ROOT/bridge/pkg-record" ;;
    --names) name_section=(); out="$ROOT/bridge/pkg-names" ;;
    *) die "unknown option $arg (usage: scripts/build-pkg.sh [--dev] [--record] [--names])" ;;
  esac
done

log "building interpane for $WASM_TARGET ($profile)"
if [ $profile = release ]; then
  if [ "$(wasm_mode)" = debian ]; then
    # Only with build-std: the standard library is compiled with the same panic strategy, and a panic's place
    # (file, line) is left out of the data, since a panic traps without a message that could print it.
    export RUSTFLAGS="${RUSTFLAGS:-} -Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
  fi
  wasm_cargo build --profile wasm-release -p interpane --lib --quiet ${features[@]+"${features[@]}"}
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/wasm-release/interpane.wasm"
else
  wasm_cargo build -p interpane --lib --quiet ${features[@]+"${features[@]}"}
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/debug/interpane.wasm"
fi

tmp=$(mktemp -d "$ROOT/bridge/.pkg.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web ${name_section[@]+"${name_section[@]}"} --remove-producers-section --out-dir "$tmp" --out-name interpane "$wasm"
# Short names for the wasm's imports from the glue and its exports, in the wasm, the glue and its types together
# (tools/wasm-names: wasm-bindgen's hashed and signature-long names cost about 4 KB of the gzipped download).
# (A native build: without the wasm build's RUSTFLAGS.)
env -u RUSTFLAGS cargo run --quiet --locked -p interpane-wasm-names -- \
  "$tmp/interpane_bg.wasm" ./interpane_bg.js "$tmp/interpane.js" "$tmp/interpane.d.ts" >/dev/null \
  || die "could not shorten the wasm's import and export names"
# wasm-bindgen writes the glue as interpane.js plus one module per JS file of the bridge (snippets/, 16 of
# them): a page would fetch each before its first call. esbuild joins them into interpane.js (minified in
# release, names too: `--keep-names` cost 1,523 bytes gzipped, measured 2026-12-03; the classes a page sees set
# their names themselves, js/context.js, and the e2e test native_parity checks them).
# (wasm-bindgen names a snippet once per import in its import object: the duplicate keys esbuild warns about are
# the same module, so that warning is silenced.)
bundle_dir="$ROOT/tools/bundle"
npm_ci_when_changed "$bundle_dir"
# bundle <module in $tmp> [esbuild options...]: replaces the module by itself with everything it imports.
bundle() {
  local name=$1
  shift
  "$bundle_dir/node_modules/.bin/esbuild" "$tmp/$name" --bundle --format=esm --target=es2022 --legal-comments=none \
    --log-level=warning --log-override:duplicate-object-key=silent "$@" --outfile="$tmp/bundled.$name" \
    || die "esbuild could not bundle $name"
  mv "$tmp/bundled.$name" "$tmp/$name"
}
minify=()
[ $profile = release ] && minify=(--minify)
bundle interpane.js ${minify[@]+"${minify[@]}"}
rm -rf "$tmp/snippets"
# The package's own files (the entry with its checks, the React hook, types) and the texts npm shows and ships.
cp "$ROOT"/bridge/npm/{index.js,index.d.ts,react.js,react.d.ts,wasm.d.ts,README.md} "$tmp/"
# The entry carries the glue inside it: a page that imports the package fetches one module before the wasm, not
# the entry and then the module it imports (one round trip less on a cold start). Whitespace and syntax are
# minified, names are not (the entry's messages and its option list stay readable). interpane.js stays in the
# package for pages that import the wasm-bindgen module itself, as the demo does.
entry_minify=()
[ $profile = release ] && entry_minify=(--minify-whitespace --minify-syntax)
bundle index.js ${entry_minify[@]+"${entry_minify[@]}"}
cp "$ROOT"/{LICENSE-MIT,LICENSE-APACHE,CHANGELOG.md} "$tmp/"
rm -f "$tmp/interpane_bg.wasm.d.ts"
# One version for the crates and the package: the workspace's.
version=$(awk -F'"' '/^version = /{print $2; exit}' "$ROOT/Cargo.toml")
cat > "$tmp/package.json" <<JSON
{
  "name": "interpane",
  "version": "$version",
  "description": "Expose WebMCP tools to other windows and call theirs, over postMessage, safely.",
  "keywords": ["webmcp", "mcp", "postMessage", "iframe", "modelContext", "wasm"],
  "license": "MIT OR Apache-2.0",
  "homepage": "https://docs.rs/interpane",
  "type": "module",
  "main": "./index.js",
  "module": "./index.js",
  "types": "./index.d.ts",
  "exports": {
    ".": { "types": "./index.d.ts", "default": "./index.js" },
    "./react": { "types": "./react.d.ts", "default": "./react.js" },
    "./wasm": { "types": "./wasm.d.ts", "default": "./interpane_bg.wasm" },
    "./package.json": "./package.json"
  },
  "files": [
    "index.js", "index.d.ts", "react.js", "react.d.ts", "wasm.d.ts",
    "interpane.js", "interpane.d.ts", "interpane_bg.wasm",
    "LICENSE-MIT", "LICENSE-APACHE", "CHANGELOG.md"
  ],
  "sideEffects": false,
  "peerDependencies": { "react": ">=18" },
  "peerDependenciesMeta": { "react": { "optional": true } }
}
JSON
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
log "package ready in ${out#"$ROOT"/}: $(du -b "$out/interpane_bg.wasm" | cut -f1) bytes of wasm"
