#!/usr/bin/env bash
# Runs each cargo-fuzz target of webmcp-policy for the given number of seconds (default 60):
# origin lists, message envelopes, journal entries. Needs the nightly toolchain (rustup) and installs cargo-fuzz.
# Crashes are left in policy/fuzz/artifacts/<target>/; keep each as a regression test.
set -euo pipefail
LOG_TAG=fuzz
source "$(dirname "$0")/lib.sh"
seconds=${1:-60}
rustup toolchain list 2>/dev/null | grep -q nightly || die "cargo fuzz needs the nightly toolchain (rustup toolchain install nightly)"
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --quiet || die "cargo install cargo-fuzz failed"
fi
cd "$ROOT/policy"
for target in origin_list envelope journal_entry; do
  log "fuzzing $target for ${seconds}s"
  mkdir -p "fuzz/corpus/$target"
  cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- -max_total_time="$seconds" -print_final_stats=1 2>&1 \
    | grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|crash" || true
  if ls "fuzz/artifacts/$target"/crash-* >/dev/null 2>&1; then
    die "$target crashed: see policy/fuzz/artifacts/$target/"
  fi
done
log "no crash"
