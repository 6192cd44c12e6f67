import CRocksDB

/// Puts and deletes written together by ``RocksDatabase/write(_:)``.
struct RocksBatch: ~Copyable {
    let handle: OpaquePointer

    init() { handle = rocksdb_writebatch_create() }

    deinit { rocksdb_writebatch_destroy(handle) }

    /// Stores `value`, which the batch copies, under `key`.
    func put(_ key: [UInt8], _ value: UnsafeRawBufferPointer) {
        key.withUnsafeBytes { key in
            rocksdb_writebatch_put(handle, key.baseAddress, key.count, value.baseAddress, value.count)
        }
    }

    /// Removes what is stored under `key`.
    func delete(_ key: [UInt8]) {
        key.withUnsafeBytes { rocksdb_writebatch_delete(handle, $0.baseAddress, $0.count) }
    }

    /// Removes every key from `start` up to, not including, `end`.
    func deleteRange(from start: [UInt8], to end: [UInt8]) {
        start.withUnsafeBytes { start in
            end.withUnsafeBytes { end in
                rocksdb_writebatch_delete_range(handle, start.baseAddress, start.count, end.baseAddress, end.count)
            }
        }
    }
}
