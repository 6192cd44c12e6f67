#!/usr/bin/env bash
# Starts a local broker (left running; `scripts/broker.sh stop` stops it), runs a bridge worker
# against it with config/demo.yaml, and plays an app server and a device through it with
# `fcm-bridge demo`: messages to an offline device, then the device connects. Prints the status,
# inbox and dead-letter records the bridge wrote, then stops the worker.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

broker=$(bash "$ROOT/scripts/broker.sh" start dev)
export "${broker?}"
export FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS="$KAFKA_BOOTSTRAP_SERVERS"
log "broker at $KAFKA_BOOTSTRAP_SERVERS (stop it with scripts/broker.sh stop)"
swift build --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}"
bridge="$(swift build --show-bin-path)/fcm-bridge"

worker_log="$RUN_DIR/demo-worker.log"
"$bridge" run --config config/demo.yaml >"$worker_log" 2>&1 &
worker=$!
trap 'kill -TERM $worker 2>/dev/null; wait $worker 2>/dev/null || true' EXIT
log "bridge worker running (pid $worker, log: $worker_log)"

if ! "$bridge" demo --config config/demo.yaml; then
  tail -n 30 "$worker_log" >&2
  die "the demo did not complete"
fi
log "worker log:"
grep -E "librdkafka=|restored|dead letter|topics ready" "$worker_log" | cut -c1-220 >&2 || true
