#!/usr/bin/env bash
# Fuzzing (issue 9), two ways:
#
#   scripts/fuzz.sh outside [--seeds 1,2] [-- fuzz.py arguments, e.g. --records 100000]
#       A running worker reads a million mutated and random records (scripts/fuzz.py), and every
#       record is accounted for from outside. A fresh local broker (name "fuzz", in memory) is
#       started and stopped here unless KAFKA_BOOTSTRAP_SERVERS names one. The worker:
#       FCM_BRIDGE_BINARY, else a release build made here. Its log: .deps/run/fuzz-<time>/.
#
#   scripts/fuzz.sh coverage [SECONDS] [-- libFuzzer arguments]
#       libFuzzer on the pure half (Fuzz/BridgeFuzzer: decoder, translator, processor, changelog
#       codec, device rows) for SECONDS (default 300), built with -sanitize=fuzzer,address in
#       .build-fuzz, starting from Fuzz/corpus and Fuzz/regressions. New inputs go to
#       .deps/fuzz-corpus; a crash is saved in .deps/run/ (copy it to Fuzz/regressions/, where the
#       suite replays it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

usage() { die "usage: $0 outside [--seeds 1,2] [-- fuzz.py arguments] | $0 coverage [SECONDS] [-- libFuzzer arguments]"; }

outside() {
  local seeds=1 python_path binary run_dir failed=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --seeds) seeds=$2; shift 2 ;;
      --) shift; break ;;
      *) usage ;;
    esac
  done
  python_path="$(outside_tools_pythonpath)"
  binary="${FCM_BRIDGE_BINARY:-$(release_product fcm-bridge)}"
  use_local_broker_unless_given fuzz
  run_dir="$RUN_DIR/fuzz-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$run_dir"
  log "broker $KAFKA_BOOTSTRAP_SERVERS; logs in $run_dir"
  for seed in ${seeds//,/ }; do
    PYTHONPATH="$python_path" timeout 3600 python3 "$ROOT/scripts/fuzz.py" --seed "$seed" --binary "$binary" \
      --run-dir "$run_dir" "$@" || failed=1
  done
  return "$failed"
}

coverage() {
  local seconds=300 scratch="$ROOT/.build-fuzz" corpus="$DEPS/fuzz-corpus"
  if [ $# -gt 0 ] && [ "$1" != "--" ]; then seconds=$1; shift; fi
  [ "${1:-}" != "--" ] || shift
  log "building BridgeFuzzer with libFuzzer and AddressSanitizer (in $scratch)"
  swift build -c release --scratch-path "$scratch" --product BridgeFuzzer "${SWIFT_LINK_FLAGS[@]}" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING >&2
  mkdir -p "$corpus"
  cd "$RUN_DIR"
  "$(swift build -c release --scratch-path "$scratch" --show-bin-path)/BridgeFuzzer" \
    -max_total_time="$seconds" -dict="$ROOT/Fuzz/json.dict" -max_len=8192 -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 "$@" "$corpus" "$ROOT/Fuzz/corpus" "$ROOT/Fuzz/regressions"
}

case "${1:-}" in
  outside) shift; outside "$@" ;;
  coverage) shift; coverage "$@" ;;
  *) usage ;;
esac
