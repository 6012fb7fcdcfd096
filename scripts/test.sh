#!/usr/bin/env bash
# Runs every check of interpane, installing what it needs first (scripts/setup.sh):
# formatting, clippy (native and wasm32), native tests, browser tests (wasm-bindgen-test in headless Chromium),
# and the end-to-end suites across loopback origins in every engine: Chromium without and with native WebMCP (steps
# e2e and e2e-native), Firefox ESR (e2e-firefox) and WebKitGTK's MiniBrowser under Xvfb (e2e-webkit). A case about
# one engine's own feature (native WebMCP, the DevTools protocol, Chromium's memory figures and profile settings)
# runs only there: the suite prints why, and the summary counts it as skipped. Prints a summary; exits non-zero on
# any failure.
set -uo pipefail
LOG_TAG=test
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

# One temporary folder for the whole run, removed at its end: chromedriver and Chromium (the browser tests' runner,
# the end-to-end suites, packaging) leave profile and singleton folders in TMPDIR, a few megabytes per session, and
# runs on one machine filled its disk.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/interpane-test-XXXXXX")
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"

logs="$ROOT/target/test-logs"
mkdir -p "$logs"
summary=()
failed=0
total_passed=0
total_failed=0
total_skipped=0

# step <name> <command...>: runs a command, shows its output, and records how it went.
step() {
  local name=$1
  shift
  local log="$logs/$name.log" start end status passed failed_tests skipped
  log "== $name"
  start=$(date +%s)
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  end=$(date +%s)
  passed=$(grep -aoE 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
  failed_tests=$(grep -aoE '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  skipped=$(grep -aoE 'test result: [A-Za-z]+\. [0-9]+ passed; [0-9]+ failed; [0-9]+ ignored' "$log" | awk '{s+=$8} END {print s+0}')
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed_tests))
  total_skipped=$((total_skipped + skipped))
  if [ "$status" -eq 0 ]; then
    summary+=("$(printf '%-28s %-5s %6s passed %4s failed %4s skipped %5ss' "$name" ok "$passed" "$failed_tests" "$skipped" $((end - start)))")
  else
    failed=1
    summary+=("$(printf '%-28s %-5s %6s passed %4s failed %4s skipped %5ss  (log: %s)' "$name" FAIL "$passed" "$failed_tests" "$skipped" $((end - start)) "${log#"$ROOT"/}")")
  fi
  return 0
}

policy_stays_pure() {
  local bad
  bad=$(cargo tree -p interpane-policy -e normal,build --prefix none --format '{p}' | grep -E '^(wasm-bindgen|js-sys|web-sys|gloo)' || true)
  if [ -n "$bad" ]; then
    echo "interpane-policy must not depend on browser crates, but its tree has:"
    echo "$bad"
    return 1
  fi
  echo "interpane-policy depends on no browser crate"
}

crate_docs() {
  RUSTDOCFLAGS="-D warnings" cargo doc -p interpane-policy --no-deps --locked &&
    RUSTDOCFLAGS="-D warnings" cargo doc -p interpane-policy --no-deps --locked --features record &&
    RUSTDOCFLAGS="-D warnings" wasm_cargo doc -p interpane --no-deps --locked
}

# The policy crate with the feature `record`: a session's tape replays to what it did, a difference is found, and
# every page of the session tests and of the simulator replays its tape when the test is done with it (the tape's
# documentation example included).
policy_replay() {
  cargo test -p interpane-policy --features record --locked --test session_tape --test session_sim \
    --test session_table --test session_forms &&
    cargo test -p interpane-policy --features record --locked --doc session::tape
}

browser_tests() {
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$(wasm_test_runner)" WASM_BINDGEN_TEST_TIMEOUT=120 \
    wasm_cargo test -p "$1" --tests
}

started=$(date +%s)
step setup "$ROOT/scripts/setup.sh"
[ "$failed" -eq 0 ] || die "set-up failed: see target/test-logs/setup.log"
step policy-stays-pure policy_stays_pure
# The bridge's modules form layers (the driver below the APIs): no module uses another that uses it back.
step bridge-module-layers python3 "$ROOT/scripts/module-cycles.py"
step fmt cargo fmt --all --check
step clippy-native cargo clippy --workspace --all-targets --locked -- -D warnings
# The policy crate without its default feature `url` (the bridge's build: origin lists parsed with a parser it is given).
step clippy-policy-without-url cargo clippy -p interpane-policy --no-default-features --all-targets --locked -- -D warnings
step clippy-wasm32 wasm_cargo clippy -p interpane-policy -p interpane --all-targets --locked -- -D warnings
step tests-native cargo test --workspace --exclude interpane-e2e --locked
# The crates' documentation as docs.rs builds it: every intra-doc link resolves (a renamed or removed item leaves none
# dangling).
step tests-replay policy_replay
step docs crate_docs
# The e2e crate's tools (demo-check, wpt-webmcp) have unit tests of their own.
step tests-tools cargo test -p interpane-e2e --bins --locked
step build-pkg "$ROOT/scripts/build-pkg.sh"
# The download a page makes before its first call, held to its budget (issue 24).
step size-budget "$ROOT/scripts/size-budget.sh"
# Both crates and the npm package would be accepted under their names: metadata, contents, the registries' dry runs.
step publishable "$ROOT/scripts/check-publish.sh"
step packaging "$ROOT/tests/packaging/run.sh"
step browser-policy browser_tests interpane-policy
step browser-bridge browser_tests interpane
if [ -f "$ROOT/tests/tests/e2e.rs" ]; then
  step e2e cargo test -p interpane-e2e --test e2e --locked
  # The same suite again in Chromium with the browser's own WebMCP (--enable-features=WebMCP): docs/native.md.
  step e2e-native env E2E_NATIVE=1 cargo test -p interpane-e2e --test e2e --locked
  # The same suite in the other engines (docs/engines.md): Firefox ESR headless, and WebKitGTK's MiniBrowser, which
  # has no headless mode, on a virtual display of its own (xvfb-run -a picks a free one and ends it with the step).
  # Every case that is not about Chromium's own features runs in both. Measured on this kind of machine, a clean
  # clone with the tools installed and nothing else running (8fd93be): e2e-firefox 261 s, e2e-webkit 152 s, the
  # whole command 1,452 s; a fresh machine adds the set-up (Debian packages, wasm-bindgen-cli, the test runner, and
  # geckodriver, built in 122 s), about 12 minutes, within the 40 minutes CI allows.
  step e2e-firefox env E2E_ENGINE=firefox cargo test -p interpane-e2e --test e2e --locked
  step e2e-webkit xvfb-run -a -s "-screen 0 1280x900x24" env E2E_ENGINE=webkit \
    cargo test -p interpane-e2e --test e2e --locked
  # The replay test: a recording build of the package (bridge/pkg-record), a scenario in both browser modes, each
  # page's tape replayed natively (tests/tests/replay.rs).
  step build-pkg-record "$ROOT/scripts/build-pkg.sh" --record
  step e2e-replay env E2E_PKG_DIR="$ROOT/bridge/pkg-record" cargo test -p interpane-e2e --test replay --locked
  step e2e-replay-native env E2E_NATIVE=1 E2E_PKG_DIR="$ROOT/bridge/pkg-record" \
    cargo test -p interpane-e2e --test replay --locked
fi

echo
echo "==================== summary ($(( $(date +%s) - started ))s) ===================="
printf '%s\n' "${summary[@]}"
echo "tests: $total_passed passed, $total_failed failed, $total_skipped skipped"
if [ "$failed" -ne 0 ]; then
  echo "RESULT: FAIL"
  exit 1
fi
echo "RESULT: OK"
