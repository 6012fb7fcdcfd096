#!/usr/bin/env bash
# The npm package as web developers use it: packs it (scripts/pack.sh, from the bridge/pkg that
# scripts/build-pkg.sh built), installs the tarball into this folder's node_modules as npm would, and runs run.mjs
# (TypeScript, Vite, esbuild, a plain page and React, each across two loopback origins in headless Chromium).
# Usage: tests/packaging/run.sh [--build]   (--build builds bridge/pkg first)
set -euo pipefail
LOG_TAG=packaging
source "$(dirname "$0")/../../scripts/lib.sh"
here="$ROOT/tests/packaging"
cd "$here"

command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed (Node.js 20.19 or later)"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
  || die "Node.js $(node --version) is too old for Vite 7: 20.19 or later is needed"

npm_ci_when_changed "$here"

pack_args=(--no-build)
[ "${1:-}" = --build ] && pack_args=()
tarball=$("$ROOT/scripts/pack.sh" "${pack_args[@]}")

# What `npm install <tarball>` puts in node_modules (the package has no dependencies): its files, unpacked.
dest="$here/node_modules/interpane"
rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$tarball" -C "$dest" --strip-components=1

PACKAGE_TARBALL="$tarball" node "$here/run.mjs"
