#!/usr/bin/env bash
# Makes a fresh Debian 12 machine ready to build and test interpane, and does nothing slow when it already is:
#   - a wasm32 standard library (rustup's target if installed, else Debian's rustc-web + rust-web-src + lld),
#   - wasm-bindgen-cli at exactly the version Cargo.lock pins,
#   - the browser tests' wasm-bindgen-test-runner, with a fix to its HTTP server (tools/wasm-test-runner),
#   - the browsers of the end-to-end suites and their WebDriver servers: Chromium and ChromeDriver, Firefox ESR,
#     WebKitGTK's MiniBrowser and WebKitWebDriver, and Xvfb (MiniBrowser has no headless mode), from Debian;
#     geckodriver from crates.io (cargo install, a few minutes once per machine).
set -euo pipefail
LOG_TAG=setup
source "$(dirname "$0")/lib.sh"

packages=(chromium chromium-driver firefox-esr webkit2gtk-driver xvfb xauth python3 curl)
if [ "$(wasm_mode)" = rustup ]; then
  log "wasm32: using the rustup target wasm32-unknown-unknown"
else
  packages+=(rustc-web cargo-web rust-web-src rust-web-clippy lld-22)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  log "installing from Debian: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    die "these Debian packages are missing and this user cannot install them: ${missing[*]}.
Run as root: apt-get update && apt-get install -y ${missing[*]}"
  fi
  "${as_root[@]}" apt-get update -qq || die "apt-get update failed (is deb.debian.org reachable?)"
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
else
  log "Debian packages present: ${packages[*]}"
fi

if [ "$(wasm_mode)" = debian ]; then
  [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] \
    || die "Debian's rustc-web or rust-web-src is incomplete: /usr/bin/rustc or /usr/lib/rustlib/src/rust/library is missing"
  [ -x /usr/bin/rust-lld ] || die "rust-lld is missing: install lld-22 (it provides /usr/bin/rust-lld)"
fi
for tool in "$CHROMIUM" "$CHROMEDRIVER" "$FIREFOX" "$WEBKIT_WEBDRIVER" "$MINIBROWSER" /usr/bin/xvfb-run; do
  [ -x "$tool" ] || die "$tool is missing after installation"
done

have=$(geckodriver --version 2>/dev/null | awk 'NR == 1 {print $2}' || true)
if [ "$have" != "$GECKODRIVER_VERSION" ]; then
  log "installing geckodriver $GECKODRIVER_VERSION (found: ${have:-none}); this takes a few minutes once"
  cargo install geckodriver --version "$GECKODRIVER_VERSION" --locked --force --quiet \
    || die "cargo install geckodriver --version $GECKODRIVER_VERSION failed"
else
  log "geckodriver $have present"
fi

want=$(locked_wasm_bindgen_version)
[ -n "$want" ] || die "Cargo.lock does not pin wasm-bindgen; run cargo generate-lockfile"
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  log "installing wasm-bindgen-cli $want (found: ${have:-none}); this takes a few minutes once"
  cargo install wasm-bindgen-cli --version "$want" --force --quiet \
    || die "cargo install wasm-bindgen-cli --version $want failed"
  have=$(wasm-bindgen --version | awk '{print $2}')
  [ "$have" = "$want" ] || die "wasm-bindgen-cli is $have after installing, expected $want"
else
  log "wasm-bindgen-cli $have matches Cargo.lock"
fi
"$ROOT/scripts/build-test-runner.sh"
log "ready (wasm32 via $(wasm_mode))"
