#!/usr/bin/env bash
# The live demo. Starts a local broker (unless KAFKA_BOOTSTRAP_SERVERS names a cluster), builds
# fcm-bridge (unless FCM_BRIDGE_BINARY names one), starts a worker with config/demo.yaml, waits
# until its /readyz answers, then runs `fcm-bridge demo` against it: simulated devices and an app
# server, with a summary redrawn every second, until Ctrl-C. Ctrl-C (or the end of a bounded run)
# stops the demo, the worker and the broker this script started. Arguments go to
# `fcm-bridge demo`: --duration SECONDS for a bounded run that checks every request is accounted
# for, --devices N, --rate N (see `fcm-bridge demo --help`). FCM_BRIDGE_ variables configure the
# worker and the demo alike; DEMO_BROKER names the local broker (default: dev).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

broker_name="${DEMO_BROKER:-dev}"
started_broker=""
worker=""
demo=""
interrupted=""
# Stops what this script started, the demo first and the broker last; a broker that was running
# before is left running. After a Ctrl-C the demo and the worker got their own SIGINT and are
# finishing: a second signal would cut that short, so they are only waited for.
stop_all() {
  trap - EXIT INT TERM
  if [ -n "$demo" ]; then
    [ -n "$interrupted" ] || kill -TERM "$demo" 2>/dev/null || true
    wait "$demo" 2>/dev/null || true
  fi
  if [ -n "$worker" ]; then
    [ -n "$interrupted" ] || kill -TERM "$worker" 2>/dev/null || true
    wait "$worker" 2>/dev/null || true
  fi
  [ -z "$started_broker" ] || bash "$ROOT/scripts/broker.sh" stop "$started_broker" || true
}
on_interrupt() {
  interrupted=1
  [ -n "$demo" ] || exit 130
}
trap stop_all EXIT
trap on_interrupt INT
trap 'exit 143' TERM

bridge="${FCM_BRIDGE_BINARY:-}"
unset FCM_BRIDGE_BINARY
# Before the broker's address is exported: SwiftPM loads every package manifest again (about
# 13 s) when the environment differs from its last build's, and the address differs each run.
if [ -z "$bridge" ]; then
  log "building fcm-bridge (the first build takes several minutes)"
  swift build --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}" >&2
  bridge="$(swift build --show-bin-path)/fcm-bridge"
fi

if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
  [ -f "$RUN_DIR/$broker_name.pid" ] && kill -0 "$(cat "$RUN_DIR/$broker_name.pid")" 2>/dev/null || started_broker="$broker_name"
  broker=$(bash "$ROOT/scripts/broker.sh" start "$broker_name")
  export "${broker?}"
fi
# Every other FCM_BRIDGE_ variable names a configuration field, for the worker and the demo.
export FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS="$KAFKA_BOOTSTRAP_SERVERS"

worker_log="$RUN_DIR/demo-worker-$$.log"
"$bridge" run --config config/demo.yaml >"$worker_log" 2>&1 &
worker=$!
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

# In the background, so that SIGTERM to this script is passed on at once (by stop_all). A
# Ctrl-C reaches the demo directly; its final summary is waited for.
"$bridge" demo --config config/demo.yaml "$@" &
demo=$!
status=0
while :; do
  wait "$demo" && status=0 || status=$?
  kill -0 "$demo" 2>/dev/null || break  # else a trapped signal ended the wait, not the demo
done
demo=""
exit "$status"
