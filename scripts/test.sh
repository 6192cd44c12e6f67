#!/usr/bin/env bash
# Runs the whole test suite from nothing: installs librdkafka and tansu when missing, starts a
# local broker unless KAFKA_BOOTSTRAP_SERVERS names a cluster to test against, runs every test,
# and stops the broker it started. Extra arguments go to `swift test` (e.g. --filter Kafka).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

# One format (.swift-format, applied with `swift format -i -r Sources Tests Benchmarks Fuzz Package.swift`).
swift format lint --strict -r Sources Tests Benchmarks Fuzz Package.swift

# Built before the broker's address is exported: SwiftPM loads every package manifest again
# (about 13 s) when the environment differs from its last build's.
swift build --build-tests "${SWIFT_LINK_FLAGS[@]}"
# The fuzzer's seed corpus and the inputs of its past findings, replayed without libFuzzer.
find Fuzz/corpus Fuzz/regressions -type f ! -name README.md -print0 | xargs -0 "$(swift build --show-bin-path)/BridgeFuzzer"
# The fault tests run the worker as a process of its own, to kill it; the outside tests run its commands.
FCM_BRIDGE_BINARY="$(swift build --show-bin-path)/fcm-bridge"
export FCM_BRIDGE_BINARY

# The alert rules: valid, and their unit tests pass (promtool, from Debian's prometheus package).
promtool="$(bash scripts/ensure-promtool.sh)"
(cd deploy/prometheus && "$promtool" check rules fcm-bridge.rules.yaml && "$promtool" test rules fcm-bridge.rules.test.yaml)

# The watcher's signatures are checked with Standard Webhooks' reference library, as an app
# server in Python would check them.
status=0
FCM_BRIDGE_TEST_PYTHONPATH="$(bash scripts/ensure-python.sh standardwebhooks 'standardwebhooks>=1.0,<2')" || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"
if [ "$status" -eq 3 ]; then
  log "the reference library's checks of webhook signatures are skipped: PyPI cannot be reached"
  export FCM_BRIDGE_PYPI_UNREACHABLE=1
fi
export FCM_BRIDGE_TEST_PYTHONPATH="${FCM_BRIDGE_TEST_PYTHONPATH:-/nonexistent}"

use_local_broker_unless_given test
log "testing against $KAFKA_BOOTSTRAP_SERVERS"
# Clients that know nothing of the Swift code: Firebase's Admin SDK through `fcm-bridge
# translate` and through `fcm-bridge gateway` to a worker, and the scripts the docs name.
bash scripts/outside-tests.sh
# Each integration suite has its own time limit, which ends a test that awaits; this bounds the
# whole run (in seconds), so that a test stuck in a blocking call fails fast instead of eating
# CI's time. Past the limit, every thread's stack of the test process is printed (with gdb, where
# there is one) before it is killed. Output is line-buffered, so a kill loses none of it.
limit="${FCM_BRIDGE_TEST_TIMEOUT:-1200}"
expired="$(mktemp)"
rm -f "$expired"
# Runs `swift test` with the arguments given, within the limit.
run_tests() {
  stdbuf -oL -eL swift test --skip-build "${SWIFT_LINK_FLAGS[@]}" "$@" &
  local tests=$!
  (
    for ((waited = 0; waited < limit; waited++)); do
      kill -0 "$tests" 2>/dev/null || exit 0
      sleep 1
    done
    touch "$expired"
    log "the tests passed their limit of $limit s (FCM_BRIDGE_TEST_TIMEOUT); killing them"
    for pid in $(pgrep -f 'PackageTests\.xctest'); do
      if command -v gdb >/dev/null; then
        log "stacks of $pid:"
        timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt 30' 2>/dev/null | grep -E '^(Thread|#)' >&2 || true
      fi
      kill -KILL "$pid" 2>/dev/null || true
    done
    kill -KILL "$tests" 2>/dev/null || true
    pkill -KILL -f "^$FCM_BRIDGE_BINARY run" || true
  ) &
  local rc=0
  wait "$tests" || rc=$?
  wait
  return "$rc"
}
status=0
if [ $# -gt 0 ]; then
  run_tests "$@" || status=$?
else
  # The fan-out suite loads both cores for a minute (100,000 members, workers killed and
  # joining): on its own, after the rest, so that it does not starve the timing of other suites.
  run_tests --skip 'FanOutTests' || status=$?
  [ -e "$expired" ] || run_tests --filter 'FanOutTests' || status=$?
fi
if [ -e "$expired" ]; then rm -f "$expired"; exit 124; fi
exit "$status"
