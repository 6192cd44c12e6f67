extension StateDirectory {
    /// Writes `records`, in order, to their partitions' open stores, and moves each store's
    /// checkpoint to `checkpoints[partition]`: one transaction per partition. A partition
    /// without an open store is skipped. Throws ``StateDirectoryError`` when a store cannot be
    /// written (a full disk): the changelog still has every record, and the store's
    /// checkpoint stays where its records end.
    public func write(_ records: [StoredRecord], checkpoints: [Int32: Int64]) throws(StateDirectoryError) {
        let byPartition = Dictionary(grouping: records, by: \.partition)
        for (partition, checkpoint) in checkpoints.sorted(by: { $0.key < $1.key }) {
            guard let store = self[partition] else { continue }
            do {
                try store.write(through: checkpoint) { writer in
                    for record in byPartition[partition] ?? [] { try writer.put(record) }
                }
            } catch {
                throw StateDirectoryError(path: path, "cannot write the store of partition \(partition): \(error)")
            }
        }
    }
}
