import DeviceStore

/// Records on their way to the stores open when they were taken: a write that may run on
/// another thread, since it touches nothing of its ``StateDirectory``.
public struct StoreWrite: Sendable {
    /// The records, and the checkpoints they move their stores to.
    public let records: StoreBatch
    /// The stores they go to, by partition.
    public let stores: [Int32: PartitionStore]
    /// The device rows beside the stores, by partition.
    public let rows: [Int32: DeviceRows]
    /// The state directory, for errors.
    public let directory: String

    /// `records` for `stores` and their `rows`, in the state directory `directory`.
    public init(
        records: StoreBatch, stores: [Int32: PartitionStore], rows: [Int32: DeviceRows] = [:], directory: String
    ) {
        self.records = records
        self.stores = stores
        self.rows = rows
        self.directory = directory
    }

    /// The partitions whose stores or rows it writes.
    public var partitions: Set<Int32> {
        Set(records.checkpoints.keys.filter { stores[$0] != nil })
            .union(records.rows.partitions.filter { rows[$0] != nil })
    }

    /// Writes each partition's records in order, and its checkpoint, in one transaction, then its
    /// devices to its rows with the same checkpoint (the store's own when the records move none);
    /// a partition without a store is skipped. Blocks while SQLite and RocksDB write. Throws
    /// ``StateDirectoryError`` when a store or its rows cannot be written (a full disk): the
    /// changelog still has every record, and each checkpoint stays where its records end.
    public func run() throws(StateDirectoryError) {
        for partition in partitions.sorted() {
            guard let store = stores[partition] else { continue }
            do {
                if let checkpoint = records.checkpoints[partition] {
                    try store.write(through: checkpoint) { try records.put(partition, to: &$0) }
                }
            } catch {
                throw StateDirectoryError(path: directory, "cannot write the store of partition \(partition): \(error)")
            }
            guard let partitionRows = rows[partition], records.rows.holds(partition) else { continue }
            do {
                let checkpoint = try records.checkpoints[partition] ?? store.checkpoint()
                try records.rows.write(partition, to: partitionRows, checkpoint: checkpoint)
            } catch {
                throw StateDirectoryError(
                    path: directory, "cannot write the device rows of partition \(partition): \(error)")
            }
        }
    }
}
