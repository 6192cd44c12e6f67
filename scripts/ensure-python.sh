#!/usr/bin/env bash
# Makes a Python package importable for the project's outside tools (the translation benchmark's
# orjson baseline, the chaos test's Kafka client): the system's when it has one, else installed
# from PyPI into $DEPS/python. Prints the directory to put on PYTHONPATH (empty when the system's
# is used).
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
  python3 -m pip install --quiet --disable-pip-version-check --target "$target" "$requirement" >&2 \
    || die "pip install $requirement failed"
fi
echo "$target"
