/// The changelog partitions a restore began from their local stores.
struct StoreStarts {
    /// Where each partition's changelog is read from: its store's checkpoint.
    var offsets: [Int32: Int64] = [:]
    /// The records each store replayed.
    var records: [Int32: Int] = [:]
    /// Partitions no fetch has confirmed yet: a checkpoint is only good at or below the
    /// changelog's high watermark.
    var unconfirmed: Set<Int32> = []

    /// Records replayed from the stores.
    var recordCount: Int { records.values.reduce(0, +) }
}

/// An attempt to restore dropped a store its changelog does not reach: it starts over.
struct RestoreStartsOver: Error, CustomStringConvertible {
    var description: String { "restoring device state started over too often: the changelog keeps moving" }
}
