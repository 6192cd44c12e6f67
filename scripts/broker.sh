#!/usr/bin/env bash
# Starts or stops a local tansu broker on a free loopback port.
#   scripts/broker.sh start [NAME]   starts broker NAME (default: dev) unless it runs, waits until it
#                                    answers, prints KAFKA_BOOTSTRAP_SERVERS=host:port
#                                    (also kept in $DEPS/run/NAME.env)
#   scripts/broker.sh stop [NAME]    stops it (and its S3 server)
#   scripts/broker.sh restart [NAME] [SECONDS]
#                                    stops the broker (SIGTERM), waits, starts it again on the same
#                                    port and storage: with durable storage, nothing is lost
# Storage is in memory (a restart loses everything, which is what tests want) unless
# FCM_BRIDGE_BROKER_STORAGE=s3 at start: then tansu keeps its data in a bucket of a local S3
# server (moto, installed from PyPI into $DEPS/python), which outlives broker restarts.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

NAME="${2:-dev}"
PID_FILE="$RUN_DIR/$NAME.pid"
ENV_FILE="$RUN_DIR/$NAME.env"
LOG_FILE="$RUN_DIR/$NAME.log"
PORT_FILE="$RUN_DIR/$NAME.port"
S3_PID_FILE="$RUN_DIR/$NAME-s3.pid"
S3_ENV_FILE="$RUN_DIR/$NAME-s3.env"

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

answers() { # $1: port. True once the broker accepts a TCP connection.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Starts a moto S3 server with a bucket for tansu; writes tansu's AWS settings to $S3_ENV_FILE.
start_s3() {
  local python_path port
  python_path=$(bash "$ROOT/scripts/ensure-python.sh" moto 'moto[server]==5.2.5')
  port=$(free_port)
  PYTHONPATH="$python_path" setsid nohup python3 -m moto.server -H 127.0.0.1 -p "$port" >"$RUN_DIR/$NAME-s3.log" 2>&1 &
  echo $! >"$S3_PID_FILE"
  for _ in $(seq 1 100); do answers "$port" && break; sleep 0.1; done
  curl -sf -X PUT "http://127.0.0.1:$port/tansu" >/dev/null || die "creating the S3 bucket failed"
  printf '%s\n' "AWS_ENDPOINT=http://127.0.0.1:$port" AWS_ALLOW_HTTP=true AWS_ACCESS_KEY_ID=test \
    AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 >"$S3_ENV_FILE"
}

# Runs tansu on $1, in memory or, with $S3_ENV_FILE, on the S3 bucket.
launch() {
  local tansu port=$1 storage="memory://tansu/"
  tansu=$(bash "$ROOT/scripts/ensure-tansu.sh")
  log "starting tansu ($NAME) on 127.0.0.1:$port (log: $LOG_FILE)"
  (
    if [ -f "$S3_ENV_FILE" ]; then
      set -a; source "$S3_ENV_FILE"; set +a
      storage="s3://tansu/"
    fi
    # A session of its own: a Ctrl-C meant for the script that started it (the demo) does not
    # reach the broker, which that script stops last.
    exec setsid nohup "$tansu" broker \
      --listener-url "tcp://127.0.0.1:$port" \
      --advertised-listener-url "tcp://127.0.0.1:$port" \
      --storage-engine "$storage" >>"$LOG_FILE" 2>&1
  ) &
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

start() {
  if running; then cat "$ENV_FILE"; return; fi
  local port
  port=$(free_port)
  echo "$port" >"$PORT_FILE"
  : >"$LOG_FILE"
  rm -f "$S3_ENV_FILE"
  if [ "${FCM_BRIDGE_BROKER_STORAGE:-memory}" = s3 ]; then start_s3; fi
  launch "$port"
}

# Stops tansu only, as SIGTERM does.
halt() {
  if running; then
    local pid; pid=$(cat "$PID_FILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    log "stopped tansu ($NAME)"
  fi
  rm -f "$PID_FILE"
}

restart() {
  [ -f "$PORT_FILE" ] || die "broker $NAME was never started"
  halt
  sleep "${1:-0}"
  launch "$(cat "$PORT_FILE")" >/dev/null
}

stop() {
  halt
  if [ -f "$S3_PID_FILE" ]; then
    kill "$(cat "$S3_PID_FILE")" 2>/dev/null || true
    log "stopped the S3 server ($NAME)"
  fi
  rm -f "$ENV_FILE" "$PORT_FILE" "$S3_PID_FILE" "$S3_ENV_FILE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) restart "${3:-0}" ;;
  *) die "usage: $0 start|stop|restart [NAME] [SECONDS]" ;;
esac
