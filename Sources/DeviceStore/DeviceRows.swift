import BridgeCore
import DeviceQueues
import FCMTranslation
import Foundation

/// One state partition's devices on disk: a ``DeviceRow`` per device under its token, and the
/// changelog offset the rows cover, written together with them. The rows equal a replay of the
/// changelog up to ``checkpoint()``; the changelog after it is still to be applied.
///
/// Reads go through RocksDB's block cache, whose size the caller gives, and its bloom filters,
/// so asking for a device the partition does not hold costs mostly no disk read. The database
/// is closed when the last copy of the value goes; until then no other can open its directory.
public struct DeviceRows: Sendable {
    private let database: RocksDatabase

    /// The key of the checkpoint; device keys start with `d`, so none can be this one.
    private static let checkpointKey = Array("checkpoint".utf8)
    private static let devicePrefix = UInt8(ascii: "d")

    /// Opens the rows in directory `path`, creating them empty when there are none, with a
    /// block cache of at most `cacheBytes` and, when given, at most two memtables of
    /// `writeBufferBytes` each (RocksDB's default: 64 MiB). Deletes the table files of loads a
    /// crash cut short.
    public init(at path: String, cacheBytes: Int, writeBufferBytes: Int? = nil) throws(DeviceStoreError) {
        database = try RocksDatabase(path: path, cacheBytes: cacheBytes, writeBufferBytes: writeBufferBytes)
        // The database is open, so no other process has the directory, and no load runs yet.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for file in files where file.hasPrefix(Self.loadFilePrefix) && file.hasSuffix(".sst") {
            do {
                try FileManager.default.removeItem(atPath: "\(path)/\(file)")
            } catch {
                throw DeviceStoreError(path: path, operation: "open", message: "cannot delete \(file): \(error)")
            }
        }
    }

    /// The directory the rows are in.
    public var path: String { database.path }

    /// The changelog offset the rows cover: the next record to apply. Nil before the first write;
    /// throws when the stored checkpoint does not read.
    public func checkpoint() throws(DeviceStoreError) -> Int64? {
        let read = try database.withValue(of: Self.checkpointKey) { value -> Int64?? in
            guard let value else { return .some(nil) }
            guard value.count == 8 else { return nil }
            return .some(Int64(littleEndian: value.loadUnaligned(as: Int64.self)))
        }.get()
        guard let checkpoint = read else {
            throw DeviceStoreError(path: path, operation: "read", message: "the checkpoint is not 8 bytes")
        }
        return checkpoint
    }

    /// The device under `token`; nil when the rows hold none. Throws when its row does not read.
    public func device(_ token: String) throws(DeviceStoreError) -> DeviceQueue? {
        let read = try database.withValue(of: Self.key(token)) { value throws(MalformedRecord) in
            try value.map { value throws(MalformedRecord) in try DeviceRow.read(value) }
        }
        return try inDoubt(read, operation: "read")
    }

    /// Writes each device (nil: removes it) and `checkpoint` as one batch: all of them or none.
    public func write(_ devices: [(token: String, device: DeviceQueue?)], checkpoint: Int64) throws(DeviceStoreError) {
        let batch = RocksBatch()
        var value = ByteWriter(capacity: 1_024)
        for (token, device) in devices {
            if let device {
                value.truncate(to: 0)
                DeviceRow.write(device, to: &value)
                value.withUnsafeBytes { batch.put(Self.key(token), $0) }
            } else {
                batch.delete(Self.key(token))
            }
        }
        withUnsafeBytes(of: checkpoint.littleEndian) { batch.put(Self.checkpointKey, $0) }
        try database.write(batch)
    }

    /// Applies changelog changes, in order, to the devices they name, and moves the checkpoint to
    /// `checkpoint`, all or nothing: each device named is read once, changed as a restore changes
    /// it (``DeviceQueue/restore(_:onto:)``) and written once, or removed once forgotten. The
    /// devices go in one batch, or, `inBulk`, in one table file (``load(_:checkpoint:)``): for
    /// the large parts of a restore.
    public func apply(
        _ changes: [(token: String, change: StateChange)], checkpoint: Int64, inBulk: Bool = false
    ) throws(DeviceStoreError) {
        var devices: [String: DeviceQueue?] = [:]
        var order: [String] = []
        for (token, change) in changes {
            if devices.index(forKey: token) == nil {
                devices[token] = .some(try device(token))
                order.append(token)
            }
            DeviceQueue.restore(change, onto: &devices[token, default: nil])
        }
        let changed = order.map { ($0, devices[$0] ?? nil) }
        if inBulk {
            try load(changed, checkpoint: checkpoint)
        } else {
            try write(changed, checkpoint: checkpoint)
        }
    }

    /// Loads `devices` (nil: removes it), each token once, and `checkpoint` in one table file
    /// added to the rows whole, past RocksDB's write path: for rows built in one go, as a restore
    /// with no local state builds them. Each device given replaces its row; the others keep
    /// theirs. Throws, leaving the rows as they were, when a token is given twice or the file
    /// cannot be written.
    public func load(_ devices: [(token: String, device: DeviceQueue?)], checkpoint: Int64)
        throws(DeviceStoreError)
    {
        let keys = devices.map { Self.key($0.token) }
        // The places are sorted, not the keys and devices: moving those would retain and release.
        var order = Array(keys.indices)
        keys.withUnsafeBufferPointer { keys in order.sort { keys[$0].lexicographicallyPrecedes(keys[$1]) } }
        let file = "\(path)/\(Self.loadFilePrefix)\(UInt64.random(in: 0...UInt64.max)).sst"
        try database.ingest(through: file) { (put) throws(DeviceStoreError) in
            var value = ByteWriter(capacity: 1_024)
            // The checkpoint's key sorts before every device's, as the file's keys must.
            withUnsafeBytes(of: checkpoint.littleEndian) { value.append($0) }
            try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(Self.checkpointKey, bytes) }
            for index in order {
                let (key, device) = (keys[index], devices[index].device)
                guard let device else {
                    try put(key, nil)
                    continue
                }
                value.truncate(to: 0)
                DeviceRow.write(device, to: &value)
                try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(key, bytes) }
            }
        }
    }

    /// Replaces the rows with `devices`, each token once, and moves the checkpoint to
    /// `checkpoint`, in one load (``load(_:checkpoint:)``): all or nothing, each row whose token
    /// is not among `devices` removed with it. For rows rebuilt whole from the state in memory.
    public func replaceAll(with devices: [(token: String, device: DeviceQueue)], checkpoint: Int64)
        throws(DeviceStoreError)
    {
        let given = Set(devices.lazy.map { Self.key($0.token) })
        var loaded = devices.map { (token: $0.token, device: Optional($0.device)) }
        _ = try database.scan(from: [Self.devicePrefix]) { key, _ in
            guard key.first == Self.devicePrefix else { return false }
            if !given.contains(Array(key)) {
                loaded.append((String(decoding: UnsafeRawBufferPointer(rebasing: key.dropFirst()), as: UTF8.self), nil))
            }
            return true
        }
        try load(loaded, checkpoint: checkpoint)
    }

    /// How the table file of a load starts its name, in the rows' directory: RocksDB leaves it
    /// alone (its own files are numbered) and takes it in under a name of its own. Each load's
    /// name ends in a random number, so that loads may run at once.
    private static let loadFilePrefix = "load-"

    /// Calls `body` with every device held, in the order of their tokens' bytes.
    public func forEachDevice(_ body: (_ token: String, _ device: DeviceQueue) -> Void) throws(DeviceStoreError) {
        let scanned = try database.scan(from: [Self.devicePrefix]) { key, value throws(MalformedRecord) in
            guard key.first == Self.devicePrefix else { return false }
            body(String(decoding: key.dropFirst(), as: UTF8.self), try DeviceRow.read(value))
            return true
        }
        try inDoubt(scanned, operation: "scan")
    }

    private static func key(_ token: String) -> [UInt8] { [devicePrefix] + Array(token.utf8) }

    /// Waits until RocksDB has written everything to disk and no compaction runs or is due.
    @_spi(Benchmarks) public func settle() throws(DeviceStoreError) { try database.settle() }

    /// `result`'s value, or a store error saying what of a row does not read (never its token).
    private func inDoubt<T>(_ result: Result<T, MalformedRecord>, operation: String) throws(DeviceStoreError) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let malformed):
            throw DeviceStoreError(path: path, operation: operation, message: malformed.description)
        }
    }
}
