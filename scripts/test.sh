#!/usr/bin/env bash
# Runs the whole test suite from nothing: installs librdkafka and tansu when missing, starts a
# local broker unless KAFKA_BOOTSTRAP_SERVERS names a cluster to test against, runs every test,
# and stops the broker it started. Extra arguments go to `swift test` (e.g. --filter Kafka).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
  trap 'bash "$ROOT/scripts/broker.sh" stop test' EXIT
  broker=$(bash "$ROOT/scripts/broker.sh" start test)
  export "${broker?}"
fi
log "testing against $KAFKA_BOOTSTRAP_SERVERS"

swift build --build-tests "${SWIFT_LINK_FLAGS[@]}"
# The fault tests run the worker as a process of its own, to kill it.
FCM_BRIDGE_BINARY="$(swift build --show-bin-path)/fcm-bridge"
export FCM_BRIDGE_BINARY
# Each integration suite has its own time limit; this one bounds the whole run, so that a hang
# fails fast instead of eating CI's time.
timeout --kill-after=30s "${FCM_BRIDGE_TEST_TIMEOUT:-45m}" swift test --skip-build "${SWIFT_LINK_FLAGS[@]}" "$@"
