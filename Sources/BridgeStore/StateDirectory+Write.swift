extension StateDirectory {
    /// Writes `batch` to the open stores of its partitions: each partition's records in order
    /// and its checkpoint, in one transaction. A partition without an open store is skipped.
    /// Throws ``StateDirectoryError`` when a store cannot be written (a full disk): the changelog
    /// still has every record, and the store's checkpoint stays where its records end.
    public func write(_ batch: StoreBatch) throws(StateDirectoryError) {
        try Self.write(batch, to: open, directory: path)
    }

    /// ``write(_:)`` to the stores `stores`, of the state directory `directory`: for a restore,
    /// which writes the stores it opened as it began beside its reading.
    public static func write(_ batch: StoreBatch, to stores: [Int32: PartitionStore], directory: String)
        throws(StateDirectoryError)
    {
        for (partition, checkpoint) in batch.checkpoints.sorted(by: { $0.key < $1.key }) {
            guard let store = stores[partition] else { continue }
            do {
                try store.write(through: checkpoint) { try batch.put(partition, to: &$0) }
            } catch {
                throw StateDirectoryError(path: directory, "cannot write the store of partition \(partition): \(error)")
            }
        }
    }
}
