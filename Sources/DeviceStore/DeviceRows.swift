import BridgeCore
import Foundation

/// One state partition's devices on disk, and the changelog offset the rows cover, written
/// together with them. The rows equal a replay of the changelog up to ``checkpoint()``; the
/// changelog after it is still to be applied.
///
/// Each device is a head row under its token and a row per waiting message under its token and
/// the message's id (``DeviceRow``), keyed so that a device's rows are next to each other:
///
///     head     := "d" u32 token length (big-endian), token
///     message  := head "m" message id
///
/// A token may hold any byte; its length first keeps one token's rows from mixing with another's.
/// Beside them, a row per member of each topic whose partition this is (``memberPrefix``).
/// Reads go through RocksDB's block cache, whose size the caller gives, and its bloom filters,
/// so asking for a device the partition does not hold costs mostly no disk read. The database
/// is closed when the last copy of the value goes; until then no other can open its directory.
public struct DeviceRows: Sendable {
    let database: RocksDatabase

    /// How the table file of a load starts its name, in the rows' directory: RocksDB leaves it
    /// alone (its own files are numbered) and takes it in under a name of its own. Each load's
    /// name ends in a random number, so that loads may run at once.
    static let loadFilePrefix = "load-"
    /// The key of the checkpoint; device keys start with `d`, so none can be this one.
    static let checkpointKey = Array("checkpoint".utf8)
    /// The key of the rows' layout, written when they are created: rows of another are refused.
    private static let layoutKey = Array("layout".utf8)
    private static let layout: [UInt8] = [4]
    static let devicePrefix = UInt8(ascii: "d")
    static let messageMark = UInt8(ascii: "m")

    /// Opens the rows in directory `path`, creating them empty when there are none, with a
    /// block cache of at most `cacheBytes` and, when given, at most two memtables of
    /// `writeBufferBytes` each (RocksDB's default: 64 MiB). Deletes the table files of loads a
    /// crash cut short. Throws for rows of another layout.
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
        try checkLayout()
    }

    /// Writes the layout into rows that hold nothing; throws for rows of another layout.
    private func checkLayout() throws(DeviceStoreError) {
        let layout = try database.withValue(of: Self.layoutKey) { $0.map { Array($0) } }.get()
        if layout == Self.layout { return }
        var isEmpty = true
        _ = try database.scan(from: []) { _, _ in
            isEmpty = false
            return false
        }
        guard isEmpty else {
            let found = layout.map { "layout \($0)" } ?? "an earlier layout"
            throw DeviceStoreError(
                path: path, operation: "open", message: "the rows are of \(found), not \(Self.layout)")
        }
        let batch = RocksBatch()
        Self.layout.withUnsafeBytes { batch.put(Self.layoutKey, $0) }
        try database.write(batch)
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

    /// The key of `token`'s head row.
    static func key(_ token: String) -> [UInt8] {
        var key = [devicePrefix]
        key.reserveCapacity(5 + token.utf8.count)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: token.utf8.count).bigEndian) { key.append(contentsOf: $0) }
        key.append(contentsOf: token.utf8)
        return key
    }

    /// The name a key holds after its first byte and the name's length (a device's token, a
    /// member row's topic), and what follows it; nil for a key too short for its length.
    static func nameAndRest(ofKey key: UnsafeRawBufferPointer) -> (
        name: UnsafeRawBufferPointer.SubSequence, rest: UnsafeRawBufferPointer.SubSequence
    )? {
        guard key.count >= 5 else { return nil }
        let length = key[1..<5].reduce(0) { $0 << 8 | Int($1) }
        guard length <= key.count - 5 else { return nil }
        return (key[5..<(5 + length)], key[(5 + length)...])
    }

    /// Writes what the memtables hold to disk, so that the next open has no log to replay
    /// (seconds, for millions of rows written since the last flush): for a graceful stop. False,
    /// writing nothing, after a failed write or without room on disk for it.
    @discardableResult public func flush() throws(DeviceStoreError) -> Bool { try database.flush() }

    /// Waits until RocksDB has written everything to disk and no compaction runs or is due.
    @_spi(Benchmarks) public func settle() throws(DeviceStoreError) { try database.settle() }

    /// `result`'s value, or a store error saying what of a row does not read (never its token).
    @discardableResult func inDoubt<T>(_ result: Result<T, MalformedRecord>, operation: String) throws(DeviceStoreError)
        -> T
    {
        switch result {
        case .success(let value): return value
        case .failure(let malformed):
            throw DeviceStoreError(path: path, operation: operation, message: malformed.description)
        }
    }
}
