import DeviceQueues

/// A state partition's state set aside when its partition is revoked, with the changelog offset
/// it covers, so that an assignment that gives the partition back resumes it instead of
/// replaying its store (Kafka Streams' suspended tasks). An eager rebalance revokes every
/// partition and gives most of them back.
///
/// Equal when their devices and offsets are: the topic state's names are ids of the holder's
/// ``TopicNames``, which two holders number apart.
struct SuspendedPartition: Sendable, Equatable {
    var devices: [DeviceKey: DeviceQueue]
    var topics: TopicStates.Suspended?
    /// The changelog offset the state covers: the state is a replay of the changelog up to it.
    var coveredTo: Int64
    /// What the partition knew of its store when served from one, whose devices `devices` are a
    /// cache of (its counts among them).
    var cache: DeviceCache?

    static func == (lhs: SuspendedPartition, rhs: SuspendedPartition) -> Bool {
        lhs.devices == rhs.devices && lhs.coveredTo == rhs.coveredTo && lhs.cache == rhs.cache
    }
}

extension DeviceStates {
    /// Sets `partition`'s state aside, as the state of its changelog up to `offset` (the caller
    /// knows it is: every change to it has committed and is in its store, whose checkpoint
    /// `offset` is). The partition is no longer held, as after ``drop(_:)``; its inputs on their
    /// way and its idle sweep go, as a restore makes them again. A partition not held is dropped.
    public mutating func suspend(_ partition: Int32, coveredTo offset: Int64) {
        if let devices = partitions.removeValue(forKey: partition) {
            let set = SuspendedPartition(
                devices: devices, topics: topics.suspend(partition), coveredTo: offset, cache: caches[partition])
            if let replaced = suspended.updateValue(set, forKey: partition) { discard(replaced) }
        }
        drop(partition)
    }

    /// Holds `partition`, just adopted, with the state set aside for it when that state covers
    /// its changelog up to `offset` (its store's checkpoint now: nobody wrote to the store
    /// since) and, when it was served from a store, that store does too (`servedStoreCoveredTo`,
    /// nil when unknown); returns whether it did. State set aside for another offset is let go.
    public mutating func resume(_ partition: Int32, coveredTo offset: Int64, servedStoreCoveredTo: Int64? = nil)
        -> Bool
    {
        guard let set = suspended.removeValue(forKey: partition) else { return false }
        guard set.coveredTo == offset, set.cache == nil || servedStoreCoveredTo == offset else {
            discard(set)
            return false
        }
        partitions[partition] = set.devices
        if let topicState = set.topics { topics.resume(topicState, as: partition) }
        // Every change to it was stored: the cache goes on with nothing unwritten.
        if var cache = set.cache {
            cache.resume()
            caches[partition] = cache
        }
        return true
    }

    /// Lets go of the state set aside for partitions not among `kept` (an assignment that did
    /// not give them back).
    public mutating func discardSuspended(keeping kept: Set<Int32>) {
        for partition in suspended.keys where !kept.contains(partition) { discardSuspended(partition) }
    }

    /// Lets go of the state set aside for `partition`, if any.
    public mutating func discardSuspended(_ partition: Int32) {
        if let set = suspended.removeValue(forKey: partition) { discard(set) }
    }

    /// Partitions whose state is set aside.
    public var suspendedPartitions: Set<Int32> { Set(suspended.keys) }

    private mutating func discard(_ set: SuspendedPartition) {
        if let topicState = set.topics { topics.discard(topicState) }
    }
}
