#!/usr/bin/env bash
# Makes promtool (Prometheus' rule checker) available: the system's when there is one, else the
# one in Debian's prometheus package, unpacked into $DEPS (scripts/ensure-deb.sh). Prints its path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if command -v promtool >/dev/null; then
  command -v promtool
  exit 0
fi
echo "$(bash "$ROOT/scripts/ensure-deb.sh" prometheus)/usr/bin/promtool"
