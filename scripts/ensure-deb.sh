#!/usr/bin/env bash
# Unpacks Debian packages into $DEPS/debian (nothing installed system-wide, no service started)
# and prints that directory; a package already unpacked there is kept.
#   scripts/ensure-deb.sh PACKAGE...      e.g. prometheus, or wrk libluajit2-5.1-2
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -gt 0 ] || die "usage: $0 PACKAGE..."
directory="$DEPS/debian"
mkdir -p "$directory/.unpacked"
missing=()
for package in "$@"; do
  [ -e "$directory/.unpacked/$package" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "unpacking Debian's ${missing[*]} into $directory"
  apt-get update -qq >&2 || die "apt-get update failed"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  (cd "$download" && apt-get download -qq "${missing[@]}" >&2) || die "apt-get download ${missing[*]} failed"
  chmod -R a+rX "$download"
  for package in "${missing[@]}"; do
    dpkg-deb -x "$download"/"${package}"_*.deb "$directory" || die "unpacking $package failed"
    touch "$directory/.unpacked/$package"
  done
fi
echo "$directory"
