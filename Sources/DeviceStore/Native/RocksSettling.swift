import CRocksDB

#if canImport(Glibc)
    import Glibc
#endif

/// Brings a database to rest, so that a benchmark's phases start from the same state.
@_spi(Benchmarks) public enum RocksSettling {
    /// Writes the memtables of the database `handle` (a `rocksdb_t`) to disk and waits until no
    /// flush or compaction runs or is due; returns RocksDB's error, if the flush failed.
    public static func settle(_ handle: OpaquePointer) -> String? {
        let options = rocksdb_flushoptions_create()
        defer { rocksdb_flushoptions_destroy(options) }
        rocksdb_flushoptions_set_wait(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_flush(handle, options, &error)
        if let error {
            defer { rocksdb_free(error) }
            return String(cString: error)
        }
        while ["rocksdb.num-running-compactions", "rocksdb.num-running-flushes", "rocksdb.compaction-pending"]
            .contains(where: { property in
                var value: UInt64 = 0
                return rocksdb_property_int(handle, property, &value) == 0 && value > 0
            })
        {
            usleep(10_000)
        }
        return nil
    }
}
