import CRocksDB

extension RocksDatabase {
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

    /// The values stored under `keys`, read together (RocksDB's batched `MultiGet`, which
    /// looks up keys that share blocks once), each given to `body` with the index of its key for
    /// as long as `body` runs; nil for a key none is stored under. Keys may come in any order and
    /// more than once.
    func withValues<E: Error>(
        of keys: [[UInt8]], _ body: (_ index: Int, _ value: UnsafeRawBufferPointer?) throws(E) -> Void
    ) throws(DeviceStoreError) -> Result<Void, E> {
        guard !keys.isEmpty else { return .success(()) }
        // One buffer holds every key, so that every key's address holds during the call.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.reduce(0) { $0 + $1.count })
        for key in keys { bytes.append(contentsOf: key) }
        let sizes = keys.map { $0.count }
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
        defer { for value in values { rocksdb_pinnableslice_destroy(value) } }
        if let index = errors.firstIndex(where: { $0 != nil }) {
            for (other, error) in errors.enumerated() where other != index { rocksdb_free(error) }
            throw DeviceStoreError(path: path, operation: "read", taking: errors[index])
        }
        for (index, pinned) in values.enumerated() {
            let value = pinned.map { pinned in
                var length = 0
                let start = rocksdb_pinnableslice_value(pinned, &length)
                return UnsafeRawBufferPointer(start: start, count: length)
            }
            do throws(E) {
                try body(index, value)
            } catch {
                return .failure(error)
            }
        }
        return .success(())
    }

    /// Calls `body` with each key and value from `start` on, in key order, until it returns
    /// false or the keys end. The blocks read do not stay in the cache: a scan leaves it to the
    /// reads of devices in use.
    func scan<E: Error>(
        from start: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(E) -> Bool
    ) throws(DeviceStoreError) -> Result<Void, E> {
        let iterator = rocksdb_create_iterator(handle, scanOptions)
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
}
