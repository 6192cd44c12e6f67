#!/usr/bin/env bash
# Starts a local broker (left running; `scripts/broker.sh stop` stops it) and runs the main
# program against it, so a newcomer sees records flow.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

broker=$(bash "$ROOT/scripts/broker.sh" start dev)
export "${broker?}"
log "broker at $KAFKA_BOOTSTRAP_SERVERS (stop it with scripts/broker.sh stop)"
swift build --product fcm-bridge "${SWIFT_LINK_FLAGS[@]}"
"$(swift build --show-bin-path)/fcm-bridge" smoke --bootstrap-servers "$KAFKA_BOOTSTRAP_SERVERS"
