#!/usr/bin/env bash
# Builds everything and serves the multi-origin demo on loopback until Ctrl-C, printing the URLs to open.
#
#   scripts/demo.sh [webmcp-demo options]     serve (e.g. --ports 9401,9402,9403,9404; see --help)
#   scripts/demo.sh --check                   drive headless Chromium through the demo scenario instead: prints a
#                                             table of checks, exits 0 only when every check passed
#   scripts/demo.sh --check --screenshot PATH the same, and save a PNG of the shop (docs/demo.png in the README)
#   scripts/demo.sh --screenshot PATH         the same as the line above
set -euo pipefail
LOG_TAG=demo
source "$(dirname "$0")/lib.sh"

check=false
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=true ;;
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

"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build-pkg.sh"
cd "$ROOT"
if $check; then
  log "checking the demo in headless Chromium"
  exec cargo run --release --quiet -p webmcp-e2e --bin demo-check -- ${args[@]+"${args[@]}"}
fi
exec cargo run --release --quiet -p webmcp-demo-sites --bin webmcp-demo -- ${args[@]+"${args[@]}"}
