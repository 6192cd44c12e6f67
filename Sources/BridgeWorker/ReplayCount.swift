import BridgeCore

/// What a restore replayed, and what it did not.
struct ReplayCount: Sendable {
    /// Changes replayed from the changelog.
    var changes = 0
    /// Records replayed from the local stores.
    var fromStores = 0
    /// Partitions that resumed the state set aside for them (no store replayed).
    var resumed: [Int32] = []
    /// Partitions served from their device rows, whose stores replayed topic state only.
    var fromRows: [Int32] = []
    /// Records not replayed as they came.
    var skipped = SkippedChanges()

    /// Applies `batch` to `states` and counts what it held.
    mutating func add(_ batch: inout DecodedChanges, to states: inout DeviceStates) {
        changes += batch.apply(to: &states)
        skipped.add(batch.skipped)
        batch.skipped = SkippedChanges()
    }
}
