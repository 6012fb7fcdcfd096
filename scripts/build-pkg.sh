#!/usr/bin/env bash
# Builds the npm-style package of the bridge into bridge/pkg: ES module, .wasm, .d.ts and package.json.
# Usage: scripts/build-pkg.sh [--dev]   (--dev skips the release profile and wasm-opt, for quick iterations)
set -euo pipefail
LOG_TAG=pkg
source "$(dirname "$0")/lib.sh"

profile=release
[ "${1:-}" = --dev ] && profile=dev
out="$ROOT/bridge/pkg"

log "building webmcp-bridge for $WASM_TARGET ($profile)"
if [ $profile = release ]; then
  wasm_cargo build --release -p webmcp-bridge --lib --quiet
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/release/webmcp_bridge.wasm"
else
  wasm_cargo build -p webmcp-bridge --lib --quiet
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/debug/webmcp_bridge.wasm"
fi

tmp=$(mktemp -d "$ROOT/bridge/.pkg.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --out-dir "$tmp" --out-name webmcp_bridge "$wasm"
if [ $profile = release ]; then
  # -Oz: smallest code; the features are those rustc enables by default for wasm32-unknown-unknown.
  if ! wasm-opt -Oz --enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int \
    --enable-reference-types --enable-multivalue \
    "$tmp/webmcp_bridge_bg.wasm" -o "$tmp/webmcp_bridge_bg.opt.wasm" 2>"$tmp/wasm-opt.log"; then
    log "warning: wasm-opt $(wasm-opt --version | awk '{print $3}') cannot read this module ($(head -c 200 "$tmp/wasm-opt.log")); the package is not size-optimized"
  else
    mv "$tmp/webmcp_bridge_bg.opt.wasm" "$tmp/webmcp_bridge_bg.wasm"
  fi
  rm -f "$tmp/wasm-opt.log"
fi
version=$(awk -F'"' '/^version = /{print $2; exit}' "$ROOT/Cargo.toml")
cat > "$tmp/package.json" <<JSON
{
  "name": "webmcp-bridge",
  "version": "$version",
  "description": "Expose WebMCP tools to other windows and call theirs, over postMessage, safely.",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "webmcp_bridge.js",
  "module": "webmcp_bridge.js",
  "types": "webmcp_bridge.d.ts",
  "files": ["webmcp_bridge.js", "webmcp_bridge_bg.wasm", "webmcp_bridge.d.ts", "webmcp_bridge_bg.wasm.d.ts", "snippets"],
  "sideEffects": false
}
JSON
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
log "package ready in ${out#"$ROOT"/}: $(du -b "$out/webmcp_bridge_bg.wasm" | cut -f1) bytes of wasm"
