#!/usr/bin/env bash
# Builds everything and serves the multi-origin demo on loopback until Ctrl-C.
# Extra arguments go to the demo server (e.g. --check to drive headless Chromium through the scenario).
set -euo pipefail
LOG_TAG=demo
source "$(dirname "$0")/lib.sh"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build-pkg.sh"
cd "$ROOT"
exec cargo run --release --quiet -p webmcp-demo-sites --bin webmcp-demo -- "$@"
