#!/usr/bin/env bash
# Packs the npm package: the exact tarball `npm publish` would upload, into target/pack/.
# Usage: scripts/pack.sh [--no-build]   (--no-build packs the bridge/pkg already built by scripts/build-pkg.sh)
# Publishing is then: npm publish target/pack/interpane-<version>.tgz --access public
set -euo pipefail
LOG_TAG=pack
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" != --no-build ]; then
  "$ROOT/scripts/build-pkg.sh"
fi
[ -f "$ROOT/bridge/pkg/package.json" ] || die "no bridge/pkg: run scripts/build-pkg.sh first"
out="$ROOT/target/pack"
mkdir -p "$out"
name=$(cd "$out" && npm pack --silent --pack-destination "$out" "$ROOT/bridge/pkg" | tail -n 1)
tarball="$out/$name"
[ -f "$tarball" ] || die "npm pack made no tarball"
log "${tarball#"$ROOT"/}: $(du -b "$tarball" | cut -f1) bytes, $(tar -tzf "$tarball" | wc -l) files"
echo "$tarball"
