"""A store keyed by device, as state served from the store needs (docs/SCALING.md, section 9).

One row per device: its token (162 bytes) -> its queue (350 random bytes), written as random upserts in
batches of 4,096, then read by random point lookups of known and unknown devices. Prints the
rates per second of this process's CPU (RocksDB's background threads included), its peak RSS
and the size on disk.

    PYTHONPATH="$(bash scripts/ensure-python.sh rocksdict 'rocksdict==0.3.29')" \
        python3 Benchmarks/StoreLayouts/device_rows.py sqlite|rocksdb|rocksdb-uncompressed DEVICES [DIR]
"""

import os
import random
import resource
import shutil
import sqlite3
import sys
import time

BATCH = 4096
# Random bytes, so that no compression can shrink them; real queues (JSON) would shrink.
VALUES = [os.urandom(350) for _ in range(4096)]


def token(i):
    """A token like an FCM registration token, unique to i, spread over the key space."""
    return b"fMEP0vJqS0:APA91bH" + (b"%016x" % (i * 0x9E3779B97F4A7C15 % (1 << 64))) * 9


def rocksdb(path, compressed):
    from rocksdict import BlockBasedOptions, Cache, DBCompressionType, Options, Rdict, WriteBatch

    options = Options(raw_mode=True)
    options.create_if_missing(True)
    if not compressed:
        options.set_compression_type(DBCompressionType.none())
    table = BlockBasedOptions()
    table.set_block_cache(Cache(64 << 20))
    table.set_bloom_filter(10, False)
    options.set_block_based_table_factory(table)
    db = Rdict(path, options)

    def write(keys):
        batch = WriteBatch(raw_mode=True)
        for key in keys:
            batch.put(key, VALUES[hash(key) % len(VALUES)])
        db.write(batch)

    return write, db.get


def sqlite(path):
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ["page_size=16384", "journal_mode=wal", "synchronous=NORMAL", "wal_autocheckpoint=10000",
                   "cache_size=-65536"]:
        db.execute("PRAGMA " + pragma)
    db.execute("CREATE TABLE device (token BLOB PRIMARY KEY, queue BLOB NOT NULL) WITHOUT ROWID")

    def write(keys):
        db.execute("BEGIN")
        rows = [(key, VALUES[hash(key) % len(VALUES)]) for key in keys]
        db.executemany("INSERT OR REPLACE INTO device VALUES (?, ?)", rows)
        db.execute("COMMIT")

    def get(key):
        row = db.execute("SELECT queue FROM device WHERE token = ?", (key,)).fetchone()
        return row and row[0]

    return write, get


def rate(count, body):
    started = time.process_time()
    result = body()
    return count / (time.process_time() - started), result


def main():
    store, devices = sys.argv[1], int(sys.argv[2])
    path = os.path.join(sys.argv[3] if len(sys.argv) > 3 else "/tmp", "device-rows-" + store)
    shutil.rmtree(path, ignore_errors=True)
    for suffix in ["", "-wal", "-shm"]:
        if os.path.isfile(path + suffix):
            os.remove(path + suffix)
    write, get = sqlite(path) if store == "sqlite" else rocksdb(path, compressed=store == "rocksdb")
    draw = random.Random(7)
    order = list(range(devices))
    draw.shuffle(order)

    def write_all(keys):
        for start in range(0, len(keys), BATCH):
            write(keys[start:start + BATCH])

    written, _ = rate(devices, lambda: write_all([token(i) for i in order]))
    rewrites = min(devices, 262144)
    rewritten, _ = rate(rewrites, lambda: write_all([token(draw.randrange(devices)) for _ in range(rewrites)]))
    known = [token(draw.randrange(devices)) for _ in range(100000)]
    unknown = [token(devices + draw.randrange(devices)) for _ in range(100000)]
    read_known, hits = rate(len(known), lambda: sum(get(key) is not None for key in known))
    read_unknown, misses = rate(len(unknown), lambda: sum(get(key) is None for key in unknown))
    assert hits == len(known) and misses == len(unknown)
    size = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names) \
        if os.path.isdir(path) else sum(os.path.getsize(path + s) for s in ["", "-wal"] if os.path.exists(path + s))
    print(f"{store}, {devices:,} devices: new devices written {written:,.0f}/s, random rewrites {rewritten:,.0f}/s, "
          f"point reads of known devices {read_known:,.0f}/s, of unknown ones {read_unknown:,.0f}/s (per second of "
          f"CPU); peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB; "
          f"{size / devices:.0f} bytes on disk per device")


if __name__ == "__main__":
    main()
