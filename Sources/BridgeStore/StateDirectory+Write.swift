extension StateDirectory {
    /// Writes `batch` to the open stores of its partitions: each partition's records in order
    /// and its checkpoint, in one transaction. A partition without an open store is skipped.
    /// Throws ``StateDirectoryError`` when a store cannot be written (a full disk): the changelog
    /// still has every record, and the store's checkpoint stays where its records end.
    public func write(_ batch: StoreBatch) throws(StateDirectoryError) {
        try StoreWrite(records: batch, stores: open, directory: path).run()
    }

    /// Holds committed records for their open stores, after those held already, to be written
    /// later, as one write: by ``writeUnwritten()``, or by whoever takes them
    /// (``takeUnwritten()``). Records of a partition without an open store are dropped; so are
    /// those held for a store released or discarded before they are written, which keeps its
    /// checkpoint.
    public mutating func hold(_ batch: StoreBatch) {
        var batch = batch
        batch.removeAll { open[$0] == nil }
        unwritten.append(contentsOf: batch)
    }

    /// Takes the records held, for a write to their stores away from the caller (a blocking
    /// one); nil when none are.
    public mutating func takeUnwritten() -> StoreWrite? {
        guard !unwritten.checkpoints.isEmpty else { return nil }
        defer { unwritten = StoreBatch() }
        return StoreWrite(records: unwritten, stores: open, directory: path)
    }

    /// Writes the records held to their stores, as ``write(_:)`` does.
    public mutating func writeUnwritten() throws(StateDirectoryError) {
        try takeUnwritten()?.run()
    }
}

/// Records on their way to the stores open when they were taken: a write that may run on
/// another thread, since it touches nothing of its ``StateDirectory``.
public struct StoreWrite: Sendable {
    /// The records, and the checkpoints they move their stores to.
    public let records: StoreBatch
    /// The stores they go to, by partition.
    public let stores: [Int32: PartitionStore]
    /// The state directory, for errors.
    public let directory: String

    /// `records` for `stores`, in the state directory `directory`.
    public init(records: StoreBatch, stores: [Int32: PartitionStore], directory: String) {
        self.records = records
        self.stores = stores
        self.directory = directory
    }

    /// Writes each partition's records in order, and its checkpoint, in one transaction; a
    /// partition without a store is skipped. Blocks while SQLite writes. Throws
    /// ``StateDirectoryError`` when a store cannot be written (a full disk): the changelog still
    /// has every record, and the store's checkpoint stays where its records end.
    public func run() throws(StateDirectoryError) {
        for (partition, checkpoint) in records.checkpoints.sorted(by: { $0.key < $1.key }) {
            guard let store = stores[partition] else { continue }
            do {
                try store.write(through: checkpoint) { try records.put(partition, to: &$0) }
            } catch {
                throw StateDirectoryError(path: directory, "cannot write the store of partition \(partition): \(error)")
            }
        }
    }
}
