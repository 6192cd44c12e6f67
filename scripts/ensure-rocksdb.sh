#!/usr/bin/env bash
# Makes RocksDB's C API available to the build: the system's librocksdb-dev when pkg-config
# finds it, else Debian's package installed (Debian 12 ships 7.8.3; its C API is all the
# DeviceStore module uses). Nothing is built from source.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

command -v pkg-config >/dev/null || apt_install pkg-config
if ! pkg-config --exists rocksdb; then
  log "installing Debian's librocksdb-dev"
  apt_install librocksdb-dev
  pkg-config --exists rocksdb || die "librocksdb-dev is installed but pkg-config does not find rocksdb"
fi
