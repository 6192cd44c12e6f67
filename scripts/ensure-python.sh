#!/usr/bin/env bash
# Makes a Python package importable for the project's outside tools (the translation benchmark's
# orjson baseline, the chaos test's Kafka client, the outside tests' Admin SDK): the system's when
# it has one, else installed from PyPI into $DEPS/python. Prints the directory to put on
# PYTHONPATH (empty when the system's is used). Exits 3, not 1, when the install failed because
# the package index could not be reached, so that a caller can tell "offline" from "broken".
#   scripts/ensure-python.sh MODULE REQUIREMENT     e.g. orjson 'orjson>=3.8,<4'
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -eq 2 ] || die "usage: $0 MODULE REQUIREMENT"
module=$1
requirement=$2
if python3 -c "import $module" 2>/dev/null; then
  echo ""
  exit 0
fi
target="$DEPS/python"
if ! PYTHONPATH="$target" python3 -c "import $module" 2>/dev/null; then
  log "installing $requirement into $target"
  output=$(mktemp)
  trap 'rm -f "$output"' EXIT
  if ! python3 -m pip install --quiet --disable-pip-version-check --target "$target" "$requirement" >"$output" 2>&1; then
    cat "$output" >&2
    unreachable='NewConnectionError|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|Network is unreachable|ConnectTimeoutError|ProxyError'
    if grep -qE "$unreachable" "$output"; then
      log "pip install $requirement failed: the package index cannot be reached"
      exit 3
    fi
    die "pip install $requirement failed"
  fi
fi
echo "$target"
