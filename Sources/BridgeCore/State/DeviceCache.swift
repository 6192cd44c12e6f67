/// What a state partition served from a store knows of the devices it does not hold: the
/// devices held are a cache of the store's (``DeviceStates/serve(_:)``).
///
/// A device not held is in the store, or nowhere: the store answers. Two kinds of device are
/// known to be nowhere without asking: one the store was asked for and did not hold, until the
/// batch that asked ends; and one forgotten, until the store holds its removal. A device leaves
/// the cache only once the store holds its last change: until then the store holds an older
/// one. Batches are numbered by the caller's seals (``DeviceStates/seal()``).
struct DeviceCache: Sendable, Equatable {
    /// Devices changed in a batch whose changes the store does not hold yet, by that batch: held,
    /// or forgotten.
    private var unwritten: [DeviceKey: UInt64] = [:]
    /// Devices the store was asked for in the open batch and did not hold.
    private var notInStore: Set<DeviceKey> = []
    /// The batch that last used each device held.
    private var lastUse: [DeviceKey: UInt64] = [:]

    /// Whether the store must be asked for a device not held: not when it is known to be nowhere.
    func mustRead(_ key: DeviceKey) -> Bool {
        unwritten[key] == nil && !notInStore.contains(key)
    }

    /// Notes that the store does not hold `key`.
    mutating func notInStore(_ key: DeviceKey) { notInStore.insert(key) }

    /// Notes a use of `key` in `batch`, and a change when `changed`.
    mutating func use(_ key: DeviceKey, in batch: UInt64, changed: Bool) {
        lastUse[key] = batch
        if changed { unwritten[key] = batch }
    }

    /// Notes that `key` was forgotten in `batch`: nowhere until the store holds its removal.
    mutating func forget(_ key: DeviceKey, in batch: UInt64) {
        lastUse[key] = nil
        unwritten[key] = batch
    }

    /// Ends the open batch: what the store did not hold may be there by the next.
    mutating func seal() { notInStore.removeAll(keepingCapacity: true) }

    /// Notes that the store holds every change of the batches up to `batch`.
    mutating func written(through batch: UInt64) {
        unwritten = unwritten.filter { $0.value > batch }
    }

    /// Of `held`, those to let go to bring it to `limit` devices: written ones that `openBatch`
    /// has not used (it may have read them for records still to come), the least recently used
    /// first.
    mutating func evictions(from held: [DeviceKey], keeping limit: Int, openBatch: UInt64) -> [DeviceKey] {
        let excess = held.count - max(limit, 0)
        guard excess > 0 else { return [] }
        let written = held.filter { unwritten[$0] == nil && lastUse[$0] != openBatch }
        let leaving = written.sorted { lastUse[$0, default: 0] < lastUse[$1, default: 0] }.prefix(excess)
        for key in leaving { lastUse[key] = nil }
        return Array(leaving)
    }
}
