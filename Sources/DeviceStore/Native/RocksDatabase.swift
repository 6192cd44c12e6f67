import CRocksDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One RocksDB database, open while a reference to it is held: byte keys to byte values in key
/// order. With ``RocksBatch``, ``RocksOptions`` and ``RocksSettling``, the module's only caller
/// of RocksDB's C API.
///
/// The database is closed when the last reference goes, as GRDB's `DatabaseQueue` is. It is
/// `Sendable` because RocksDB's database may be read and written from several threads at once,
/// and nothing here changes after `init`.
final class RocksDatabase: @unchecked Sendable {
    /// The `rocksdb_t`; the reads in `RocksDatabase+Reads.swift` use it, as the writes here do.
    let handle: OpaquePointer
    /// The default column family, the only one, which batched reads name.
    let columnFamily: OpaquePointer
    /// The options it was opened with, which its table files are written with too.
    private let options: RocksOptions
    let readOptions: OpaquePointer
    /// A long scan's reads leave the block cache to the point reads.
    let scanOptions: OpaquePointer
    private let writeOptions: OpaquePointer
    /// The directory the database is in, for errors.
    let path: String
    /// Whether a write or a load failed: the database is then not flushed (``flush()``).
    private let hasFailed = Atomic(false)

    /// Opens the database in directory `path`, creating it when there is none, with a block
    /// cache of at most `cacheBytes` and a bloom filter per table, so that a device the store
    /// does not hold is answered mostly without a disk read, and memtables of
    /// `writeBufferBytes` when given.
    init(path: String, cacheBytes: Int, writeBufferBytes: Int? = nil) throws(DeviceStoreError) {
        guard let options = RocksOptions(cacheBytes: cacheBytes, writeBufferBytes: writeBufferBytes) else {
            throw DeviceStoreError(path: path, operation: "open", message: "no block cache of \(cacheBytes) bytes")
        }
        var error: UnsafeMutablePointer<CChar>?
        // Opened by its column family, so that batched reads can name it.
        var columnFamily: OpaquePointer?
        let handle = "default".withCString { name in
            var names: [UnsafePointer<CChar>?] = [name]
            var familyOptions: [OpaquePointer?] = [options.pointer]
            return rocksdb_open_column_families(options.pointer, path, 1, &names, &familyOptions, &columnFamily, &error)
        }
        guard let handle, let columnFamily, error == nil else {
            throw DeviceStoreError(path: path, operation: "open", taking: error)
        }
        self.handle = handle
        self.columnFamily = columnFamily
        self.options = options
        readOptions = rocksdb_readoptions_create()
        scanOptions = rocksdb_readoptions_create()
        rocksdb_readoptions_set_fill_cache(scanOptions, 0)
        writeOptions = rocksdb_writeoptions_create()
        self.path = path
    }

    deinit {
        rocksdb_column_family_handle_destroy(columnFamily)
        rocksdb_close(handle)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_readoptions_destroy(scanOptions)
        rocksdb_writeoptions_destroy(writeOptions)
    }

    /// Writes the memtables to disk, so that the next open has no log to replay (RocksDB's close
    /// keeps them in its log only); false, writing nothing, after a failed write or a background
    /// error, or when the file system lacks twice what they hold: RocksDB's flush fails on a full
    /// disk, and asserts in builds that check (Debian's). Throws the flush's error.
    func flush() throws(DeviceStoreError) -> Bool {
        var memtables: UInt64 = 0
        var backgroundErrors: UInt64 = 0
        guard !hasFailed.load(ordering: .acquiring),
            rocksdb_property_int(handle, "rocksdb.background-errors", &backgroundErrors) == 0, backgroundErrors == 0,
            rocksdb_property_int(handle, "rocksdb.cur-size-all-mem-tables", &memtables) == 0
        else { return false }
        var fileSystem = statvfs()
        guard statvfs(path, &fileSystem) == 0 else { return false }
        let (free, overflow) = UInt64(fileSystem.f_bavail).multipliedReportingOverflow(by: UInt64(fileSystem.f_frsize))
        guard overflow || free / 2 > memtables else { return false }
        let options = rocksdb_flushoptions_create()
        defer { rocksdb_flushoptions_destroy(options) }
        rocksdb_flushoptions_set_wait(options, 1)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_flush(handle, options, &error)
        if let error { throw DeviceStoreError(path: path, operation: "flush", taking: error) }
        return true
    }

    /// Writes `batch` whole or not at all.
    func write(_ batch: borrowing RocksBatch) throws(DeviceStoreError) {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle, writeOptions, batch.handle, &error)
        if let error {
            hasFailed.store(true, ordering: .releasing)
            throw DeviceStoreError(path: path, operation: "write", taking: error)
        }
    }

    /// Writes what `body` puts (a nil value: a deletion), keys in strictly increasing byte order,
    /// into the table file `file` and adds that file to the database whole: every key or none,
    /// past the memtable and the log, as RocksDB loads data in bulk. Each key replaces what the
    /// database held under it. A put out of order, or a failed write, throws; the file is then
    /// deleted.
    func ingest(
        through file: String,
        _ body: (_ put: (_ key: [UInt8], _ value: UnsafeRawBufferPointer?) throws(DeviceStoreError) -> Void)
            throws(DeviceStoreError) -> Void
    ) throws(DeviceStoreError) {
        let environment = rocksdb_envoptions_create()
        defer { rocksdb_envoptions_destroy(environment) }
        let writer = rocksdb_sstfilewriter_create(environment, options.pointer)
        defer { rocksdb_sstfilewriter_destroy(writer) }
        // Each call gets an error pointer of its own: RocksDB frees one it is given set.
        let loadFailed = { (error: UnsafeMutablePointer<CChar>?) in
            self.hasFailed.store(true, ordering: .releasing)
            return DeviceStoreError(path: self.path, operation: "load", taking: error)
        }
        var opened: UnsafeMutablePointer<CChar>?
        rocksdb_sstfilewriter_open(writer, file, &opened)
        if let opened { throw loadFailed(opened) }
        do throws(DeviceStoreError) {
            try body { (key, value) throws(DeviceStoreError) in
                var put: UnsafeMutablePointer<CChar>?
                key.withUnsafeBytes { key in
                    if let value {
                        rocksdb_sstfilewriter_put(
                            writer, key.baseAddress, key.count, value.baseAddress, value.count, &put)
                    } else {
                        rocksdb_sstfilewriter_delete(writer, key.baseAddress, key.count, &put)
                    }
                }
                if let put { throw loadFailed(put) }
            }
            var finished: UnsafeMutablePointer<CChar>?
            rocksdb_sstfilewriter_finish(writer, &finished)
            if let finished { throw loadFailed(finished) }
            let ingestOptions = rocksdb_ingestexternalfileoptions_create()
            defer { rocksdb_ingestexternalfileoptions_destroy(ingestOptions) }
            // The file is linked into the database, not copied, and unlinked from `file` once in.
            rocksdb_ingestexternalfileoptions_set_move_files(ingestOptions, 1)
            var ingested: UnsafeMutablePointer<CChar>?
            file.withCString { name in
                var names: [UnsafePointer<CChar>?] = [name]
                rocksdb_ingest_external_file(handle, &names, 1, ingestOptions, &ingested)
            }
            if let ingested { throw loadFailed(ingested) }
        } catch {
            unlink(file)
            throw error
        }
    }

    /// Writes the memtables to disk and waits until no flush or compaction runs or is due
    /// (``RocksSettling``).
    func settle() throws(DeviceStoreError) {
        if let error = RocksSettling.settle(handle) {
            throw DeviceStoreError(path: path, operation: "flush", message: error)
        }
    }
}

extension DeviceStoreError {
    /// An error from RocksDB's `errptr`, which it allocated and this frees.
    init(path: String, operation: String, taking error: UnsafeMutablePointer<CChar>?) {
        self.init(path: path, operation: operation, message: error.map { String(cString: $0) } ?? "unknown error")
        rocksdb_free(error)
    }
}
