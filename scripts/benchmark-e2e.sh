#!/usr/bin/env bash
# The end-to-end benchmark: the release `fcm-bridge run` process against two ceilings measured in
# the same run on the same broker, small C programs linked to the same librdkafka
# (Benchmarks/EndToEnd):
#   plain ceiling  consume the send topic and produce each record to another topic, nothing else
#   eos ceiling    the same, writing as many records per input as the bridge did on this workload
#                  (counted in the bridge's run) in one transaction per 100 ms with the input offsets,
#                  its producer lingering as long as the bridge's does in exactly-once mode; measured
#                  twice: reading the send topic alone, and reading the bridge's inputs (the send
#                  topic and two idle topics standing for its presence and repartition topics)
#   bridge         D devices, half of them connected through presence first, then N requests (a mix
#                  of HTTP v1, legacy notification and legacy data-only, ~300 bytes) produced as fast
#                  as one producer can, timed until each has its `queued` or `dispatched` status
#                  ; then 200 subscription requests of 1,000 devices each, timed until each
#                  device has its `subscribed` status (token changes/s, against the eos ceiling)
#                  ; with --fanout SIZES (e.g. 10000,100000,1000000), for each size M: M devices
#                  subscribed to a topic of their own, half of the largest size connected first,
#                  then one send to the topic, timed until each member has its `queued` or
#                  `dispatched` status (devices reached/s, against the eos ceiling)
# With --storm SxM[,SxM...] (e.g. 50x20000,150x20000,1x1000000) it runs, instead of all that, the
# bridge alone under fan-out storms: for each, M devices subscribed to a topic of their own and
# online, unicasts to other online devices (20/s) timed from produce to inbox record for 3 s on
# the quiet bridge (the baseline), then S sends to the topic at once with the unicasts going on
# until every member has its status for every send; the bridge's RSS is sampled every 50 ms.
# For each: msgs/s, latency from a send's timestamp to its inbox (output) record being readable, for
# online devices, at a fixed rate and (but for the ceiling on the bridge's inputs) at half the path's
# own throughput, CPU of the process and of the broker over the throughput phase, RSS at the end.
# Each path runs on fresh topics.
#
#   scripts/benchmark-e2e.sh [--devices 20000] [--requests 200000] [--latency-rate 2000]
#                            [--latency-seconds 10] [--partitions 4] [--fanout M1,M2,...]
#   scripts/benchmark-e2e.sh --storm S1xM1,S2xM2,... [--partitions 4]
#
# The broker: a local tansu started here (and stopped at the end) unless KAFKA_BOOTSTRAP_SERVERS
# names one; on a real cluster the topics (prefix e2e-<run id>) are left behind. The bridge: the
# binary FCM_BRIDGE_BINARY names, else a release build made here. Other FCM_BRIDGE_* variables (e.g.
# SASL settings) reach the bridge. Logs and raw results: .deps/run/e2e-<run id>/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

DEVICES=20000
REQUESTS=200000
LATENCY_RATE=2000
LATENCY_SECONDS=10
PARTITIONS=4
# Subscription requests of 1,000 devices each, after the sends: each device joins 10 topics.
SUBSCRIPTION_REQUESTS=200
FANOUT_SIZES=() # topic sizes to fan out to, after the subscriptions (none by default)
STORMS=()       # SENDSxMEMBERS storms to run instead of the end-to-end paths
STEP_TIMEOUT=300 # seconds any one step may take
COMMIT_INTERVAL_MS=100
# The bridge's producer lingers this long in exactly-once mode (BridgeConfiguration.workerProducer).
EOS_LINGER_MS=$(( COMMIT_INTERVAL_MS < 100 ? COMMIT_INTERVAL_MS : 100 ))

usage() { die "usage: $0 [--devices D] [--requests N] [--latency-rate R] [--latency-seconds S] [--partitions P] [--fanout M1,M2,...] | --storm S1xM1,..."; }
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  if [ "$1" = --fanout ]; then
    [[ "$2" =~ ^[1-9][0-9]*000(,[1-9][0-9]*000)*$ ]] || die "--fanout wants sizes in whole thousands, like 10000,100000, got '$2'"
    IFS=, read -ra FANOUT_SIZES <<<"$2"
    shift 2
    continue
  fi
  if [ "$1" = --storm ]; then
    [[ "$2" =~ ^[1-9][0-9]*x[1-9][0-9]*000(,[1-9][0-9]*x[1-9][0-9]*000)*$ ]] \
      || die "--storm wants SENDSxMEMBERS with members in whole thousands, like 50x20000,1x1000000, got '$2'"
    IFS=, read -ra STORMS <<<"$2"
    shift 2
    continue
  fi
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 wants a positive whole number, got '$2'"
  case "$1" in
    --devices) DEVICES=$2 ;;
    --requests) REQUESTS=$2 ;;
    --latency-rate) LATENCY_RATE=$2 ;;
    --latency-seconds) LATENCY_SECONDS=$2 ;;
    --partitions) PARTITIONS=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[ "$DEVICES" -ge 2 ] || die "--devices must be at least 2"
# Requests go round-robin over the devices; an offline device holds at most 100 (queue.max_pending)
# before the bridge discards its queue, and then not every request would get its status.
per_device=$(( (REQUESTS + DEVICES - 1) / DEVICES ))
[ "$per_device" -le 100 ] || die "$REQUESTS requests over $DEVICES devices is $per_device per device, over queue.max_pending (100)"

RUN_ID="$(date +%Y%m%d-%H%M%S)-$$"
WORK="$RUN_DIR/e2e-$RUN_ID"
BENCH_BIN="$DEPS/bench"
mkdir -p "$WORK" "$BENCH_BIN"

# ---- processes: everything started here is stopped on every exit path --------------------------

STARTED=()        # pids of the bridge / ceilings still running
STARTED_BROKER="" # set when this script started the broker

# Stops one process: SIGTERM, then SIGKILL after 30 s. Returns its exit status.
stop_process() { # $1: pid, $2: name
  local pid=$1 name=$2 rc=0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "warning: $name (pid $pid) did not stop within 30 s of SIGTERM: killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || rc=$?
  local kept=()
  for p in ${STARTED[@]+"${STARTED[@]}"}; do [ "$p" = "$pid" ] || kept+=("$p"); done
  STARTED=(${kept[@]+"${kept[@]}"})
  return "$rc"
}

cleanup() {
  local status=$?
  for pid in ${STARTED[@]+"${STARTED[@]}"}; do stop_process "$pid" "process" || true; done
  if [ -n "$STARTED_BROKER" ]; then bash "$ROOT/scripts/broker.sh" stop bench || true; fi
  [ "$status" -eq 0 ] || log "failed; logs in $WORK"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- the C programs ----------------------------------------------------------------------------

compile() { # $1: program name; rebuilt when its source, the header or the compile command changed
  local source="Benchmarks/EndToEnd/$1.c" output="$BENCH_BIN/$1"
  local cflags libs rpath=()
  read -ra cflags <<<"$(pkg-config --cflags rdkafka)"
  read -ra libs <<<"$(pkg-config --libs rdkafka)"
  [ -z "${RDKAFKA_LIBDIR:-}" ] || rpath=("-Wl,-rpath,$RDKAFKA_LIBDIR")
  local command=(gcc -O2 -g -std=gnu11 -Wall -Wextra -Wno-ignored-qualifiers ${cflags[@]+"${cflags[@]}"} -o "$output"
                 "$source" ${libs[@]+"${libs[@]}"} -lpthread -lm ${rpath[@]+"${rpath[@]}"})
  if [ -x "$output" ] && [ "$output" -nt "$source" ] && [ "$output" -nt Benchmarks/EndToEnd/e2e_common.h ] \
     && [ "$(cat "$output.command" 2>/dev/null)" = "${command[*]}" ]; then
    return
  fi
  log "compiling $source"
  rm -f "$output" "$output.command"
  "${command[@]}" || die "compiling $source failed"
  printf '%s' "${command[*]}" >"$output.command"
}
compile e2e_driver
compile e2e_ceiling
DRIVER="$BENCH_BIN/e2e_driver"
CEILING="$BENCH_BIN/e2e_ceiling"

# ---- the bridge binary and the broker ----------------------------------------------------------

if [ -n "${FCM_BRIDGE_BINARY:-}" ]; then
  BRIDGE="$FCM_BRIDGE_BINARY"
else
  swift build -c release --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}"
  BRIDGE="$(swift build -c release --show-bin-path)/fcm-bridge"
fi
[ -x "$BRIDGE" ] || die "no fcm-bridge binary at $BRIDGE"

BROKER_PID=""
if [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ]; then
  if [ -f "$RUN_DIR/bench.pid" ] && kill -0 "$(cat "$RUN_DIR/bench.pid")" 2>/dev/null; then
    log "warning: the bench broker runs already; using it (its CPU figures include whatever else uses it)"
  else
    STARTED_BROKER=1
  fi
  broker=$(bash "$ROOT/scripts/broker.sh" start bench)
  export "${broker?}"
  BROKER_PID=$(cat "$RUN_DIR/bench.pid")
  BROKER_NAME="local tansu (pid $BROKER_PID)"
else
  BROKER_NAME="$KAFKA_BOOTSTRAP_SERVERS"
fi
export KAFKA_BOOTSTRAP_SERVERS
log "run $RUN_ID: $DEVICES devices, $REQUESTS requests, $PARTITIONS partitions, broker $BROKER_NAME, bridge $BRIDGE"

# ---- steps -------------------------------------------------------------------------------------

declare -A R # results: R[<step>.<name>] from the RESULT lines of each step

# Runs one e2e_driver step, its RESULT lines stored as R[<step>.<name>]. Fails at once when the
# process under test ($2, a pid, or "-") exits meanwhile.
step() { # $1: step name, $2: pid under test or -, then the driver's arguments
  local name=$1 watched=$2 rc=0
  shift 2
  local output="$WORK/$name.result"
  timeout --kill-after=10 $((STEP_TIMEOUT + 60)) "$DRIVER" "$@" --timeout-seconds "$STEP_TIMEOUT" >"$output" &
  local driver=$!
  STARTED+=("$driver")
  while kill -0 "$driver" 2>/dev/null; do
    if [ "$watched" != "-" ] && ! kill -0 "$watched" 2>/dev/null; then
      stop_process "$driver" "the driver" || true
      die "step $name: the process under test (pid $watched) exited; see the logs in $WORK"
    fi
    sleep 0.2
  done
  stop_process "$driver" "the driver" || rc=$?
  [ "$rc" -eq 0 ] || die "step $name failed (exit $rc); results so far in $output"
  local key value
  while IFS='=' read -r key value; do
    R["$name.${key#RESULT }"]=$value
  done < <(grep '^RESULT ' "$output")
  sed "s/^RESULT /$name./" "$output" >>"$WORK/results.txt"
}

watch_args() { # $1: name, $2: pid of the process under test
  printf -- '--watch-pid\n%s=%s\n' "$1" "$2"
  [ -z "$BROKER_PID" ] || printf -- '--watch-pid\nbroker=%s\n' "$BROKER_PID"
}

rss_mib() { # $1: pid; resident set size in MiB
  awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"
}

wait_ready() { # $1: ready file, $2: pid, $3: log
  for _ in $(seq 1 600); do
    [ -f "$1" ] && return
    kill -0 "$2" 2>/dev/null || { tail -n 20 "$3" >&2; die "the ceiling exited before joining its group (log: $3)"; }
    sleep 0.1
  done
  tail -n 20 "$3" >&2
  die "the ceiling did not get its partitions within 60 s (log: $3)"
}

# Starts a ceiling on fresh topics; sets CEILING_PID, IN, OUT.
start_ceiling() { # $1: step name, $2: mode, $3: idle topics read besides the input, then extra options
  local name=$1 mode=$2 idle=$3
  shift 3
  local prefix="e2e-$RUN_ID.$name" topics
  IN="$prefix.in" OUT="$prefix.out" topics="$prefix.in,$prefix.out"
  local extra=() i
  if [ "$mode" != plain ]; then
    topics="$topics,$prefix.extra"
    extra=(--extra-topic "$prefix.extra")
  fi
  for i in $(seq 1 "$idle"); do
    topics="$topics,$prefix.idle$i"
    extra+=(--idle-topic "$prefix.idle$i")
  done
  step "$name.topics" - create-topics --topics "$topics" --partitions "$PARTITIONS"
  "$CEILING" --mode "$mode" --input "$IN" --output "$OUT" --group "$prefix" ${extra[@]+"${extra[@]}"} "$@" \
    --ready-file "$WORK/$name.ready" --max-seconds 3600 >"$WORK/$name.ceiling.result" 2>"$WORK/$name.ceiling.log" &
  CEILING_PID=$!
  STARTED+=("$CEILING_PID")
  wait_ready "$WORK/$name.ready" "$CEILING_PID" "$WORK/$name.ceiling.log"
}

stop_ceiling() { # $1: step name
  R["$1.rss_mib"]=$(rss_mib "$CEILING_PID")
  stop_process "$CEILING_PID" "the $1 ceiling" || die "the $1 ceiling failed; see $WORK/$1.ceiling.log"
}

half() { awk -v r="$1" 'BEGIN { h = int(r / 2); print (h < 1 ? 1 : h) }'; }

throughput_args=(--requests "$REQUESTS" --devices "$DEVICES")
latency_args=(--devices "$DEVICES" --seconds "$LATENCY_SECONDS")

# 1. The plain ceiling's throughput.
if [ ${#STORMS[@]} -eq 0 ]; then
  log "1/5 plain ceiling: throughput"
  start_ceiling plain plain 0
  mapfile -t watch < <(watch_args ceiling "$CEILING_PID")
  step plain.throughput "$CEILING_PID" throughput --send-topic "$IN" --done-topic "$OUT" --done-filter all \
    "${throughput_args[@]}" "${watch[@]}"
  stop_ceiling plain
fi

# 2. The bridge: presence first, then throughput (counting what it writes per request), then latency.
log "2/5 bridge: presence, throughput, latency"
group="e2e-$RUN_ID.bridge"
b="$group"
step bridge.topics - create-topics --topics "$b.send,$b.presence,$b.inbox,$b.status,$b.dlq,$b.subscriptions" \
  --partitions "$PARTITIONS"
env -u FCM_BRIDGE_BINARY -u FCM_BRIDGE_DEPS \
  FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS="$KAFKA_BOOTSTRAP_SERVERS" \
  FCM_BRIDGE_KAFKA_GROUP_ID="$group" \
  FCM_BRIDGE_TOPICS_SEND="$b.send" FCM_BRIDGE_TOPICS_PRESENCE="$b.presence" FCM_BRIDGE_TOPICS_INBOX="$b.inbox" \
  FCM_BRIDGE_TOPICS_STATUS="$b.status" FCM_BRIDGE_TOPICS_DEAD_LETTERS="$b.dlq" \
  FCM_BRIDGE_TOPICS_SUBSCRIPTIONS="$b.subscriptions" \
  FCM_BRIDGE_TOPICS_PARTITIONS="$PARTITIONS" FCM_BRIDGE_DELIVERY=exactly_once \
  FCM_BRIDGE_COMMIT_INTERVAL_MS="$COMMIT_INTERVAL_MS" \
  "$BRIDGE" run --config config/benchmark.yaml >"$WORK/bridge.log" 2>&1 &
BRIDGE_PID=$!
STARTED+=("$BRIDGE_PID")
step bridge.presence "$BRIDGE_PID" presence --topic "$b.presence" --group "$group" --devices "$DEVICES"
mapfile -t watch < <(watch_args bridge "$BRIDGE_PID")
if [ ${#STORMS[@]} -gt 0 ]; then
  PROBES=100
  for storm in "${STORMS[@]}"; do
    sends=${storm%x*} members=${storm#*x}
    log "storm: $sends sends to $members members at once"
    # Presence connects the first half of --devices: the members, then the probes' devices.
    step "storm.$storm.presence" "$BRIDGE_PID" presence --topic "$b.presence" --group "$group" \
      --devices $((2 * (members + PROBES)))
    step "storm.$storm.subscriptions" "$BRIDGE_PID" throughput --send-topic "$b.subscriptions" \
      --done-topic "$b.status" --done-filter status --subscriptions 1000 --requests $((members / 1000)) \
      --devices "$members" --topic-name "storm-$storm"
    step "storm.$storm" "$BRIDGE_PID" storm --send-topic "$b.send" --done-topic "$b.status" --inbox-topic "$b.inbox" \
      --topic-name "storm-$storm" --members "$members" --sends "$sends" --probes "$PROBES" --rate 20 --seconds 3 \
      "${watch[@]}"
  done
  stop_process "$BRIDGE_PID" "the bridge" || die "the bridge failed; see $WORK/bridge.log"
  {
    echo
    echo "Storm benchmark $RUN_ID: $PARTITIONS partitions, broker $BROKER_NAME, $(nproc) cores"
    echo "unicasts at 20/s to online devices in no topic, produce to inbox record, ms p50 / p99 / max"
    echo
    printf '%-16s %24s %24s %10s %14s %14s\n' storm "quiet" "during the storm" "seconds" "copies/s" "RSS MiB"
    for storm in "${STORMS[@]}"; do
      s="storm.$storm"
      printf '%-16s %24s %24s %10s %14s %14s\n' "$storm" \
        "${R[$s.quiet.p50_ms]} / ${R[$s.quiet.p99_ms]} / ${R[$s.quiet.max_ms]}" \
        "${R[$s.storm.p50_ms]} / ${R[$s.storm.p99_ms]} / ${R[$s.storm.max_ms]}" "${R[$s.seconds]}" \
        "${R[$s.copies_per_s]}" "${R[$s.rss_before_mib]} +${R[$s.rss_growth_mib]}"
    done
    echo "raw results: $WORK/results.txt"
  } | tee "$WORK/summary.txt"
  exit 0
fi
step bridge.throughput "$BRIDGE_PID" throughput --send-topic "$b.send" --done-topic "$b.status" --done-filter status \
  "${throughput_args[@]}" "${watch[@]}" \
  --count-topics "$b.inbox,$b.status,$group.device-state-changelog,$group.device-repartition,$b.dlq"
K=${R[bridge.throughput.records_per_input]}
step bridge.latency "$BRIDGE_PID" latency --send-topic "$b.send" --latency-topic "$b.inbox" --rate "$LATENCY_RATE" \
  "${latency_args[@]}"
BRIDGE_HALF=$(half "${R[bridge.throughput.msgs_per_s]}")
step bridge.latency_half "$BRIDGE_PID" latency --send-topic "$b.send" --latency-topic "$b.inbox" --rate "$BRIDGE_HALF" \
  "${latency_args[@]}"
step bridge.subscriptions "$BRIDGE_PID" throughput --send-topic "$b.subscriptions" --done-topic "$b.status" \
  --done-filter status --subscriptions 1000 --requests "$SUBSCRIPTION_REQUESTS" --devices "$DEVICES" "${watch[@]}"
if [ ${#FANOUT_SIZES[@]} -gt 0 ]; then
  largest=$(printf '%s\n' "${FANOUT_SIZES[@]}" | sort -n | tail -1)
  step bridge.fanout_presence "$BRIDGE_PID" presence --topic "$b.presence" --group "$group" --devices "$largest"
  for size in "${FANOUT_SIZES[@]}"; do
    log "fan-out to $size members"
    step "bridge.fanout_subscriptions.$size" "$BRIDGE_PID" throughput --send-topic "$b.subscriptions" \
      --done-topic "$b.status" --done-filter status --subscriptions 1000 --requests $((size / 1000)) \
      --devices "$size" --topic-name "fan-$size" "${watch[@]}"
    step "bridge.fanout.$size" "$BRIDGE_PID" fanout --send-topic "$b.send" --done-topic "$b.status" \
      --topic-name "fan-$size" --members "$size" "${watch[@]}"
  done
fi
R[bridge.rss_mib]=$(rss_mib "$BRIDGE_PID")
stop_process "$BRIDGE_PID" "the bridge" || die "the bridge failed; see $WORK/bridge.log"

# 3. The exactly-once ceiling, writing K records per request as the bridge did.
log "3/5 eos ceiling ($K records per request): throughput, latency"
eos_options=(--outputs-per-input "$K" --commit-interval-ms "$COMMIT_INTERVAL_MS" --linger-ms "$EOS_LINGER_MS")
start_ceiling eos eos 0 "${eos_options[@]}"
mapfile -t watch < <(watch_args ceiling "$CEILING_PID")
step eos.throughput "$CEILING_PID" throughput --send-topic "$IN" --done-topic "$OUT" --done-filter all \
  "${throughput_args[@]}" "${watch[@]}"
step eos.latency "$CEILING_PID" latency --send-topic "$IN" --latency-topic "$OUT" --rate "$LATENCY_RATE" "${latency_args[@]}"
EOS_HALF=$(half "${R[eos.throughput.msgs_per_s]}")
step eos.latency_half "$CEILING_PID" latency --send-topic "$IN" --latency-topic "$OUT" --rate "$EOS_HALF" "${latency_args[@]}"
stop_ceiling eos

# 4. The exactly-once ceiling again, reading what the bridge reads: the send topic and two idle
#    topics of as many partitions, as the bridge reads its presence and repartition topics while
#    only requests arrive. Where each partition of a fetch costs the broker time whether or not it
#    has records (tansu), this is part of the latency of any reader of the bridge's inputs. The
#    throughput load goes through first, as for the other latency steps.
log "4/5 eos ceiling on the bridge's inputs: throughput, latency"
start_ceiling eos_inputs eos 2 "${eos_options[@]}"
mapfile -t watch < <(watch_args ceiling "$CEILING_PID")
step eos_inputs.throughput "$CEILING_PID" throughput --send-topic "$IN" --done-topic "$OUT" --done-filter all \
  "${throughput_args[@]}" "${watch[@]}"
step eos_inputs.latency "$CEILING_PID" latency --send-topic "$IN" --latency-topic "$OUT" --rate "$LATENCY_RATE" "${latency_args[@]}"
stop_ceiling eos_inputs

# 5. The plain ceiling's latency, on fresh topics. The throughput load goes through first, so that
#    its topics hold as many records as the others' did when their latency was measured (on tansu,
#    produce and fetch slow down as a partition grows); it is a second sample of its throughput too.
log "5/5 plain ceiling: throughput again, latency"
start_ceiling plain_latency plain 0
mapfile -t watch < <(watch_args ceiling "$CEILING_PID")
step plain.throughput2 "$CEILING_PID" throughput --send-topic "$IN" --done-topic "$OUT" --done-filter all \
  "${throughput_args[@]}" "${watch[@]}"
step plain.latency "$CEILING_PID" latency --send-topic "$IN" --latency-topic "$OUT" --rate "$LATENCY_RATE" "${latency_args[@]}"
stop_ceiling plain_latency

# ---- summary -----------------------------------------------------------------------------------

get() { echo "${R[$1]:--}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
latency_cell() { # $1: step
  if [ -n "${R[$1.p50_ms]:-}" ]; then
    printf '%s / %s / %s' "${R[$1.p50_ms]}" "${R[$1.p99_ms]}" "${R[$1.max_ms]}"
  else
    printf '-'
  fi
}
cpu_cell() { # $1: step, $2: process name
  printf '%s s / %s s' "$(get "$1.cpu_seconds.$2")" "$(get "$1.cpu_seconds.broker")"
}

{
  echo
  echo "End-to-end benchmark $RUN_ID: $DEVICES devices (half online), $REQUESTS requests of ~$(get bridge.throughput.request_bytes) bytes, $PARTITIONS partitions"
  echo "broker: $BROKER_NAME; bridge: $BRIDGE; $(nproc) cores"
  echo "latency: send timestamp to output readable, online devices, ms p50 / p99 / max; at $LATENCY_RATE/s and at half the path's own rate"
  echo
  printf '%-22s %9s %24s %9s %24s %22s %8s\n' "path" "msgs/s" "latency @ $LATENCY_RATE/s" "half rate" "latency @ half rate" "CPU process / broker" "RSS MiB"
  printf '%-22s %9s %24s %9s %24s %22s %8s\n' "plain ceiling" "$(get plain.throughput.msgs_per_s)" "$(latency_cell plain.latency)" \
    "-" "-" "$(cpu_cell plain.throughput ceiling)" "$(get plain.rss_mib)"
  printf '%-22s %9s %24s %9s %24s %22s %8s\n' "eos ceiling (K=$(printf '%.2f' "$K"))" "$(get eos.throughput.msgs_per_s)" "$(latency_cell eos.latency)" \
    "$EOS_HALF" "$(latency_cell eos.latency_half)" "$(cpu_cell eos.throughput ceiling)" "$(get eos.rss_mib)"
  printf '%-22s %9s %24s %9s %24s %22s %8s\n' "eos, bridge's inputs" "$(get eos_inputs.throughput.msgs_per_s)" \
    "$(latency_cell eos_inputs.latency)" "-" "-" "$(cpu_cell eos_inputs.throughput ceiling)" "$(get eos_inputs.rss_mib)"
  printf '%-22s %9s %24s %9s %24s %22s %8s\n' "bridge" "$(get bridge.throughput.msgs_per_s)" "$(latency_cell bridge.latency)" \
    "$BRIDGE_HALF" "$(latency_cell bridge.latency_half)" "$(cpu_cell bridge.throughput bridge)" "$(get bridge.rss_mib)"
  echo
  echo "bridge / eos ceiling:   $(ratio "$(get bridge.throughput.msgs_per_s)" "$(get eos.throughput.msgs_per_s)")"
  echo "bridge / plain ceiling: $(ratio "$(get bridge.throughput.msgs_per_s)" "$(get plain.throughput.msgs_per_s)")"
  echo "subscriptions: $(get bridge.subscriptions.msgs_per_s) token changes/s ($SUBSCRIPTION_REQUESTS requests of 1,000);" \
    "/ eos ceiling: $(ratio "$(get bridge.subscriptions.msgs_per_s)" "$(get eos.throughput.msgs_per_s)")" \
    "(bridge CPU $(get bridge.subscriptions.cpu_seconds.bridge) s)"
  for size in ${FANOUT_SIZES[@]+"${FANOUT_SIZES[@]}"}; do
    echo "fan-out to $size members (half online): $(get "bridge.fanout.$size.msgs_per_s") devices/s in" \
      "$(get "bridge.fanout.$size.seconds") s / eos ceiling: $(ratio "$(get "bridge.fanout.$size.msgs_per_s")" "$(get eos.throughput.msgs_per_s)")" \
      "(bridge CPU $(get "bridge.fanout.$size.cpu_seconds.bridge") s; subscribing them: $(get "bridge.fanout_subscriptions.$size.msgs_per_s") token changes/s)"
  done
  printf 'records the bridge wrote per request: %s inbox, %s status, %s changelog, %s repartition, %s dead letters = %s\n' \
    "$(get "bridge.throughput.per_input.$b.inbox")" "$(get "bridge.throughput.per_input.$b.status")" \
    "$(get "bridge.throughput.per_input.$group.device-state-changelog")" \
    "$(get "bridge.throughput.per_input.$group.device-repartition")" "$(get "bridge.throughput.per_input.$b.dlq")" "$K"
  echo "plain ceiling, second throughput sample (step 5): $(get plain.throughput2.msgs_per_s) msgs/s"
  echo "presence: the bridge took in $(get bridge.presence.devices) connects within $(get bridge.presence.seconds) s of the first"
  echo "CPU is over each throughput phase (first send to the last answer read); the driver itself used" \
    "$(get plain.throughput.cpu_seconds.driver) / $(get eos.throughput.cpu_seconds.driver) / $(get eos_inputs.throughput.cpu_seconds.driver) /" \
    "$(get bridge.throughput.cpu_seconds.driver) s (plain / eos / eos on the bridge's inputs / bridge)"
  echo "raw results: $WORK/results.txt"
} | tee "$WORK/summary.txt"
