import DeviceQueues

/// The device queues of the state partitions this worker owns, by partition and token.
@_spi(Benchmarks) public struct DeviceStates: Sendable {
    private var partitions: [Int32: [String: DeviceQueue]] = [:]

    /// No partitions held.
    public init() {}

    /// Whether this worker holds (has restored) the state of `partition`.
    func owns(_ partition: Int32) -> Bool { partitions[partition] != nil }

    /// Devices held, over all partitions.
    public var deviceCount: Int { partitions.values.reduce(0) { $0 + $1.count } }

    /// Starts holding a partition, with no devices yet (before its changelog is replayed).
    public mutating func adopt(_ partition: Int32) {
        partitions[partition] = [:]
    }

    /// Takes over every partition `other` holds.
    mutating func adopt(contentsOf other: DeviceStates) {
        partitions.merge(other.partitions) { $1 }
    }

    /// Drops a partition's devices (its partition was revoked).
    mutating func drop(_ partition: Int32) {
        partitions[partition] = nil
    }

    /// Applies an input to its device in `partition`, creating the device on first sight.
    public mutating func handle(_ routed: RoutedInput, in partition: Int32, rules: QueueRules) -> QueueOutput {
        // Taken out and put back, so that the queue's storage is not shared while it changes.
        var created: StateChange?
        var queue: DeviceQueue
        if let existing = partitions[partition]?.removeValue(forKey: routed.token) {
            queue = existing
        } else {
            queue = DeviceQueue(firstSeenAt: routed.time)
            created = .device(queue.status)
        }
        var output: QueueOutput
        switch routed.input {
        case .send(let message): output = queue.send(message, at: routed.time, rules: rules)
        case .presence(.connect): output = queue.connect(at: routed.time, rules: rules)
        case .presence(.disconnect): output = queue.disconnect(at: routed.time)
        case .presence(.acknowledge(let ids)): output = queue.acknowledge(ids, at: routed.time)
        }
        if let created { output.changes.insert(created, at: 0) }
        partitions[partition, default: [:]][routed.token] = queue
        return output
    }

    /// Replays a changelog record's change onto its device (when restoring).
    mutating func restore(_ change: StateChange, token: String, in partition: Int32) {
        var queue = partitions[partition]?.removeValue(forKey: token)
            ?? DeviceQueue(status: DeviceStatus(isOnline: false, lastActivity: 0, pendingNotice: nil))
        queue.apply(change)
        partitions[partition, default: [:]][token] = queue
    }
}
