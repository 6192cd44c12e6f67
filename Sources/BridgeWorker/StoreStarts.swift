/// The changelog partitions a restore began from their local stores.
struct StoreStarts {
    /// Where each partition's changelog is read from: its store's checkpoint.
    var offsets: [Int32: Int64] = [:]
    /// The records the stores replayed.
    var records = 0
    /// Partitions that resumed the state set aside for them instead of replaying their store.
    var resumed: [Int32] = []
    /// Partitions served from their device rows at their store's checkpoint: their stores' topic
    /// state was replayed, and their devices are read as the changelog after it names them.
    var fromRows: [Int32] = []
    /// Partitions no fetch has confirmed yet: a checkpoint is only good at or below the
    /// changelog's high watermark.
    var unconfirmed: Set<Int32> = []
}

/// An attempt to restore dropped a store its changelog does not reach: it starts over.
struct RestoreStartsOver: Error, CustomStringConvertible {
    var description: String { "restoring device state started over too often: the changelog keeps moving" }
}
