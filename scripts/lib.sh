# Shared by the scripts: where things are and how to run cargo for wasm32. Source it; it runs nothing.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WASM_TARGET=wasm32-unknown-unknown
WASM_TARGET_DIR="$ROOT/target/wasm"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
# The other engines of the end-to-end suites (tests/src/engine.rs): Firefox ESR through geckodriver (from crates.io,
# at this version), WebKitGTK's MiniBrowser through WebKitWebDriver (both from Debian).
export FIREFOX="${FIREFOX:-/usr/bin/firefox-esr}"
export GECKODRIVER_VERSION=0.37.1
export WEBKIT_WEBDRIVER="${WEBKIT_WEBDRIVER:-/usr/bin/WebKitWebDriver}"
export MINIBROWSER="${MINIBROWSER:-/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser}"
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '\033[1m[%s]\033[0m %s\n' "${LOG_TAG:-webmcp}" "$*" >&2; }
die() { printf '\033[1;31m[%s] error:\033[0m %s\n' "${LOG_TAG:-webmcp}" "$*" >&2; exit 1; }

# "rustup" when the active rustup toolchain has the wasm32 standard library, else "debian" (build-std with
# Debian's rustc-web, whose std source is in rust-web-src).
wasm_mode() {
  if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$WASM_TARGET"; then
    echo rustup
  else
    echo debian
  fi
}

# wasm_cargo <subcommand> [args...]: cargo for wasm32 with whichever standard library this machine has.
wasm_cargo() {
  local sub=$1
  shift
  if [ "$(wasm_mode)" = rustup ]; then
    CARGO_TARGET_DIR="$WASM_TARGET_DIR" cargo "$sub" --target "$WASM_TARGET" "$@"
  elif [ "$sub" = clippy ]; then
    # Debian's clippy must drive Debian's cargo and rustc, not rustup's proxies that come first on PATH.
    PATH="/usr/bin:$PATH" CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
      CARGO_TARGET_DIR="$WASM_TARGET_DIR" /usr/bin/cargo-clippy clippy \
      -Zbuild-std=std,panic_abort --target "$WASM_TARGET" "$@"
  else
    PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$WASM_TARGET_DIR" \
      /usr/bin/cargo "$sub" -Zbuild-std=std,panic_abort --target "$WASM_TARGET" "$@"
  fi
}

# The wasm-bindgen version that Cargo.lock pins; the CLI must match it exactly.
locked_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' "$ROOT/Cargo.lock"
}

# The wasm-bindgen-test-runner the browser tests use: tools/wasm-test-runner, built by scripts/build-test-runner.sh
# into a directory named after the hash of its sources. The directory is outside the clone (clones share it) unless
# WEBMCP_TOOLS_DIR says where.
wasm_test_runner() {
  local key
  key=$(cat "$ROOT"/tools/wasm-test-runner/{Cargo.toml,Cargo.lock,src/main.rs,patches/*.patch} | sha256sum | cut -c1-16)
  echo "${WEBMCP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/webmcp-bridge}/wasm-test-runner-$key/wasm-bindgen-test-runner"
}

# npm_ci_when_changed <dir>: `npm ci` in <dir>, only when its package-lock.json changed since the last one there
# (node_modules/.lock-hash keeps that lock's hash).
npm_ci_when_changed() {
  local dir=$1 name=${1#"$ROOT"/} hash
  command -v npm >/dev/null || die "npm is missing (Node.js 20 and npm are needed for $name)"
  hash=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$dir/node_modules/.lock-hash" 2>/dev/null)" = "$hash" ] && return 0
  log "npm ci ($name/package-lock.json)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci in $name failed"
  echo "$hash" > "$dir/node_modules/.lock-hash"
}
