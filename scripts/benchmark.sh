#!/usr/bin/env bash
# Runs a benchmark in a release build; each reports a ratio against a baseline from the same run.
#   scripts/benchmark.sh kafka [ARGS]        the Kafka layer vs raw librdkafka (rdkafka_performance,
#                                            built from the same source) on the same broker: a
#                                            local tansu unless KAFKA_BOOTSTRAP_SERVERS names one
#   scripts/benchmark.sh translation [N]     translations/s vs a bare JSON parse-and-serialize
#   scripts/benchmark.sh memory [DEVICES [PER_DEVICE]]
#                                            RSS per waiting message vs the payload bytes alone
# ARGS go to the benchmark (e.g. kafka --messages 200000 --runs 1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

which="${1:-}"; shift || true
case "$which" in
  kafka)
    baseline="${RDKAFKA_PERFORMANCE:-$DEPS/librdkafka/bin/rdkafka_performance}"
    [ -x "$baseline" ] || die "no rdkafka_performance at $baseline (set RDKAFKA_PERFORMANCE to one linked to the same librdkafka)"
    if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
      trap 'bash "$ROOT/scripts/broker.sh" stop bench' EXIT
      broker=$(bash "$ROOT/scripts/broker.sh" start bench)
      export "${broker?}"
    fi
    swift build -c release --product KafkaBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/KafkaBenchmark" --baseline "$baseline" "$@"
    ;;
  translation)
    swift build -c release --product TranslationBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/TranslationBenchmark" "$@"
    ;;
  memory)
    swift build -c release --product MemoryBenchmark "${SWIFT_LINK_FLAGS[@]}"
    "$(swift build -c release --show-bin-path)/MemoryBenchmark" report "$@"
    ;;
  *) die "usage: $0 kafka|translation|memory [ARGS]" ;;
esac
