#!/usr/bin/env bash
# Runs the WebMCP web-platform-tests of a local web-platform-tests checkout on pages with the bridge installed,
# in headless Chromium, and prints how many subtests pass per file and in total.
#   ./scripts/wpt.sh <wpt-dir>            the bridge, Chromium without native WebMCP
#   ./scripts/wpt.sh <wpt-dir> --native   the bridge, Chromium with --enable-features=WebMCP
#   ./scripts/wpt.sh <wpt-dir> --native --no-bridge   native WebMCP alone (the baseline)
#   ./scripts/wpt.sh <wpt-dir> --all      the three runs, one after the other
# Nothing of wpt is in this repository: <wpt-dir> is a checkout of web-platform-tests/wpt (it needs webmcp/,
# resources/testharness.js and common/blank.html). The bridge package is built first (scripts/build-pkg.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 ]]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
wpt=$1
shift
./scripts/build-pkg.sh >&2
cargo build -q -p interpane-e2e --bin wpt-webmcp
if [[ ${1:-} == --all ]]; then
  ./target/debug/wpt-webmcp "$wpt"
  ./target/debug/wpt-webmcp "$wpt" --native
  ./target/debug/wpt-webmcp "$wpt" --native --no-bridge
else
  ./target/debug/wpt-webmcp "$wpt" "$@"
fi
