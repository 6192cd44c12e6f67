#!/usr/bin/env bash
# Starts or stops a local tansu broker on a free loopback port.
#   scripts/broker.sh start [NAME]   starts broker NAME (default: dev) unless it runs, waits until it
#                                    answers, prints KAFKA_BOOTSTRAP_SERVERS=host:port
#                                    (also kept in $DEPS/run/NAME.env)
#   scripts/broker.sh stop [NAME]    stops it
# Storage is in memory: a broker restart loses everything, which is what tests want.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

NAME="${2:-dev}"
PID_FILE="$RUN_DIR/$NAME.pid"
ENV_FILE="$RUN_DIR/$NAME.env"
LOG_FILE="$RUN_DIR/$NAME.log"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

answers() { # $1: port. True once the broker accepts a TCP connection.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
  if running; then cat "$ENV_FILE"; return; fi
  local tansu port
  tansu=$(bash "$ROOT/scripts/ensure-tansu.sh")
  port=$(free_port)
  log "starting tansu ($NAME) on 127.0.0.1:$port (log: $LOG_FILE)"
  nohup "$tansu" broker \
    --listener-url "tcp://127.0.0.1:$port" \
    --advertised-listener-url "tcp://127.0.0.1:$port" \
    --storage-engine "memory://tansu/" >"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"
  for _ in $(seq 1 100); do
    if answers "$port"; then
      echo "KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:$port" >"$ENV_FILE"
      cat "$ENV_FILE"
      return
    fi
    running || break
    sleep 0.1
  done
  tail -n 20 "$LOG_FILE" >&2 || true
  stop
  die "tansu did not start"
}

stop() {
  if running; then
    local pid; pid=$(cat "$PID_FILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    log "stopped tansu ($NAME)"
  fi
  rm -f "$PID_FILE" "$ENV_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) die "usage: $0 start|stop [NAME]" ;;
esac
