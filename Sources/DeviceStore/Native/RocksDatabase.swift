import CRocksDB

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
    private let handle: OpaquePointer
    /// The options it was opened with, which its table files are written with too.
    private let options: RocksOptions
    private let readOptions: OpaquePointer
    /// A long scan's reads leave the block cache to the point reads.
    private let scanOptions: OpaquePointer
    private let writeOptions: OpaquePointer
    /// The directory the database is in, for errors.
    let path: String

    /// Opens the database in directory `path`, creating it when there is none, with a block
    /// cache of at most `cacheBytes` and a bloom filter per table, so that a device the store
    /// does not hold is answered mostly without a disk read, and memtables of
    /// `writeBufferBytes` when given.
    init(path: String, cacheBytes: Int, writeBufferBytes: Int? = nil) throws(DeviceStoreError) {
        guard let options = RocksOptions(cacheBytes: cacheBytes, writeBufferBytes: writeBufferBytes) else {
            throw DeviceStoreError(path: path, operation: "open", message: "no block cache of \(cacheBytes) bytes")
        }
        var error: UnsafeMutablePointer<CChar>?
        let handle = rocksdb_open(options.pointer, path, &error)
        guard let handle, error == nil else { throw DeviceStoreError(path: path, operation: "open", taking: error) }
        self.handle = handle
        self.options = options
        readOptions = rocksdb_readoptions_create()
        scanOptions = rocksdb_readoptions_create()
        rocksdb_readoptions_set_fill_cache(scanOptions, 0)
        writeOptions = rocksdb_writeoptions_create()
        self.path = path
    }

    deinit {
        rocksdb_close(handle)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_readoptions_destroy(scanOptions)
        rocksdb_writeoptions_destroy(writeOptions)
    }

    /// The value stored under `key`, given to `body` for as long as it runs; nil when none is.
    func withValue<R, E: Error>(
        of key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws(E) -> R
    ) throws(DeviceStoreError) -> Result<R, E> {
        var error: UnsafeMutablePointer<CChar>?
        let pinned = key.withUnsafeBytes { key in
            rocksdb_get_pinned(handle, readOptions, key.baseAddress, key.count, &error)
        }
        if let error { throw DeviceStoreError(path: path, operation: "read", taking: error) }
        guard let pinned else { return Result { () throws(E) in try body(nil) } }
        defer { rocksdb_pinnableslice_destroy(pinned) }
        var length = 0
        let value = rocksdb_pinnableslice_value(pinned, &length)
        return Result { () throws(E) in try body(UnsafeRawBufferPointer(start: value, count: length)) }
    }

    /// Writes `batch` whole or not at all.
    func write(_ batch: borrowing RocksBatch) throws(DeviceStoreError) {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle, writeOptions, batch.handle, &error)
        if let error { throw DeviceStoreError(path: path, operation: "write", taking: error) }
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
            DeviceStoreError(path: self.path, operation: "load", taking: error)
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

    /// Calls `body` with each key and value from `start` on, in key order, until it returns
    /// false or the keys end. The blocks read stay in the cache only when `fillingCache`: a
    /// scan of everything leaves the cache to the reads of devices in use.
    func scan<E: Error>(
        from start: [UInt8], fillingCache: Bool = false,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(E) -> Bool
    ) throws(DeviceStoreError) -> Result<Void, E> {
        let iterator = rocksdb_create_iterator(handle, fillingCache ? readOptions : scanOptions)
        defer { rocksdb_iter_destroy(iterator) }
        start.withUnsafeBytes { rocksdb_iter_seek(iterator, $0.baseAddress, $0.count) }
        while rocksdb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let key = UnsafeRawBufferPointer(start: rocksdb_iter_key(iterator, &keyLength), count: keyLength)
            let value = UnsafeRawBufferPointer(start: rocksdb_iter_value(iterator, &valueLength), count: valueLength)
            do throws(E) {
                guard try body(key, value) else { return .success(()) }
            } catch {
                return .failure(error)
            }
            rocksdb_iter_next(iterator)
        }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_iter_get_error(iterator, &error)
        if let error { throw DeviceStoreError(path: path, operation: "scan", taking: error) }
        return .success(())
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
