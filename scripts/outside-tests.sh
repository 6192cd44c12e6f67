#!/usr/bin/env bash
# The outside tests (Tests/OutsideTests, pytest): clients that know nothing of the Swift code
# drive the built fcm-bridge named by FCM_BRIDGE_BINARY: messages built by Firebase's Admin SDK
# through `fcm-bridge translate`, and the scripts the docs name. pytest and the Admin SDK come
# from PyPI into .deps/ (scripts/ensure-python.sh); where PyPI cannot be reached, the tests that
# need them are skipped, saying so. Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

[ -n "${FCM_BRIDGE_BINARY:-}" ] || die "FCM_BRIDGE_BINARY must name a built fcm-bridge"
pythonpath=""
# Makes module $1 (requirement $2) importable; returns 3 when PyPI cannot be reached.
ensure() {
  local path
  path=$(bash "$ROOT/scripts/ensure-python.sh" "$1" "$2") || return
  [ -z "$path" ] || pythonpath="$path"
}
status=0
ensure pytest 'pytest>=7' || status=$?
[ "$status" -ne 3 ] || { log "SKIPPED: the outside tests: pytest is not installed and PyPI cannot be reached"; exit 0; }
[ "$status" -eq 0 ] || exit "$status"
for requirement in "firebase_admin firebase-admin>=7.7" "confluent_kafka confluent-kafka>=2.2"; do
  status=0
  ensure $requirement || status=$?
  [ "$status" -ne 3 ] || { log "tests needing ${requirement#* } are skipped: it is not installed and PyPI cannot be reached"; export FCM_BRIDGE_PYPI_UNREACHABLE=1; }
  [ "$status" -eq 0 ] || [ "$status" -eq 3 ] || exit "$status"
done
PYTHONPATH="$pythonpath${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -p no:cacheprovider -ra -q Tests/OutsideTests "$@"
