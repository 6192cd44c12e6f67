#!/usr/bin/env bash
# Runs a benchmark in a release build; each reports a ratio against a baseline from the same run.
#   scripts/benchmark.sh kafka [ARGS]        the Kafka layer vs raw librdkafka (rdkafka_performance,
#                                            built from the same source) on the same broker: a
#                                            local tansu unless KAFKA_BOOTSTRAP_SERVERS names one
#   scripts/benchmark.sh translation [N]     translations/s vs orjson's bare loads + dumps of the
#                                            same requests (installed into .deps/ when missing)
#   scripts/benchmark.sh translation-instructions [N1 N2]
#                                            the same in callgrind instructions per operation
#   scripts/benchmark.sh memory [DEVICES [PER_DEVICE]]
#                                            RSS per waiting message vs the payload bytes alone
#   scripts/benchmark.sh memberships [DEVICES [TOPICS]]
#                                            RSS per topic membership, both views, vs the tokens alone
#   scripts/benchmark.sh restore [ARGS]      changelog records replayed into device state per second vs
#                                            a plain read of the same changelog, on the same broker
#   scripts/benchmark.sh rows [DEVICES [ACKS [MESSAGES]]]
#                                            device rows written, read and loaded a second through
#                                            DeviceStore vs RocksDB's C API given the same bytes
#                                            (MESSAGES waiting a device, default 1)
#   scripts/benchmark.sh processing [N1 N2]  callgrind instructions per request of the worker's
#                                            processing path (decode, translate, queue, encode)
#   scripts/benchmark.sh e2e [ARGS]          the bridge end to end vs consume-produce ceilings (scripts/benchmark-e2e.sh)
#   scripts/benchmark.sh fanout [SIZES [ARGS]]
#                                            e2e, then sends to topics of SIZES members (default
#                                            10000,100000,1000000): devices reached/s vs the eos ceiling
#   scripts/benchmark.sh storm [STORMS]     unicast latency and RSS while SENDSxMEMBERS fan-outs run at once
#                                            (default 50x20000,150x20000,1x1000000), vs the quiet bridge
#   scripts/benchmark.sh rolling [ARGS]     two static members with state directories: one restarted,
#                                            then a third joining; the gaps they cause in the inbox
#                                            vs a quiet window of the same run
#   scripts/benchmark.sh served [ARGS]      memory and a restart of a worker serving its devices from
#                                            its device rows (state.devices_held) vs one holding all
#   scripts/benchmark.sh gateway [ARGS]     sends/s through `fcm-bridge gateway` (wrk, 64 keep-alive
#                                            connections) vs rdkafka_performance producing the same
#                                            bodies; p99 at 5,000/s (wrk, paced); the Admin SDK's send_each
# ARGS go to the benchmark (e.g. kafka --messages 200000 --runs 1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

# Runs the outside benchmark SCRIPT (Python, confluent-kafka) against a release `fcm-bridge` on
# the bench broker, with ARGS.
outside_benchmark() {
  local script="$1"; shift
  local python_path
  python_path="$(outside_tools_pythonpath)"
  use_local_broker_unless_given bench
  swift build -c release --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}"
  PYTHONPATH="$python_path" python3 "$script" \
    --bootstrap "$KAFKA_BOOTSTRAP_SERVERS" --binary "$(swift build -c release --show-bin-path)/fcm-bridge" "$@"
}

which="${1:-}"; shift || true
case "$which" in
  kafka)
    baseline="${RDKAFKA_PERFORMANCE:-$DEPS/librdkafka/bin/rdkafka_performance}"
    [ -x "$baseline" ] || die "no rdkafka_performance at $baseline (set RDKAFKA_PERFORMANCE to one linked to the same librdkafka)"
    use_local_broker_unless_given bench
    swift build -c release --product KafkaBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/KafkaBenchmark" --baseline "$baseline" "$@"
    ;;
  translation)
    iterations="${1:-200000}"
    requests=(Benchmarks/TranslationBenchmark/requests/v1.json Benchmarks/TranslationBenchmark/requests/legacy.json)
    python_path="$(bash "$ROOT/scripts/ensure-python.sh" orjson 'orjson>=3.8,<4')"
    swift build -c release --product TranslationBenchmark "${SWIFT_LINK_FLAGS[@]}"
    swift_rates=$("$(swift build -c release --show-bin-path)/TranslationBenchmark" "$iterations" "${requests[@]}")
    orjson_rates=$(PYTHONPATH="$python_path" python3 Benchmarks/TranslationBenchmark/orjson_baseline.py "$iterations" "${requests[@]}")
    echo "$iterations iterations each, best of 3 runs, in the same run"
    echo
    echo "| request | bytes | fcm-bridge translations/s | orjson loads+dumps/s | ratio (target >= 1) |"
    echo "|---|---|---|---|---|"
    join <(echo "$swift_rates" | sort) <(echo "$orjson_rates" | sort) \
      | awk '{ printf "| %s | %s | %s | %s | %.2f |\n", $1, $2, $3, $5, $3 / $5 }'
    ;;
  translation-instructions)
    # The same comparison in callgrind instructions, which are repeatable here where wall time
    # varies by half between runs: per translation and per orjson loads + dumps, each the
    # difference of two iteration counts (start-up left out). Instructions are not time (orjson
    # uses SIMD), but the ratio moves only when the code does.
    small="${1:-2000}"; large="${2:-4000}"
    (( large > small )) || die "translation-instructions: N2 ($large) must be larger than N1 ($small)"
    requests=(Benchmarks/TranslationBenchmark/requests/v1.json Benchmarks/TranslationBenchmark/requests/legacy.json)
    command -v valgrind >/dev/null || apt_install valgrind
    python_path="$(bash "$ROOT/scripts/ensure-python.sh" orjson 'orjson>=3.8,<4')"
    python="$(python3 -c 'import sys; print(sys.executable)')"  # not a launcher script: callgrind counts the interpreter
    swift build -c release --product TranslationBenchmark "${SWIFT_LINK_FLAGS[@]}"
    binary="$RUN_DIR/TranslationBenchmark.stripped"
    strip --strip-debug -o "$binary" "$(swift build -c release --show-bin-path)/TranslationBenchmark"
    count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/refs:/ { gsub(",", "", $NF); print $NF }'; }
    # Each program runs its loop 3 times (best of 3).
    per_operation() { echo $(( ($("$@" "$large") - $("$@" "$small")) / (3 * (large - small)) )); }
    swift_count() { count "$binary" "$2" "$1"; }
    orjson_count() { PYTHONPATH="$python_path" count "$python" Benchmarks/TranslationBenchmark/orjson_baseline.py "$2" "$1"; }
    echo "callgrind instructions per operation, $small and $large iterations, in the same run"
    echo
    echo "| request | fcm-bridge per translation | orjson per loads+dumps | ratio orjson / fcm-bridge (target >= 1) |"
    echo "|---|---|---|---|"
    for request in "${requests[@]}"; do
      swift=$(per_operation swift_count "$request"); orjson=$(per_operation orjson_count "$request")
      awk -v name="$(basename "$request" .json)" -v s="$swift" -v o="$orjson" 'BEGIN { printf "| %s | %d | %d | %.2f |\n", name, s, o, o / s }'
    done
    ;;
  memory)
    swift build -c release --product MemoryBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/MemoryBenchmark" report "$@"
    ;;
  memberships)
    swift build -c release --product MemoryBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/MemoryBenchmark" memberships "${1:-100000}" "${2:-10}"
    ;;
  e2e)
    exec bash "$ROOT/scripts/benchmark-e2e.sh" "$@"
    ;;
  fanout)
    exec bash "$ROOT/scripts/benchmark-e2e.sh" --fanout "${1:-10000,100000,1000000}" "${@:2}"
    ;;
  storm)
    exec bash "$ROOT/scripts/benchmark-e2e.sh" --storm "${1:-50x20000,150x20000,1x1000000}" "${@:2}"
    ;;
  gateway)
    baseline="${RDKAFKA_PERFORMANCE:-$DEPS/librdkafka/bin/rdkafka_performance}"
    [ -x "$baseline" ] || die "no rdkafka_performance at $baseline (set RDKAFKA_PERFORMANCE to one linked to the same librdkafka)"
    debian="$(bash scripts/ensure-deb.sh wrk libluajit2-5.1-2)"
    python_path="$(bash scripts/ensure-python.sh firebase_admin 'firebase-admin>=7.7')"
    use_local_broker_unless_given bench
    swift build -c release --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}"
    PYTHONPATH="$python_path" python3 Benchmarks/GatewayBenchmark/gateway_benchmark.py \
      --bootstrap "$KAFKA_BOOTSTRAP_SERVERS" --binary "$(swift build -c release --show-bin-path)/fcm-bridge" \
      --rdkafka-performance "$baseline" --wrk "$debian/usr/bin/wrk" \
      --library-path "$debian/usr/lib/x86_64-linux-gnu" "$@"
    ;;
  served)
    outside_benchmark Benchmarks/ServedMemory/served_memory.py "$@"
    ;;
  rolling)
    outside_benchmark Benchmarks/RollingRestart/rolling_restart.py "$@"
    ;;
  restore)
    use_local_broker_unless_given bench
    swift build -c release --product RestoreBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/RestoreBenchmark" "$@"
    ;;
  rows)
    swift build -c release --product DeviceRowsBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/DeviceRowsBenchmark" "${1:-1000000}" "${@:2}"
    ;;
  processing)
    # Instructions per request of the processing path, counted by callgrind for two request
    # counts of the same built input: the difference leaves out start-up and input building.
    small="${1:-5000}"; large="${2:-15000}"
    command -v valgrind >/dev/null || apt_install valgrind
    swift build -c release --product ProcessingBenchmark "${SWIFT_LINK_FLAGS[@]}"
    # valgrind 3.19 cannot read the debug info of some Swift binaries: count a stripped copy.
    binary="$RUN_DIR/ProcessingBenchmark.stripped"
    strip --strip-debug -o "$binary" "$(swift build -c release --show-bin-path)/ProcessingBenchmark"
    count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" 2000 "$large" 2>&1 | awk '/refs:/ { gsub(",", "", $NF); print $NF }'; }
    small_count=$(count "$small"); large_count=$(count "$large")
    echo "callgrind: $small requests $small_count instructions, $large requests $large_count instructions"
    echo "instructions per request: $(( (large_count - small_count) / (large - small) ))"
    ;;
  *) die "usage: $0 kafka|translation|translation-instructions|memory|memberships|restore|processing|e2e|fanout|storm|gateway|rolling|served [ARGS]" ;;
esac
