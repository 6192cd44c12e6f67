import DeviceQueues

/// Partitions served from a store: the devices held are a cache of the store's. Before a
/// batch is processed, its caller reads from the store the devices the batch names
/// (``RecordProcessor/devices(namedBy:)``) that must be read (``devicesToRead(_:in:)``) and
/// gives them here (``admit(_:read:in:)``); processing then finds every device it needs held,
/// or knows it is new. Once the store holds a batch's changes (``written(through:)``), the
/// devices they changed may leave (``evict(in:keeping:)``).
///
/// Nothing may be processed, sealed or written between ``devicesToRead(_:in:)`` and
/// ``admit(_:read:in:)``; a device a batch names and its caller did not read is made anew, so
/// the caller reads every device ``RecordProcessor/devices(namedBy:)`` names, and the next devices
/// the idle sweep is to forget (``sweepCandidatesToRead(in:inputs:)``). The sweep scans the devices
/// held and asks for the store's idle devices (``takeStoreScans()``, ``addIdle(_:in:)``); a device
/// it is to forget and that is still to be read waits for the next batch. The devices and
/// waiting messages are counted as changes make and forget them, not walked. Topics' members are
/// served from the store the same way (``TopicStates/membersToRead(_:in:chunkMembers:)``,
/// ``admit(_:areMembers:walked:in:)``).
extension DeviceStates {
    /// Serves `partition`, adopted and restored, from a store that holds exactly the devices and
    /// topics' members it holds now, as they are: every change written, or, when not `written`,
    /// once the open batch's changes are (a store the caller replaces whole before the batch's
    /// writes: until then no device or member is read, and none leaves). A partition served
    /// already is left as it is.
    public mutating func serve(_ partition: Int32, written: Bool = true) {
        guard let held = partitions[partition], caches[partition] == nil else { return }
        var cache = DeviceCache()
        for (key, device) in held { cache.hold(key, waiting: device.waiting.count) }
        if !written { cache.replaced(in: batch) }
        caches[partition] = cache
        topics.serveMembers(partition, heldUntil: written ? nil : batch)
    }

    /// Serves `partition`, adopted, from a store that holds every device and topic member of the
    /// partition's changelog up to where its replay starts, `counts` and `memberCounts` (by
    /// topic) among them: no device or member is held until read (a restart, which replays the
    /// changelog after the store's checkpoint onto the devices and members it names, read
    /// first). A partition served already is left as it is.
    public mutating func serve(_ partition: Int32, storeHolding counts: DeviceCounts, memberCounts: [String: Int]) {
        guard partitions[partition] != nil, caches[partition] == nil else { return }
        caches[partition] = DeviceCache(counts: counts)
        topics.serveMembers(partition, rowsHolding: memberCounts)
    }

    /// The devices and waiting messages of `partition` when it is served from a store, counted
    /// as changes make and forget them; nil otherwise.
    public func counts(in partition: Int32) -> DeviceCounts? { caches[partition]?.counts }

    /// The devices of served `partition` changed in batches the store does not hold yet, as they
    /// are now (nil: forgotten).
    public func unwrittenDevices(in partition: Int32) -> [DeviceKey: DeviceQueue?] {
        guard let cache = caches[partition] else { return [:] }
        var devices: [DeviceKey: DeviceQueue?] = [:]
        for key in cache.unwrittenDevices { devices[key] = .some(partitions[partition]?[key]) }
        return devices
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
            return Self.mustRead(key, held: held, cache: cache) && seen.insert(key).inserted
        }
    }

    /// Whether `key`'s device must be read from the store: not `held`, and not known to be
    /// nowhere. Looks the device up without copying it.
    private static func mustRead(_ key: DeviceKey, held: [DeviceKey: DeviceQueue], cache: DeviceCache) -> Bool {
        held.index(forKey: key) == nil && cache.mustRead(key)
    }

    /// Holds the devices read from the store, `found` by token, of `tokens` read for
    /// `partition`; a token not found has no device until the open batch ends. A device held
    /// meanwhile, or known to be nowhere, stays so: the store's is the older.
    public mutating func admit(_ found: [String: DeviceQueue], read tokens: [String], in partition: Int32) {
        guard caches[partition] != nil, partitions[partition] != nil else { return }
        for token in tokens {
            let key = DeviceKey(token: token)
            // Asked in place: a copy of the cache kept across the loop would make its first use
            // below copy every device's entry.
            guard partitions[partition]?.index(forKey: key) == nil, caches[partition]?.mustRead(key) == true else {
                continue
            }
            if let device = found[token] {
                partitions[partition]?[key] = device
                caches[partition]?.use(key, in: batch, changed: false)
            } else {
                caches[partition]?.notInStore(key)
            }
        }
    }

    /// Holds what was read of served `partition`'s member rows for `toRead`
    /// (``TopicStates/membersToRead(_:in:chunkMembers:)``), in its order: whether each token is a
    /// member, and each topic's members from each cursor.
    public mutating func admit(
        _ toRead: MemberRowsToRead, areMembers: [Bool], walked: [(tokens: [String], toEnd: Bool)], in partition: Int32
    ) {
        topics.admit(toRead, areMembers: areMembers, walked: walked, in: partition)
    }

    /// Ends the open batch; returns its number, by which ``written(through:)`` names it.
    public mutating func seal() -> UInt64 {
        for partition in caches.keys { caches[partition]?.seal() }
        topics.seal(batch)
        defer { batch &+= 1 }
        return batch
    }

    /// Notes that the stores hold every change of the batches up to `batch`, sealed (the open
    /// batch is not written: a number past the sealed ones counts as the last sealed).
    public mutating func written(through batch: UInt64) {
        guard self.batch > 0 else { return }
        let sealed = min(batch, self.batch - 1)
        for partition in caches.keys { caches[partition]?.written(through: sealed) }
        topics.written(through: sealed)
    }

    /// Lets go of held devices of `partition` whose changes the store holds and that the open
    /// batch has not used, least recently used first, until it holds `limit`; returns how many
    /// left. None in a partition that is not served from a store.
    @discardableResult
    public mutating func evict(in partition: Int32, keeping limit: Int) -> Int {
        guard let held = partitions[partition]?.count, held > max(limit, 0),
            let leaving = caches[partition]?.evictions(held - max(limit, 0))
        else { return 0 }
        for key in leaving { partitions[partition]?[key] = nil }
        return leaving.count
    }

    /// The scans of their stores that served partitions' idle sweeps ask for, by partition: the
    /// event time to find the devices idle at. Each is given once; the caller gives what the
    /// scan finds to ``addIdle(_:in:)``.
    public mutating func takeStoreScans() -> [Int32: Int64] {
        var scans: [Int32: Int64] = [:]
        for partition in caches.keys {
            guard let time = caches[partition]?.storeScanDue else { continue }
            scans[partition] = time
            caches[partition]?.storeScanDue = nil
        }
        return scans
    }

    /// Adds `tokens`, the store's devices idle at the time ``takeStoreScans()`` gave, to
    /// `partition`'s sweep. Each is judged again as held when its turn comes: a device active
    /// since, or forgotten already, stays or is passed over.
    public mutating func addIdle(_ tokens: [String], in partition: Int32) {
        guard caches[partition] != nil else { return }
        sweeps[partition]?.add(tokens.map { DeviceKey(token: $0) })
    }

    /// The devices the idle sweep of `partition` may forget within `inputs` inputs that are still
    /// to be read from the store, next first.
    public func sweepCandidatesToRead(in partition: Int32, inputs: Int) -> [String] {
        guard let cache = caches[partition], let held = partitions[partition], let sweep = sweeps[partition] else {
            return []
        }
        let (count, overflow) = inputs.multipliedReportingOverflow(by: IdleSweep.changesPerInput)
        return sweep.upcoming(overflow ? Int.max : count).filter { Self.mustRead($0, held: held, cache: cache) }
            .map(\.token)
    }
}
