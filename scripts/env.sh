# Sourced by the other scripts: makes librdkafka >= 2.3 and RocksDB available and sets what
# `swift build`, `swift test` and `swift run` need to find them, at build time and at run time.
# SWIFT_LINK_FLAGS carries an rpath to the project-local librdkafka, so binaries load it and not
# an older system copy even outside these scripts.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bash "$ROOT/scripts/ensure-librdkafka.sh" || exit 1
bash "$ROOT/scripts/ensure-rocksdb.sh" || exit 1
# shellcheck disable=SC1091
source "$DEPS/librdkafka.env"
SWIFT_LINK_FLAGS=()
if [ -n "${RDKAFKA_LIBDIR:-}" ]; then
  SWIFT_LINK_FLAGS=(-Xlinker -rpath -Xlinker "$RDKAFKA_LIBDIR")
fi

# Builds the release product $1 (quietly, to stderr) and prints the path of its binary.
release_product() {
  swift build -c release --product "$1" "${SWIFT_LINK_FLAGS[@]}" >&2
  echo "$(swift build -c release --show-bin-path)/$1"
}
