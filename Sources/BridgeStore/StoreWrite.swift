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
