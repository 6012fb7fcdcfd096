#!/usr/bin/env bash
# Builds everything and serves the multi-origin demo on loopback until Ctrl-C, printing the URLs to open.
#
#   scripts/demo.sh [interpane-demo options]     serve (e.g. --ports 9401,9402,9403,9404; see --help)
#   scripts/demo.sh --check                   drive headless Chromium through the demo scenario instead: prints a
#                                             table of checks, exits 0 only when every check passed
#   scripts/demo.sh --check --engine E        the same in engine E: chromium (the default), firefox (Firefox ESR,
#                                             headless) or webkit (WebKitGTK's MiniBrowser, under xvfb-run when
#                                             there is no display)
#   scripts/demo.sh --check --screenshot PATH the same, and save a PNG of the shop (docs/demo.png in the README)
#   scripts/demo.sh --screenshot PATH         the same as the line above
#   scripts/demo.sh --native [...]            for a browser with native WebMCP: serving, prints how to start
#                                             Chromium with --enable-features=WebMCP; with --check, the check's
#                                             Chromium has that flag (E2E_NATIVE=1, docs/native.md)
set -euo pipefail
LOG_TAG=demo
source "$(dirname "$0")/lib.sh"

check=false
native=false
engine=chromium
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=true ;;
    --native) native=true ;;
    --engine | --engine=*)
      if [ "$1" = --engine ]; then
        [ $# -ge 2 ] || die "--engine needs an engine: chromium, firefox or webkit"
        engine=$2
        shift
      else
        engine=${1#--engine=}
      fi
      case "$engine" in chromium | firefox | webkit) ;; *) die "--engine $engine: use chromium, firefox or webkit" ;; esac
      ;;
    --screenshot | --screenshot=*)
      check=true
      if [ "$1" = --screenshot ]; then
        [ $# -ge 2 ] || die "--screenshot needs the PNG file to write, e.g. --screenshot docs/demo.png"
        path=$2
        shift
      else
        path=${1#--screenshot=}
      fi
      [ -n "$path" ] || die "--screenshot needs the PNG file to write, e.g. --screenshot docs/demo.png"
      # Relative to where the script was called from, not to the checkout it changes into.
      case "$path" in /*) ;; *) path="$PWD/$path" ;; esac
      args+=(--screenshot "$path")
      ;;
    *) args+=("$1") ;;
  esac
  shift
done

# shop_url [interpane-demo options]: the shop's URL with the ports the options give (default 8401).
shop_url() {
  local port=8401
  while [ $# -gt 0 ]; do
    case "$1" in
      --ports) [ $# -ge 2 ] && port=${2%%,*} && shift ;;
      --ports=*) port=${1#--ports=} && port=${port%%,*} ;;
    esac
    shift
  done
  if [ "$port" = 0 ]; then echo "<the shop URL printed below>"; else echo "http://127.0.0.1:$port/"; fi
}

if [ "$engine" != chromium ]; then
  $check || die "--engine is for --check (serving, open the printed URLs in any browser)"
  ! $native || die "--native needs Chromium: native WebMCP is Chromium's (--engine $engine has none)"
fi
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build-pkg.sh"
cd "$ROOT"
if $check; then
  if $native; then
    log "checking the demo in headless Chromium with native WebMCP (--enable-features=WebMCP)"
    export E2E_NATIVE=1
  else
    log "checking the demo in $engine"
    # The native mode is asked for with --native only, not inherited from the caller's environment.
    unset E2E_NATIVE
  fi
  export E2E_ENGINE=$engine
  if [ "$engine" = webkit ] && [ -z "${DISPLAY:-}" ]; then
    # MiniBrowser has no headless mode: a virtual display of its own, ended with the check.
    exec xvfb-run -a -s "-screen 0 1280x900x24" \
      cargo run --release --quiet -p interpane-e2e --bin demo-check -- ${args[@]+"${args[@]}"}
  fi
  exec cargo run --release --quiet -p interpane-e2e --bin demo-check -- ${args[@]+"${args[@]}"}
fi
if $native; then
  shop=$(shop_url ${args[@]+"${args[@]}"})
  log "native WebMCP: open the demo in a Chromium started with the flag (Debian's Chromium 156 has it), e.g."
  log "  chromium --enable-features=WebMCP --user-data-dir=\"\$(mktemp -d)\" $shop"
  log "then document.modelContext in the shop is the bridge's, on top of the browser's own (docs/native.md)"
fi
exec cargo run --release --quiet -p interpane-demo-sites --bin interpane-demo -- ${args[@]+"${args[@]}"}
