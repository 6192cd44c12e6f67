#!/usr/bin/env bash
# The live demo. Starts a local broker (unless KAFKA_BOOTSTRAP_SERVERS names a cluster), builds
# fcm-bridge (unless FCM_BRIDGE_BINARY names one), starts a worker with config/demo.yaml, waits
# until its /readyz answers, then runs `fcm-bridge demo` against it: simulated devices and an app
# server, with a summary redrawn every second, until Ctrl-C. Ctrl-C (or the end of a bounded run)
# stops the demo, the worker and the broker this script started. Arguments go to
# `fcm-bridge demo`: --duration SECONDS for a bounded run that checks every request is accounted
# for, --devices N, --rate N (see `fcm-bridge demo --help`). FCM_BRIDGE_ variables configure the
# worker and the demo alike.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

started_broker=""
if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
  broker=$(bash "$ROOT/scripts/broker.sh" start dev)
  export "${broker?}"
  started_broker=dev
fi
export FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS="$KAFKA_BOOTSTRAP_SERVERS"
# Every other FCM_BRIDGE_ variable names a configuration field, for the worker and the demo.
bridge="${FCM_BRIDGE_BINARY:-}"
unset FCM_BRIDGE_BINARY
if [ -z "$bridge" ]; then
  log "building fcm-bridge (the first build takes several minutes)"
  swift build --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}" >&2
  bridge="$(swift build --show-bin-path)/fcm-bridge"
fi

worker_log="$RUN_DIR/demo-worker-$$.log"
"$bridge" run --config config/demo.yaml >"$worker_log" 2>&1 &
worker=$!
stop_all() {
  kill -TERM "$worker" 2>/dev/null && wait "$worker" 2>/dev/null || true
  if [ -n "$started_broker" ]; then bash "$ROOT/scripts/broker.sh" stop "$started_broker" || true; fi
}
trap stop_all EXIT
log "broker at $KAFKA_BOOTSTRAP_SERVERS; worker pid $worker, log $worker_log"

address=""
for _ in $(seq 1 900); do  # 90 s: a new group's first assignment and restore
  kill -0 "$worker" 2>/dev/null || { tail -n 30 "$worker_log" >&2; die "the worker stopped"; }
  [ -n "$address" ] || address=$(grep -m1 'http endpoints listening' "$worker_log" | grep -o 'address=[^ ]*' | cut -d= -f2 || true)
  if [ -n "$address" ] && curl -sf "http://$address/readyz" >/dev/null; then break; fi
  sleep 0.1
done
curl -sf "http://$address/readyz" >/dev/null || { tail -n 30 "$worker_log" >&2; die "the worker did not become ready within 90 s"; }
log "worker ready; its metrics: http://$address/metrics"

"$bridge" demo --config config/demo.yaml "$@"
