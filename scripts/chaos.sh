#!/usr/bin/env bash
# The chaos test (issue 9): runs scripts/chaos.py for each scenario (kill, members, broker) and
# delivery mode, seeded, and prints one RESULT line per run. A fresh local broker (name "chaos", on
# durable S3 storage when the broker scenario runs, so that a restart keeps the data) is started and stopped here
# unless KAFKA_BOOTSTRAP_SERVERS names one (then without the broker scenario). The workers: the binary FCM_BRIDGE_BINARY names, else a
# release build made here. Worker logs: .deps/run/chaos-<time>/.
#
# The fanout-kills scenario is the suite's fan-out kill test, longer: a worker SIGKILLed at random
# points of FCM_BRIDGE_TEST_FANOUT_KILLS (default here 60) fan-outs to FCM_BRIDGE_TEST_FANOUT_MEMBERS
# (default here 10,000) members, restarted under its transactional id (and, where the broker
# hides aborted records, under a new one). It runs only when named: on the broker scenario's slow
# S3 storage it would take hours.
#
# The store-kills scenario is the suite's kill test of workers with a state directory, run
# FCM_BRIDGE_TEST_STORE_KILL_RUNS (default here 6) times: each run SIGKILLs a worker 10 times in
# each of exactly once, at least once and served from the device rows (180 kills by default),
# with fresh topics and traffic, and compares the stores and rows with the changelog after
# every kill. It runs only when named.
#
#   scripts/chaos.sh [--scenarios kill,members,broker|fanout-kills|store-kills] [--deliveries exactly_once,at_least_once]
#                    [--seeds 1,2,3] [-- extra chaos.py arguments]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

scenarios=kill,members,broker
deliveries=exactly_once,at_least_once
seeds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --scenarios) scenarios=$2; shift 2 ;;
    --deliveries) deliveries=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --) shift; break ;;
    *) die "usage: $0 [--scenarios kill,members,broker|fanout-kills|store-kills] [--deliveries ...] [--seeds 1,2] [-- chaos.py arguments]" ;;
  esac
done

python_path="$(outside_tools_pythonpath)"
FCM_BRIDGE_BINARY="${FCM_BRIDGE_BINARY:-$(release_product fcm-bridge)}"
storage=memory
if [[ ",$scenarios," == *,broker,* ]]; then
  [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ] || die "the broker scenario restarts the local broker it starts; unset KAFKA_BOOTSTRAP_SERVERS"
  # A broker restart must keep the data: tansu on S3 storage (a local moto server), which is much
  # slower than memory.
  storage=s3
fi
FCM_BRIDGE_BROKER_STORAGE=$storage use_local_broker_unless_given chaos
run_dir="$RUN_DIR/chaos-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$run_dir"
log "broker $KAFKA_BOOTSTRAP_SERVERS; logs in $run_dir"

failed=0
for scenario in ${scenarios//,/ }; do
  if [ "$scenario" = fanout-kills ]; then
    swift build --build-tests "${SWIFT_LINK_FLAGS[@]}"
    FCM_BRIDGE_TEST_FANOUT_KILLS="${FCM_BRIDGE_TEST_FANOUT_KILLS:-60}" \
      FCM_BRIDGE_TEST_FANOUT_MEMBERS="${FCM_BRIDGE_TEST_FANOUT_MEMBERS:-10000}" FCM_BRIDGE_TEST_FANOUT_MINUTES=40 \
      swift test --skip-build "${SWIFT_LINK_FLAGS[@]}" --filter 'FanOutTests/killedAtRandomPoints' || failed=1
    continue
  fi
  if [ "$scenario" = store-kills ]; then
    swift build --build-tests "${SWIFT_LINK_FLAGS[@]}"
    for run in $(seq "${FCM_BRIDGE_TEST_STORE_KILL_RUNS:-6}"); do
      log "store kills: run $run"
      swift test --skip-build "${SWIFT_LINK_FLAGS[@]}" --filter 'StoreKillTests' || failed=1
    done
    continue
  fi
  for delivery in ${deliveries//,/ }; do
    for seed in ${seeds//,/ }; do
      PYTHONPATH="$python_path" timeout 900 python3 "$ROOT/scripts/chaos.py" --scenario "$scenario" \
        --delivery "$delivery" --seed "$seed" --binary "$FCM_BRIDGE_BINARY" --run-dir "$run_dir" \
        --root "$ROOT" "$@" || failed=1
    done
  done
done
exit "$failed"
