#!/usr/bin/env bash
# Makes librdkafka >= 2.3 available to the build and writes $DEPS/librdkafka.env, which
# scripts/env.sh sources (PKG_CONFIG_PATH, LD_LIBRARY_PATH, linker rpath).
#
# 1. A librdkafka already found (system or project-local) that is new enough is used as is.
# 2. Else the system's librdkafka-dev package, when the distribution ships >= 2.3.
# 3. Else (Debian 12 ships 2.0.2) Debian 13's source package librdkafka 2.8.0-1 is built into
#    $DEPS/librdkafka. The result is cached: a second run does nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

MINIMUM=2.3.0
SOURCE_VERSION=2.8.0-1
PREFIX="$DEPS/librdkafka"
ENV_FILE="$DEPS/librdkafka.env"

new_enough() { [ -n "$1" ] && [ "$(version_number "$1")" -ge "$(version_number "$MINIMUM")" ]; }
local_version() { PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --modversion rdkafka 2>/dev/null || true; }
system_version() { PKG_CONFIG_PATH="" pkg-config --modversion rdkafka 2>/dev/null || true; }

write_env() { # $1: library directory, or empty for the system's own
  if [ -n "$1" ]; then
    cat >"$ENV_FILE" <<ENV
export PKG_CONFIG_PATH="$1/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$1\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export RDKAFKA_LIBDIR="$1"
ENV
  else
    printf 'export RDKAFKA_LIBDIR=""\n' >"$ENV_FILE"
  fi
}

command -v pkg-config >/dev/null || apt_install pkg-config

if new_enough "$(local_version)"; then
  write_env "$PREFIX/lib"; log "using project-local librdkafka $(local_version)"; exit 0
fi
if new_enough "$(system_version)"; then
  write_env ""; log "using the system's librdkafka $(system_version)"; exit 0
fi

candidate=$(apt-cache policy librdkafka-dev 2>/dev/null | awk '/Candidate:/ {print $2}' | sed 's/-.*//; s/^[0-9]*://')
if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
  apt-get update -qq >&2 && apt_updated=1
  candidate=$(apt-cache policy librdkafka-dev 2>/dev/null | awk '/Candidate:/ {print $2}' | sed 's/-.*//; s/^[0-9]*://')
fi
if new_enough "$candidate"; then
  log "installing the system's librdkafka-dev $candidate"
  apt_install librdkafka-dev
  write_env ""; exit 0
fi

log "the system offers librdkafka ${candidate:-none}, older than $MINIMUM: building $SOURCE_VERSION from Debian 13's source package"
apt_install build-essential dpkg-dev pkg-config libssl-dev libsasl2-dev libzstd-dev liblz4-dev zlib1g-dev python3

# A private apt configuration with a deb-src entry for trixie, on the mirror this machine already
# uses; the system's own apt lists are left untouched.
mirror=$(grep -h -m1 -E '^URIs:.*debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' || true)
[ -n "$mirror" ] || mirror=$(grep -h -m1 -E '^deb .*debian/? ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' || true)
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt to fetch the librdkafka source package from"
apt_dir="$DEPS/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts"
printf 'deb-src %s trixie main\n' "$mirror" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
          -o "Dir::State::Lists=$apt_dir/lists" -qq)
apt-get "${apt_opts[@]}" update >&2 || die "could not read trixie's source index from $mirror"

src_dir="$DEPS/src"
rm -rf "$src_dir" && mkdir -p "$src_dir"
(cd "$src_dir" && apt-get "${apt_opts[@]}" source "librdkafka=$SOURCE_VERSION" >&2) \
  || die "apt-get source librdkafka=$SOURCE_VERSION failed"
tree=$(find "$src_dir" -maxdepth 1 -mindepth 1 -type d -name 'librdkafka-*' | head -n1)
[ -n "$tree" ] || die "the librdkafka source package did not unpack"

(
  cd "$tree"
  ./configure --prefix="$PREFIX" --disable-curl >"$src_dir/configure.log" 2>&1
  make -C src -j"$(nproc)" >"$src_dir/make.log" 2>&1
  make -C src install >"$src_dir/install.log" 2>&1
  # The performance tool, built from the same source, is the benchmark's raw-librdkafka baseline.
  make -C examples rdkafka_performance >"$src_dir/examples.log" 2>&1 || true
  if [ -x examples/rdkafka_performance ]; then mkdir -p "$PREFIX/bin" && cp examples/rdkafka_performance "$PREFIX/bin/"; fi
) || die "building librdkafka failed; see the logs in $src_dir"
rm -rf "$tree"

new_enough "$(local_version)" || die "built librdkafka but pkg-config does not find version >= $MINIMUM"
write_env "$PREFIX/lib"
log "built librdkafka $(local_version) into $PREFIX"
