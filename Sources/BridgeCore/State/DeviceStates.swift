import DeviceQueues

/// The device queues of the state partitions this worker owns, by partition and token (its
/// bytes: ``DeviceKey``).
public struct DeviceStates: Sendable, Equatable {
    var partitions: [Int32: [DeviceKey: DeviceQueue]] = [:]
    /// Inputs on their way to the partitions held here through the repartition topic.
    var forwards = ForwardsInFlight()
    /// Forgetting idle devices, per partition.
    var sweeps: [Int32: IdleSweep] = [:]
    /// The topics of the partitions held: each topic's members, and each device's own topics.
    public internal(set) var topics = TopicStates()
    /// State set aside for partitions revoked, until an assignment gives them back or not.
    var suspended: [Int32: SuspendedPartition] = [:]
    /// The partitions served from a store, whose devices held are a cache (``serve(_:written:)``).
    var caches: [Int32: DeviceCache] = [:]
    /// The number of the open batch (``seal()``).
    var batch: UInt64 = 0

    /// No partitions held.
    public init() {}

    /// Whether this worker holds (has restored) the state of `partition`.
    func owns(_ partition: Int32) -> Bool { partitions[partition] != nil }

    /// Devices, over all partitions: those held, and in a partition served from a store, those
    /// the store holds (counted as changes make and forget them).
    public var deviceCount: Int {
        partitions.reduce(0) { $0 + (caches[$1.key]?.counts.devices ?? $1.value.count) }
    }

    /// Devices held in memory, over all partitions: ``deviceCount`` but in partitions served from
    /// a store.
    public var devicesInMemory: Int { partitions.values.reduce(0) { $0 + $1.count } }

    /// State partitions held.
    public var partitionCount: Int { partitions.count }

    /// Messages waiting in every queue, as ``deviceCount`` counts devices: a walk over every device
    /// held in a partition not served from a store, for a gauge now and then.
    public var waitingMessageCount: Int {
        partitions.reduce(0) { sum, partition in
            sum
                + (caches[partition.key]?.counts.waitingMessages
                    ?? partition.value.values.reduce(0) { $0 + $1.waiting.count })
        }
    }

    /// Starts holding a partition, with no devices yet (before its changelog is replayed).
    public mutating func adopt(_ partition: Int32) {
        partitions[partition] = [:]
        sweeps[partition] = IdleSweep()
        topics.adopt(partition)
        // Restored before it is served again (``serve(_:written:)``, ``serve(_:storeHolding:memberCounts:)``).
        caches[partition] = nil
    }

    /// Drops a partition's devices (its partition was revoked).
    public mutating func drop(_ partition: Int32) {
        partitions[partition] = nil
        forwards.drop(partition)
        sweeps[partition] = nil
        topics.drop(partition)
        caches[partition] = nil
    }

    /// Drops every partition's devices, those set aside too (its partitions were lost). Batches
    /// go on being numbered from where they were, as writes under way number them.
    public mutating func dropAll() {
        let batch = self.batch
        self = DeviceStates()
        self.batch = batch
        topics.openBatch = batch
    }

    /// Counts an input to `partition` at `time` and forgets idle devices when a sweep has some
    /// (see ``IdleSweep``); returns, per forgotten device, the changes to record: its queue's,
    /// and its topic state's (the condition sends it took, and each topic it leaves), applied.
    mutating func forgetIdle(in partition: Int32, at time: Int64, rules: QueueRules) -> [(
        token: String, changes: [StateChange], topicChanges: [TopicChange]
    )] {
        // A served partition's scan reads its store too: paced by every device, not those held.
        guard let deviceCount = caches[partition]?.counts.devices ?? partitions[partition]?.count else { return [] }
        // Inputs reach adopted partitions only (``adopt(_:)`` makes the sweep; the processor asks
        // ``owns(_:)``): the default is a fallback for a partition made without adopting it. The
        // sweep is changed in place, never copied (its candidates are many), through the subscript
        // with a default, whose access is inlined: `sweeps[partition]?` allocated three times a change.
        if sweeps[partition, default: IdleSweep()].isScanDue(at: time, deviceCount: deviceCount) {
            let idle =
                partitions[partition]?.compactMap { $0.value.isIdle(at: time, rules: rules) ? $0.key : nil } ?? []
            sweeps[partition, default: IdleSweep()].scanned(at: time, idle: idle)
            // A partition served from a store has the store's idle devices added (``addIdle(_:in:)``).
            caches[partition]?.storeScanDue = time
        }
        var forgotten: [(token: String, changes: [StateChange], topicChanges: [TopicChange])] = []
        var changeCount = 0
        while changeCount < IdleSweep.changesPerInput,
            let (key, sweptAt) = sweeps[partition, default: IdleSweep()].nextCandidate()
        {
            guard let device = partitions[partition]?[key] else {
                // A device of the store not read yet waits for the next batch's reads.
                guard caches[partition]?.mustRead(key) == true else { continue }
                sweeps[partition, default: IdleSweep()].putBack(key)
                break
            }
            // Checked again: the device may have been active since the scan.
            guard device.isIdle(at: sweptAt, rules: rules) else { continue }
            let changes = device.forgettingChanges
            partitions[partition]?[key] = nil
            caches[partition]?.forget(key, in: batch, waiting: device.waiting.count)
            let token = key.token
            let topicChanges =
                (topics.conditionCopies(of: token, in: partition) == nil ? [] : [.conditionCopies(token: token, nil)])
                + topics.topics(of: token, in: partition).map {
                    TopicChange.deviceTopic(token: token, topic: $0, isSubscribed: false)
                }
            for change in topicChanges { topics.apply(change, in: partition) }
            forgotten.append((token, changes, topicChanges))
            // Each change, and a leave sent to the owner of each topic it leaves.
            let leaves = topicChanges.count { if case .deviceTopic = $0 { true } else { false } }
            changeCount += changes.count + topicChanges.count + leaves
        }
        return forgotten
    }

    /// Applies an input to its device in `partition`, creating the device on first sight.
    public mutating func handle(_ routed: RoutedInput, in partition: Int32, rules: QueueRules) -> QueueOutput {
        var isNew = false
        let key = DeviceKey(token: routed.token)
        let isServed = !caches.isEmpty && caches[partition] != nil
        // One lookup, and the queue changes in place: its storage is never shared meanwhile.
        var (output, waitingAdded) = Self.apply(
            routed, to: &partitions[partition, default: [:]][key, default: Self.newDevice(at: routed.time, &isNew)],
            rules: rules, counting: isServed)
        if isNew { output.changes.insert(.device(DeviceQueue(firstSeenAt: routed.time).status), at: 0) }
        if isServed {
            caches[partition]?.use(key, in: batch, changed: !output.changes.isEmpty, made: isNew, waiting: waitingAdded)
        }
        return output
    }

    /// Applies `routed` to `device`; returns its output and, when `counting`, how many more
    /// messages wait after (else 0).
    private static func apply(_ routed: RoutedInput, to device: inout DeviceQueue, rules: QueueRules, counting: Bool)
        -> (QueueOutput, waitingAdded: Int)
    {
        guard counting else { return (device.handle(routed, rules: rules), 0) }
        let waitingBefore = device.waiting.count
        let output = device.handle(routed, rules: rules)
        return (output, device.waiting.count - waitingBefore)
    }

    /// Creates the device when it is not held and in no topic, as a first send does (a
    /// subscription makes a device too, so that it is forgotten when idle); returns the change to
    /// record, if any. A device in a topic exists, held or in the store a served partition reads
    /// (forgetting a device takes it out of its topics), and is left unread. A subscription is no
    /// presence: a held device idle for longer than the inactivity limit is still forgotten, and
    /// leaves its topics.
    mutating func ensureDevice(_ token: String, in partition: Int32, at time: Int64) -> StateChange? {
        let key = DeviceKey(token: token)
        let isHeld = partitions[partition]?[key] != nil
        if !isHeld, topics.topicCount(of: token, in: partition) > 0 { return nil }
        if !caches.isEmpty { caches[partition]?.use(key, in: batch, changed: !isHeld, made: !isHeld) }
        guard !isHeld else { return nil }
        let device = DeviceQueue(firstSeenAt: time)
        partitions[partition, default: [:]][key] = device
        return .device(device.status)
    }

    private static func newDevice(at time: Int64, _ isNew: inout Bool) -> DeviceQueue {
        isNew = true
        return DeviceQueue(firstSeenAt: time)
    }

    /// Notes, when restoring `record`'s partition, that the input it forwards is on its way: its
    /// device's inputs are forwarded behind it until it is read back. Read the repartition
    /// partition from the group's committed offset to its end.
    public mutating func restoreForward(_ record: some InputRecord) {
        guard let token = RecordFields.text(record.key) else { return }
        forwards.forwarded(token, to: record.partition, source: RepartitionCodec.forwardedSource(of: record))
    }

    /// Devices with an input on its way to `partition` through the repartition topic.
    public func forwardsInFlight(in partition: Int32) -> Int { forwards.count(in: partition) }

    /// Applies a topic change to `partition`'s topic state (``TopicStates/apply(_:in:)``).
    public mutating func apply(_ change: TopicChange, in partition: Int32) {
        topics.apply(change, in: partition)
    }

    /// Replays a changelog record's change (when restoring).
    public mutating func restore(_ change: ChangelogChange, in partition: Int32) {
        switch change {
        case .device(let token, let change): restore(change, token: token, in: partition)
        case .topic(let change): topics.apply(change, in: partition)
        }
    }

    /// Replays a changelog record's change onto its device (when restoring). A removal for a
    /// device not held (compaction kept the tombstone, not what it removed) creates none.
    public mutating func restore(_ change: StateChange, token: String, in partition: Int32) {
        restore(change, key: DeviceKey(token: token), in: partition)
    }

    /// ``restore(_:token:in:)`` with the token's key already made. `partition` is adopted: the
    /// restorer adopts each partition before it replays its records.
    /// In a partition served from a store, whose devices the change names the caller has read
    /// (``admit(_:read:in:)``), the change is counted and the device held until the store holds it.
    public mutating func restore(_ change: consuming StateChange, key: consuming DeviceKey, in partition: Int32) {
        guard !caches.isEmpty, caches[partition] != nil else {
            DeviceQueue.restore(change, onto: &partitions[partition, default: [:]][key])
            return
        }
        restoreServed(change, key: key, in: partition)
    }

    /// ``restore(_:key:in:)`` in a partition served from a store.
    private mutating func restoreServed(_ change: StateChange, key: DeviceKey, in partition: Int32) {
        let before = partitions[partition]?[key]?.waiting.count
        DeviceQueue.restore(change, onto: &partitions[partition, default: [:]][key])
        let after = partitions[partition]?[key]?.waiting.count
        caches[partition]?.replayed(key, in: batch, before: before, after: after)
    }
}

extension DeviceQueue {
    /// Applies a routed input to this device's queue.
    mutating func handle(_ routed: RoutedInput, rules: QueueRules) -> QueueOutput {
        switch routed.input {
        case .send(let message): send(message, at: routed.time, rules: rules)
        case .presence(.connect): connect(at: routed.time, rules: rules)
        case .presence(.disconnect): disconnect(at: routed.time)
        case .presence(.acknowledge(let ids)): acknowledge(ids, at: routed.time)
        }
    }
}
