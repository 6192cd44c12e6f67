import CRocksDB
@_spi(Benchmarks) import DeviceStore

struct RawStoreError: Error {
    let message: String
}

/// A RocksDB database through the C API alone, with ``DeviceRows``' options: the baseline.
/// `@unchecked Sendable`: two threads scan through RocksDB, which is thread-safe; the batch and
/// `pending` are used by the writing thread alone.
final class RawStore: @unchecked Sendable {
    let handle: OpaquePointer
    /// The default column family, which batched reads name.
    let columnFamily: OpaquePointer
    let batch = rocksdb_writebatch_create()
    let readOptions = rocksdb_readoptions_create()
    let scanOptions = rocksdb_readoptions_create()
    let writeOptions = rocksdb_writeoptions_create()
    var pending = 0

    init(path: String) throws {
        guard let options = RocksOptions(cacheBytes: 64 << 20) else { throw RawStoreError(message: "no block cache") }
        var error: UnsafeMutablePointer<CChar>?
        var columnFamily: OpaquePointer?
        let handle = "default".withCString { name in
            var names: [UnsafePointer<CChar>?] = [name]
            var familyOptions: [OpaquePointer?] = [options.pointer]
            return rocksdb_open_column_families(options.pointer, path, 1, &names, &familyOptions, &columnFamily, &error)
        }
        guard let handle, let columnFamily, error == nil else {
            defer { rocksdb_free(error) }
            throw RawStoreError(message: error.map { String(cString: $0) } ?? "unknown")
        }
        self.handle = handle
        self.columnFamily = columnFamily
    }

    deinit {
        rocksdb_column_family_handle_destroy(columnFamily)
        rocksdb_close(handle)
        rocksdb_writebatch_destroy(batch)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_readoptions_destroy(scanOptions)
        rocksdb_writeoptions_destroy(writeOptions)
    }

    /// Puts `token`'s rows, each keyed by the token's key and its own suffix, in the batch.
    func put(_ token: String, _ rows: [(key: [UInt8], value: [UInt8])]) {
        write(token, rows.map { ($0.key, Optional($0.value)) })
    }

    /// Puts or (nil) deletes `token`'s rows in the batch; a device's rows count as one write.
    func write(_ token: String, _ rows: [(key: [UInt8], value: [UInt8]?)]) {
        let head = BenchmarkRun.key(token)
        for (suffix, value) in rows {
            (head + suffix).withUnsafeBytes { key in
                if let value {
                    value.withUnsafeBytes { value in
                        rocksdb_writebatch_put(batch, key.baseAddress, key.count, value.baseAddress, value.count)
                    }
                } else {
                    rocksdb_writebatch_delete(batch, key.baseAddress, key.count)
                }
            }
        }
        pending += 1
        if pending == BenchmarkRun.batchSize { flushBatch() }
    }

    func flushBatch() {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle, writeOptions, batch, &error)
        precondition(error == nil, "RocksDB: \(error.map { String(cString: $0) } ?? "")")
        rocksdb_writebatch_clear(batch)
        pending = 0
    }

    /// Whether `token`'s head row is held: a point read, and, when it is, a batched read of
    /// the rows under `messageSuffixes`, as ``DeviceRows/device(_:)`` reads a device.
    func read(_ token: String, messageSuffixes: [[UInt8]]) -> Bool {
        let key = BenchmarkRun.key(token)
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBytes { rocksdb_get(handle, readOptions, $0.baseAddress, $0.count, &length, &error) }
        defer { rocksdb_free(value) }
        precondition(error == nil, "RocksDB: \(error.map { String(cString: $0) } ?? "")")
        guard value != nil else { return false }
        if !messageSuffixes.isEmpty {
            precondition(!readTogether(messageSuffixes.map { key + $0 }).contains(false), "a message row is missing")
        }
        return true
    }

    /// How many of `tokens` have a head row, read with RocksDB's batched `MultiGet`: the heads,
    /// then the rows under `messageSuffixes` of each head found, as ``DeviceRows/devices(_:)``
    /// reads them.
    func readTogether(_ tokens: [String], messageSuffixes: [[UInt8]]) -> Int {
        let heads = tokens.map(BenchmarkRun.key)
        let found = readTogether(heads)
        let messages = readTogether(
            zip(heads, found).flatMap { head, found in found ? messageSuffixes.map { head + $0 } : [] })
        precondition(!messages.contains(false), "a message row is missing")
        return found.count { $0 }
    }

    /// Whether each of `keys` is held, read in one batched `MultiGet`.
    private func readTogether(_ keys: [[UInt8]]) -> [Bool] {
        guard !keys.isEmpty else { return [] }
        let bytes = keys.flatMap { $0 }
        let sizes = keys.map(\.count)
        var values = [OpaquePointer?](repeating: nil, count: keys.count)
        var errors = [UnsafeMutablePointer<CChar>?](repeating: nil, count: keys.count)
        bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            let pointers = sizes.map { size -> UnsafePointer<CChar>? in
                defer { start += size }
                return UnsafeRawPointer(bytes.baseAddress.map { $0 + start })?.assumingMemoryBound(to: CChar.self)
            }
            rocksdb_batched_multi_get_cf(
                handle, readOptions, columnFamily, keys.count, pointers, sizes, &values, &errors, false)
        }
        precondition(errors.allSatisfy { $0 == nil }, "RocksDB: a read failed")
        return values.map { value in
            defer { rocksdb_pinnableslice_destroy(value) }
            var length = 0
            return value.map { rocksdb_pinnableslice_value($0, &length) != nil } ?? false
        }
    }

    /// Writes `rows` under each of `tokens`, sorted, into the table file `file` and ingests it.
    func ingest(_ tokens: [String], _ rows: [(key: [UInt8], value: [UInt8])], file: String) throws {
        let keyed = tokens.map(BenchmarkRun.key).sorted { $0.lexicographicallyPrecedes($1) }.flatMap { head in
            rows.map { (head + $0.key, $0.value) }
        }
        let environment = rocksdb_envoptions_create()
        defer { rocksdb_envoptions_destroy(environment) }
        guard let options = RocksOptions(cacheBytes: 0) else { throw RawStoreError(message: "no options") }
        let writer = rocksdb_sstfilewriter_create(environment, options.pointer)
        defer { rocksdb_sstfilewriter_destroy(writer) }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_sstfilewriter_open(writer, file, &error)
        for (key, value) in keyed where error == nil {
            key.withUnsafeBytes { key in
                value.withUnsafeBytes { value in
                    rocksdb_sstfilewriter_put(
                        writer, key.baseAddress, key.count, value.baseAddress, value.count, &error)
                }
            }
        }
        if error == nil { rocksdb_sstfilewriter_finish(writer, &error) }
        let ingestOptions = rocksdb_ingestexternalfileoptions_create()
        defer { rocksdb_ingestexternalfileoptions_destroy(ingestOptions) }
        rocksdb_ingestexternalfileoptions_set_move_files(ingestOptions, 1)
        if error == nil {
            file.withCString { name in
                var names: [UnsafePointer<CChar>?] = [name]
                rocksdb_ingest_external_file(handle, &names, 1, ingestOptions, &error)
            }
        }
        if let error {
            defer { rocksdb_free(error) }
            throw RawStoreError(message: String(cString: error))
        }
    }

    /// Writes the memtable to disk and waits until no flush or compaction runs or is due.
    func settle() {
        let error = RocksSettling.settle(handle)
        precondition(error == nil, "RocksDB: \(error ?? "")")
    }

    func scanCount() -> Int {
        rocksdb_readoptions_set_fill_cache(scanOptions, 0)
        let iterator = rocksdb_create_iterator(handle, scanOptions)
        defer { rocksdb_iter_destroy(iterator) }
        rocksdb_iter_seek_to_first(iterator)
        var count = 0
        var bytes = 0
        while rocksdb_iter_valid(iterator) != 0 {
            var length = 0
            _ = rocksdb_iter_value(iterator, &length)
            bytes &+= length
            count += 1
            rocksdb_iter_next(iterator)
        }
        return count
    }
}
