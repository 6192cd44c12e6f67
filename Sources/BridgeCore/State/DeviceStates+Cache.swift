import DeviceQueues

/// Partitions served from a store: the devices held are a cache of the store's. Before a
/// batch is processed, its caller reads from the store the devices the batch names
/// (``RecordProcessor/devices(namedBy:)``) that must be read (``devicesToRead(_:in:)``) and
/// gives them here (``admit(_:read:in:)``); processing then finds every device it needs held,
/// or knows it is new. Once the store holds a batch's changes (``written(through:)``), the
/// devices they changed may leave (``evict(in:keeping:)``).
///
/// The idle sweep and the gauges see the devices held only.
extension DeviceStates {
    /// Serves `partition`, adopted, from a store that holds every device it holds now.
    public mutating func serve(_ partition: Int32) {
        guard owns(partition) else { return }
        caches[partition] = DeviceCache()
    }

    /// Whether `partition` is served from a store.
    public func isServed(_ partition: Int32) -> Bool { caches[partition] != nil }

    /// Of `tokens`, each once, those whose devices must be read from the store before they are
    /// used in `partition`: none held, and none known to be nowhere. None in a partition that is
    /// not served from a store.
    public func devicesToRead(_ tokens: some Sequence<String>, in partition: Int32) -> [String] {
        guard let cache = caches[partition], let held = partitions[partition] else { return [] }
        var seen: Set<DeviceKey> = []
        return tokens.filter { token in
            let key = DeviceKey(token: token)
            return held[key] == nil && cache.mustRead(key) && seen.insert(key).inserted
        }
    }

    /// Holds the devices read from the store, `found` by token, of `tokens` read for
    /// `partition`; a token not found has no device until the open batch ends. A device held
    /// meanwhile stays as held: it is the newer.
    public mutating func admit(_ found: [String: DeviceQueue], read tokens: [String], in partition: Int32) {
        guard caches[partition] != nil, partitions[partition] != nil else { return }
        for token in tokens {
            let key = DeviceKey(token: token)
            guard partitions[partition]?[key] == nil else { continue }
            if let device = found[token] {
                partitions[partition]?[key] = device
                caches[partition]?.use(key, in: batch, changed: false)
            } else {
                caches[partition]?.notInStore(key)
            }
        }
    }

    /// Ends the open batch; returns its number, by which ``written(through:)`` names it.
    public mutating func seal() -> UInt64 {
        for partition in caches.keys { caches[partition]?.seal() }
        defer { batch &+= 1 }
        return batch
    }

    /// Notes that the stores hold every change of the batches up to `batch`.
    public mutating func written(through batch: UInt64) {
        for partition in caches.keys { caches[partition]?.written(through: batch) }
    }

    /// Lets go of held devices of `partition` whose changes the store holds, least recently
    /// used first, until it holds `limit`; returns how many left. None in a partition that is
    /// not served from a store.
    @discardableResult
    public mutating func evict(in partition: Int32, keeping limit: Int) -> Int {
        guard let held = partitions[partition]?.keys, held.count > limit else { return 0 }
        guard let leaving = caches[partition]?.evictions(from: held, keeping: limit) else { return 0 }
        for key in leaving { partitions[partition]?[key] = nil }
        return leaving.count
    }
}
