#!/usr/bin/env bash
# Builds the npm-style package of the bridge into bridge/pkg: ES module, .wasm, .d.ts and package.json.
# Usage: scripts/build-pkg.sh [--dev]   (--dev builds the debug profile, for quick iterations)
#
# Size choices (measured with twiggy and gzip -9; see docs/performance.md): the `wasm-release` profile
# (opt-level "s", fat LTO, one codegen unit, panic=abort), panics that trap without formatting a message when the
# standard library is built here (Debian's toolchain: -Cpanic=immediate-abort), no name or producers section, and
# the url crate's ASCII-only IDNA backend (policy/Cargo.toml). Debian's wasm-opt (binaryen 108) is not used: it
# cannot read rustc's default wasm features, and with them turned off its -Oz output gzips 6% larger.
set -euo pipefail
LOG_TAG=pkg
source "$(dirname "$0")/lib.sh"

profile=release
[ "${1:-}" = --dev ] && profile=dev
out="$ROOT/bridge/pkg"

log "building webmcp-bridge for $WASM_TARGET ($profile)"
if [ $profile = release ]; then
  if [ "$(wasm_mode)" = debian ]; then
    # Only with build-std: the standard library is compiled with the same panic strategy.
    export RUSTFLAGS="${RUSTFLAGS:-} -Zunstable-options -Cpanic=immediate-abort"
  fi
  wasm_cargo build --profile wasm-release -p webmcp-bridge --lib --quiet
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/wasm-release/webmcp_bridge.wasm"
else
  wasm_cargo build -p webmcp-bridge --lib --quiet
  wasm="$WASM_TARGET_DIR/$WASM_TARGET/debug/webmcp_bridge.wasm"
fi

tmp=$(mktemp -d "$ROOT/bridge/.pkg.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir "$tmp" --out-name webmcp_bridge "$wasm"
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
