# Shared by the scripts in this folder: paths and small helpers. Source it; do not run it.
# What the project installs lives under $DEPS (git-ignored), so a clone is self-contained, but
# for build tools and libraries taken from the distribution's packages (apt_install).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="${FCM_BRIDGE_DEPS:-$ROOT/.deps}"
RUN_DIR="$DEPS/run"
mkdir -p "$DEPS" "$RUN_DIR"

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Version "a.b.c" to a comparable integer.
version_number() {
  local IFS=.
  # shellcheck disable=SC2086
  set -- $1
  echo $(( ${1:-0} * 1000000 + ${2:-0} * 1000 + ${3:-0} ))
}

# Runs apt-get update once per script run, only when an install is needed.
apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then
    apt-get update -qq >&2 || die "apt-get update failed"
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 \
    || die "apt-get install $* failed"
}

# Unless KAFKA_BOOTSTRAP_SERVERS names a cluster, starts local broker $1 (on the storage
# FCM_BRIDGE_BROKER_STORAGE names), exports its KAFKA_BOOTSTRAP_SERVERS and stops it when the
# script exits.
use_local_broker_unless_given() {
  [ -z "${KAFKA_BOOTSTRAP_SERVERS:-}" ] || return 0
  # shellcheck disable=SC2064 # the name is fixed now
  trap "bash '$ROOT/scripts/broker.sh' stop '$1'" EXIT
  local broker
  broker=$(bash "$ROOT/scripts/broker.sh" start "$1")
  export "${broker?}"
}

# The PYTHONPATH under which the outside tools (chaos.py, fuzz.py) find their Kafka client.
outside_tools_pythonpath() {
  bash "$ROOT/scripts/ensure-python.sh" confluent_kafka 'confluent-kafka==2.16.1'
}
