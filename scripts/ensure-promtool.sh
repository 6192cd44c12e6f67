#!/usr/bin/env bash
# Makes promtool (Prometheus' rule checker) available: the system's when there is one, else the
# one in Debian's prometheus package, unpacked into $DEPS/prometheus (nothing installed system-wide,
# no service started). Prints its path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if command -v promtool >/dev/null; then
  command -v promtool
  exit 0
fi
directory="$DEPS/prometheus"
promtool="$directory/usr/bin/promtool"
if [ ! -x "$promtool" ]; then
  log "unpacking promtool from Debian's prometheus package into $directory"
  apt-get update -qq >&2 || die "apt-get update failed"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  (cd "$download" && apt-get download -qq prometheus >&2) || die "apt-get download prometheus failed"
  chmod -R a+rX "$download"
  dpkg-deb -x "$download"/prometheus_*.deb "$directory" || die "unpacking prometheus failed"
fi
echo "$promtool"
