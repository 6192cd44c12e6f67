#!/usr/bin/env bash
# Makes Python's orjson importable for the translation benchmark's baseline: the system's when it
# has one, else installed from PyPI into $DEPS/python. Prints the directory to put on PYTHONPATH
# (empty when the system's is used).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if python3 -c 'import orjson' 2>/dev/null; then
  echo ""
  exit 0
fi
target="$DEPS/python"
if ! PYTHONPATH="$target" python3 -c 'import orjson' 2>/dev/null; then
  log "installing orjson into $target"
  python3 -m pip install --quiet --disable-pip-version-check --target "$target" 'orjson>=3.8,<4' >&2 \
    || die "pip install orjson failed"
fi
echo "$target"
