import DeviceStore
import Foundation
import Logging

/// The worker's state directory: one ``PartitionStore`` per state partition, in a file named
/// after its changelog partition, and with ``keepsDeviceRows`` its ``DeviceRows`` beside it.
/// Holds the stores of the partitions the worker owns open, and deletes the store of a
/// partition released and not taken back within the cleanup delay.
public struct StateDirectory: Sendable {
    /// The directory.
    public let path: String
    /// The consumer group whose state it holds.
    public let group: String
    /// The changelog topic.
    public let topic: String
    /// The changelog topic's id (KIP-516) when the cluster gives one: a store written from
    /// another incarnation of the topic is in doubt.
    public let changelogID: String?
    /// How long the store of a released partition is kept.
    public let cleanupDelay: Duration
    /// Whether each store has device rows beside it, written with it (``StoreBatch/rows``).
    public let keepsDeviceRows: Bool
    /// The open stores, by partition.
    public private(set) var open: [Int32: PartitionStore] = [:]
    /// The device rows of the open stores, by partition, with ``keepsDeviceRows``.
    public private(set) var rows: [Int32: DeviceRows] = [:]
    /// Committed records held for their open stores and not yet written (``hold(_:now:)``).
    public internal(set) var unwritten = StoreBatch()
    /// When the first of ``unwritten`` was held.
    var heldSince = ContinuousClock.now
    /// When the records held are written.
    public var writePacing = StoreWritePacing()
    /// Stores on disk that are not open, by when they were released.
    private var released: [Int32: ContinuousClock.Instant] = [:]
    /// This process's hold on the directory.
    private let lock: DirectoryLock

    /// The state directory at `path`, for `group`'s changelog `topic` of the topic id
    /// `changelogID` (nil when the cluster gives none), created when missing, and locked for this
    /// process until the value (and every copy of it) goes. Stores already there count as
    /// released now. With `deviceRows`, each store has device rows beside it. Throws
    /// ``StateDirectoryError`` when it cannot be created or read, or another process holds it.
    public init(
        path: String, group: String, topic: String, changelogID: String?, cleanupDelay: Duration,
        deviceRows: Bool = false
    ) throws(StateDirectoryError) {
        self.path = path
        self.keepsDeviceRows = deviceRows
        self.group = group
        self.topic = topic
        self.changelogID = changelogID
        self.cleanupDelay = cleanupDelay
        let files: [String]
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            files = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StateDirectoryError(path: path, "cannot be created or read: \(error)")
        }
        lock = try DirectoryLock(directory: path)
        let now = ContinuousClock.now
        for file in files {
            if let partition = partition(ofFile: file) { released[partition] = now }
        }
    }

    /// The store of `partition`, which the worker now owns: the one on disk when it is a valid
    /// store of this group's changelog partition, else a new empty one (the doubt is logged in
    /// one line and the old file deleted).
    public mutating func open(_ partition: Int32, logger: Logger) throws(StateDirectoryError) -> PartitionStore {
        if let store = open[partition] { return store }
        released[partition] = nil
        let identity = StoreIdentity(group: group, topic: topic, partition: partition)
        let file = self.file(of: partition)
        do {
            let store = try PartitionStore.open(at: file, identity: identity, changelogID: changelogID)
            open[partition] = store
            // A checkpoint that does not read is the restore's to find: it recreates the store.
            try openRows(partition, notPast: try? store.checkpoint(), logger: logger)
            return store
        } catch let error as StateDirectoryError {
            throw error
        } catch {
            logger.warning("\(error); it is deleted, and the partition restored from its changelog")
        }
        return try recreate(partition)
    }

    /// Opens the device rows of `partition` beside its store, whose checkpoint is `storeCheckpoint`
    /// (nil when unknown). Rows that do not open (damaged) or are past the store (a power loss kept
    /// the one write and lost the other) are deleted, logged, and made anew: a restore replaces
    /// rows behind their store whole. Without ``keepsDeviceRows``, rows an earlier run left are
    /// deleted: nothing keeps them in step with the store.
    private mutating func openRows(_ partition: Int32, notPast storeCheckpoint: Int64?, logger: Logger?)
        throws(StateDirectoryError)
    {
        let directory = rowsDirectory(of: partition)
        if keepsDeviceRows {
            do {
                let opened = try Self.makeRows(in: directory)
                let checkpoint = try opened.checkpoint()
                guard let checkpoint, let storeCheckpoint, checkpoint > storeCheckpoint else {
                    rows[partition] = opened
                    return
                }
                logger?.warning(
                    "the device rows of partition \(partition) cover the changelog to \(checkpoint), past their store's \(storeCheckpoint); they are deleted, and written anew"
                )
            } catch {
                logger?.warning("\(error); the device rows are deleted, and written anew")
            }
        }
        do {
            if FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.removeItem(atPath: directory)
            }
            if keepsDeviceRows {
                rows[partition] = try Self.makeRows(in: directory)
            }
        } catch {
            throw StateDirectoryError(path: path, "cannot make the device rows of partition \(partition): \(error)")
        }
    }

    /// Opens the device rows in `directory` with a block cache of 8 MiB (the devices read most
    /// are held in memory above it) and memtables of 16 MiB: at most 40 MiB of both, where
    /// RocksDB's defaults would allow 136.
    private static func makeRows(in directory: String) throws(DeviceStoreError) -> DeviceRows {
        try DeviceRows(at: directory, cacheBytes: 8 << 20, writeBufferBytes: 16 << 20)
    }

    /// Deletes `partition`'s store, which is in doubt (``StoreDoubt``), and opens a new empty one.
    public mutating func recreate(_ partition: Int32) throws(StateDirectoryError) -> PartitionStore {
        open[partition] = nil
        rows[partition] = nil
        unwritten.removeAll { $0 == partition }
        try delete(partition)
        do {
            let store = try PartitionStore.open(
                at: file(of: partition), identity: StoreIdentity(group: group, topic: topic, partition: partition),
                changelogID: changelogID)
            open[partition] = store
            try openRows(partition, notPast: nil, logger: nil)
            return store
        } catch let error as StateDirectoryError {
            throw error
        } catch {
            throw StateDirectoryError(path: path, "cannot create a store for partition \(partition): \(error)")
        }
    }

    /// Deletes the store of a partition the worker owns and keeps none for it until it is opened
    /// again: for a store that cannot be kept in step with the changelog.
    public mutating func discard(_ partition: Int32) throws(StateDirectoryError) {
        guard open.removeValue(forKey: partition) != nil else { return }
        rows[partition] = nil
        unwritten.removeAll { $0 == partition }
        try delete(partition)
    }

    /// The open store of `partition`; nil when the worker does not own it.
    public subscript(partition: Int32) -> PartitionStore? { open[partition] }

    /// Closes the store of a partition the worker no longer owns; it is kept on disk for the
    /// cleanup delay, in case the partition comes back. Its records not yet written are
    /// dropped: the store stays as its checkpoint says, and the changelog has them.
    public mutating func release(_ partition: Int32) {
        guard open.removeValue(forKey: partition) != nil else { return }
        rows[partition] = nil
        unwritten.removeAll { $0 == partition }
        released[partition] = .now
    }

    /// Closes every open store, as ``release(_:)`` does.
    public mutating func releaseAll() {
        for partition in Array(open.keys) { release(partition) }
    }

    /// Deletes the stores released longer than the cleanup delay ago, but those of `spared` (a
    /// write to them is under way); returns their partitions.
    public mutating func removeExpired(
        now: ContinuousClock.Instant = .now, sparing spared: Set<Int32> = []
    ) throws(StateDirectoryError) -> [Int32] {
        let cleanupDelay = cleanupDelay
        let isExpired = { (store: (key: Int32, value: ContinuousClock.Instant)) in
            now - store.value >= cleanupDelay && !spared.contains(store.key)
        }
        // Called at every turn of the worker's loop: nothing is allocated until a store expires.
        guard released.contains(where: isExpired) else { return [] }
        let expired = released.filter(isExpired).keys.sorted()
        for partition in expired {
            try delete(partition)
            released[partition] = nil
        }
        return expired
    }

    /// The store's file of `partition`: `<changelog topic>-<partition>.sqlite`.
    public func file(of partition: Int32) -> String { "\(path)/\(topic)-\(partition).sqlite" }

    /// The directory of `partition`'s device rows: `<changelog topic>-<partition>.rows`.
    public func rowsDirectory(of partition: Int32) -> String { "\(path)/\(topic)-\(partition).rows" }

    /// The partition a file of this directory is the store or the device rows of; nil for
    /// another file.
    private func partition(ofFile name: String) -> Int32? {
        let prefix = "\(topic)-"
        guard name.hasPrefix(prefix) else { return nil }
        for suffix in [".sqlite", ".rows"] where name.hasSuffix(suffix) {
            return Int32(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
        return nil
    }

    /// Deletes `partition`'s store, SQLite's files beside it, and its device rows.
    private func delete(_ partition: Int32) throws(StateDirectoryError) {
        let file = self.file(of: partition)
        // The rows first: rows left without their store would be past the new one.
        for path in [rowsDirectory(of: partition), file, file + "-wal", file + "-shm"]
        where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw StateDirectoryError(path: self.path, "cannot delete \(path): \(error)")
            }
        }
    }
}

/// The state directory cannot be used: the worker stops, naming it.
public struct StateDirectoryError: Error, CustomStringConvertible {
    /// The directory.
    public var path: String
    /// What is wrong, after the directory's name.
    public var reason: String

    /// The state directory `path` cannot be used, for `reason`.
    public init(path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "state.directory \(path) \(reason)" }
}
