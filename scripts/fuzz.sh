#!/usr/bin/env bash
# Runs each cargo-fuzz target of interpane-policy for the given number of seconds (default 60):
# origin lists, message envelopes, journal entries, the calls channel's and the tab probe's messages. Installs
# cargo-fuzz once.
# It runs on the machine's stable toolchain: cargo fuzz passes unstable flags (-Zsanitizer, coverage options), which
# RUSTC_BOOTSTRAP=1 lets stable rustc take, so no nightly is needed. No sanitizer (--sanitizer none): the policy
# crate forbids unsafe code, so AddressSanitizer would find nothing libFuzzer's own checks do not, at a third of the
# speed; panics, overflows (-a keeps debug assertions and overflow checks in the optimised -O build) and timeouts
# are what the targets look for.
# Crashes are left in policy/fuzz/artifacts/<target>/; keep each as a regression test.
set -euo pipefail
LOG_TAG=fuzz
source "$(dirname "$0")/lib.sh"
seconds=${1:-60}
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --quiet || die "cargo install cargo-fuzz failed"
fi
cd "$ROOT/policy"
for target in origin_list envelope journal_entry calls_channel tab_probe; do
  log "fuzzing $target for ${seconds}s"
  mkdir -p "fuzz/corpus/$target"
  RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none -O -a "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 2>&1 \
    | grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|crash" \
    | grep -v "__sanitizer_acquire_crash_state" || true # libFuzzer looks for it; without a sanitizer it is absent
  if ls "fuzz/artifacts/$target"/crash-* >/dev/null 2>&1; then
    die "$target crashed: see policy/fuzz/artifacts/$target/"
  fi
done
log "no crash"
