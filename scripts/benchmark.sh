#!/usr/bin/env bash
# Benchmarks the Kafka layer against raw librdkafka (rdkafka_performance, built from the same
# source) on the same broker: a local tansu unless KAFKA_BOOTSTRAP_SERVERS names one.
# Extra arguments go to the benchmark (e.g. --messages 200000 --runs 1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

baseline="${RDKAFKA_PERFORMANCE:-$DEPS/librdkafka/bin/rdkafka_performance}"
[ -x "$baseline" ] || die "no rdkafka_performance at $baseline (set RDKAFKA_PERFORMANCE to one linked to the same librdkafka)"
if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
  trap 'bash "$ROOT/scripts/broker.sh" stop bench' EXIT
  broker=$(bash "$ROOT/scripts/broker.sh" start bench)
  export "${broker?}"
fi
swift build -c release --product KafkaBenchmark "${SWIFT_LINK_FLAGS[@]}"
"$(swift build -c release --show-bin-path)/KafkaBenchmark" --baseline "$baseline" "$@"
