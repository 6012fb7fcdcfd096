#!/usr/bin/env bash
# Fails when a crate or the npm package would not be publishable under its name:
#   1. the metadata crates.io and npm show is complete (scripts/check_publish.py reads `cargo metadata` and the
#      package.json build-pkg.sh wrote), and only the two crates are publishable;
#   2. each crate's tarball holds what it needs (sources, README, licenses, every JS module a
#      `#[wasm_bindgen(module = "/js/...")]` names) and nothing it must not (the npm folder, build output);
#   3. `cargo publish --dry-run` for both crates in dependency order (interpane-policy, then interpane, which
#      cargo verifies against the packaged policy crate, as crates.io would), each built from its tarball;
#   4. `npm publish --dry-run` of the tarball scripts/pack.sh made, whose file list must be the package's.
# Usage: scripts/check-publish.sh   (after scripts/build-pkg.sh: it packs bridge/pkg)
set -euo pipefail
LOG_TAG=publish
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

[ -f "$ROOT/bridge/pkg/package.json" ] || die "no bridge/pkg: run scripts/build-pkg.sh first"
lists=$(mktemp -d)
trap 'rm -rf "$lists"' EXIT

log "the checks' own tests"
(cd "$ROOT/scripts" && python3 -m unittest -q test_check_publish)

log "metadata"
cargo metadata --format-version 1 --no-deps --locked >"$lists/metadata.json"
for crate in interpane-policy interpane; do
  cargo package --list --locked --allow-dirty -p "$crate" >"$lists/$crate.files"
done
tarball=$("$ROOT/scripts/pack.sh" --no-build)
tar -tzf "$tarball" | sed 's|^package/||' >"$lists/npm.files"
python3 "$ROOT/scripts/check_publish.py" "$lists" "$ROOT/bridge/pkg/package.json"

# --workspace publishes the publishable members in dependency order; with --dry-run nothing is uploaded, and each
# crate is built from its own tarball (the bridge against the packaged policy crate, not the folder).
# --allow-dirty: whether the work tree has uncommitted changes says nothing about the crates.
log "cargo publish --dry-run (interpane-policy, then interpane)"
# cargo extracts the packed policy crate from its local overlay registry into
# $CARGO_HOME/registry/src/-<hash of the overlay's path>/interpane-policy-<version>/ and never extracts that version
# there again; and it judges the copy it compiled from there by file times, which the extraction takes from the
# tarball. So a second run from the same folder verified the bridge against the policy crate of an earlier run (CI
# failed so on a clone at a path an earlier run had used). Each run therefore removes our crates' old extractions from
# overlay registries (their names start with '-'; crates.io's does not) and builds in a target folder of its own whose
# builds of our two crates it removes first (the dependencies' builds stay: they come from crates.io).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rm -rf "$cargo_home"/registry/src/-*/interpane-policy-* "$cargo_home"/registry/src/-*/interpane-[0-9]*
publish_target="$ROOT/target/publish-check"
rm -rf "$publish_target"/debug/.fingerprint/interpane-* "$publish_target"/debug/deps/*interpane*
cargo publish --workspace --dry-run --locked --allow-dirty --target-dir "$publish_target"

log "npm publish --dry-run ${tarball#"$ROOT"/}"
npm publish --dry-run "$tarball"
echo "publishable: interpane-policy and interpane (crates.io), interpane (npm)"
