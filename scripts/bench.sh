#!/usr/bin/env bash
# The performance benchmark of issue 7 (docs/performance.md): interpane side by side with a hand-written
# window.postMessage ping-pong, a hand-written MessagePort ping-pong (the floor), penpal and comlink, in one headless
# Chromium session across two loopback origins. Builds the bridge package in release mode, installs the npm
# libraries, shows what the wasm is made of (twiggy), runs the rounds, prints the table and writes
# target/bench/results.json and target/bench/report.md.
# Usage: scripts/bench.sh [--rounds N] [more interpane-bench options: scripts/bench.sh --help]
set -euo pipefail
LOG_TAG=bench
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  exec cargo run --release --quiet -p interpane-bench -- --help
fi

"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build-pkg.sh"

# penpal, comlink and terser, from bench/package-lock.json.
npm_ci_when_changed "$ROOT/bench"

if ! command -v twiggy >/dev/null; then
  log "installing twiggy (cargo install twiggy), once"
  cargo install twiggy --locked --quiet || die "cargo install twiggy failed"
fi

out="$ROOT/target/bench"
mkdir -p "$out"
# The package's wasm as build-pkg.sh makes it, but keeping the function names (wasm-opt -g), so that twiggy can
# say which crate each byte comes from. Sizes in the report are those of bridge/pkg, the real download.
named="$out/named"
rm -rf "$named"
wasm-bindgen --target web --out-dir "$named" --out-name interpane \
  "$WASM_TARGET_DIR/$WASM_TARGET/wasm-release/interpane.wasm"
if wasm-opt -Oz -g --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
  --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
  "$named/interpane_bg.wasm" -o "$named/opt.wasm" 2>/dev/null; then
  mv "$named/opt.wasm" "$named/interpane_bg.wasm"
else
  log "wasm-opt cannot read the module either: twiggy sees it as wasm-bindgen wrote it (as bridge/pkg ships it)"
fi
log "the 25 largest items of the bridge's wasm (twiggy top -n 25)"
twiggy top -n 25 "$named/interpane_bg.wasm" | cut -c1-150
twiggy top -n 1000000 -f csv "$named/interpane_bg.wasm" >"$out/twiggy.csv"

log "running the benchmark (progress below; about a minute per round)"
cargo run --release --quiet -p interpane-bench -- --twiggy-csv "$out/twiggy.csv" "$@"
