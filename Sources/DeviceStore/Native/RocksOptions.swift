import CRocksDB

/// The options a device store's database opens with: created when missing, lz4, warnings and
/// errors only in its log file, a full bloom
/// filter of 10 bits a key per table, a block cache of at most a given size, and memtables of
/// RocksDB's default size (64 MiB) or a given one. The rows
/// benchmark opens its baseline's databases with them too, so that both sides always match.
@_spi(Benchmarks) public struct RocksOptions: ~Copyable {
    /// The `rocksdb_options_t`, valid while this value lives.
    public let pointer: OpaquePointer

    /// The options with a block cache of at most `cacheBytes` and, when given, memtables of
    /// `writeBufferBytes` (at most two of them); nil when RocksDB makes no cache.
    public init?(cacheBytes: Int, writeBufferBytes: Int? = nil) {
        guard let cache = rocksdb_cache_create_lru(max(cacheBytes, 0)) else { return nil }
        // The table options take their own reference to the cache, and a database opened with
        // these options another: this one is released here.
        defer { rocksdb_cache_destroy(cache) }
        pointer = rocksdb_options_create()
        rocksdb_options_set_create_if_missing(pointer, 1)
        rocksdb_options_set_compression(pointer, Int32(rocksdb_lz4_compression))
        // RocksDB's own log file takes warnings and errors only. Debian's build asserts when it
        // writes that file again after a write of it failed (a full disk), and closing a database
        // writes it at the info level: on a full disk, that would abort the process.
        rocksdb_options_set_info_log_level(pointer, 2)
        if let writeBufferBytes { rocksdb_options_set_write_buffer_size(pointer, max(writeBufferBytes, 1 << 16)) }
        let tableOptions = rocksdb_block_based_options_create()
        defer { rocksdb_block_based_options_destroy(tableOptions) }
        // The table options own the filter policy from here on.
        rocksdb_block_based_options_set_filter_policy(tableOptions, rocksdb_filterpolicy_create_bloom_full(10))
        rocksdb_block_based_options_set_block_cache(tableOptions, cache)
        rocksdb_options_set_block_based_table_factory(pointer, tableOptions)
    }

    deinit { rocksdb_options_destroy(pointer) }
}
