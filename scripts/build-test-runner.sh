#!/usr/bin/env bash
# Builds tools/wasm-test-runner (wasm-bindgen's test runner with tiny_http's worker pool fixed: see its README.md) into
# the directory `wasm_test_runner` in lib.sh names, unless it is there already. Run by setup.sh.
set -euo pipefail
LOG_TAG=setup
source "$(dirname "$0")/lib.sh"

tool="$ROOT/tools/wasm-test-runner"
runner=$(wasm_test_runner)
if [ -x "$runner" ]; then
  log "patched wasm-bindgen-test-runner present: $runner"
  exit 0
fi

# The runner links the wasm-bindgen-cli library of the version the project builds with; they must be the same.
want=$(locked_wasm_bindgen_version)
grep -q "^wasm-bindgen-cli = { version = \"=$want\"" "$tool/Cargo.toml" \
  || die "tools/wasm-test-runner/Cargo.toml must pin wasm-bindgen-cli =$want, the wasm-bindgen of Cargo.lock"

# tiny_http 0.12.0 as the registry serves it, checked against its published checksum, then our one-hunk patch.
crate_url=https://static.crates.io/crates/tiny_http/tiny_http-0.12.0.crate
crate_sha256=389915df6413a2e74fb181895f933386023c71110878cd0825588928e64cdc82
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "building the patched wasm-bindgen-test-runner $want (a few minutes, once per machine)"
curl -fsSL --retry 3 -o "$work/tiny_http.crate" "$crate_url" || die "could not download $crate_url"
echo "$crate_sha256  $work/tiny_http.crate" | sha256sum --check --quiet - \
  || die "$crate_url does not have the checksum crates.io publishes for tiny_http 0.12.0"
tar -xzf "$work/tiny_http.crate" -C "$work"
(cd "$work/tiny_http-0.12.0" && git apply -p1 "$tool/patches/tiny_http-0.12.0-task-pool.patch") \
  || die "the tiny_http patch does not apply"
rm -rf "$tool/vendor"
mkdir -p "$tool/vendor"
mv "$work/tiny_http-0.12.0" "$tool/vendor/tiny_http"

# Warnings in tiny_http are not ours to fix: --cap-lints keeps the setup log to what matters.
RUSTFLAGS="--cap-lints allow" CARGO_TARGET_DIR="$work/target" cargo build --release --locked --quiet --manifest-path "$tool/Cargo.toml" \
  || die "building tools/wasm-test-runner failed"
mkdir -p "$(dirname "$runner")"
cp "$work/target/release/wasm-bindgen-test-runner" "$runner.partial"
mv "$runner.partial" "$runner"
log "built $runner"
