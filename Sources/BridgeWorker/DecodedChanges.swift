import BridgeCore
import BridgeStore
import DeviceQueues
import Kafka

/// A poll's records, decoded where the consumer took them, to apply to device state.
struct DecodedChanges: Sendable {
    /// Changelog changes, in the order read, with their devices' keys.
    var changes: [(key: DeviceKey, change: StateChange, partition: Int32)] = []
    /// Topic changes, in the order read, with their partitions.
    var topicChanges: [(change: TopicChange, partition: Int32)] = []
    /// Repartition records, as ``DeviceStates/restoreForward(_:)`` reads them.
    var forwards: [InMemoryRecord] = []
    /// Changelog records dropped, or replayed with no committed offset to judge them by.
    var skipped = SkippedChanges()
    /// The first changelog record of a kind this version does not know, which stops the restore.
    var unknownKind: MalformedRecord?
    /// With local stores: the changelog records kept, to write to them, and each partition's
    /// checkpoint past the last record read.
    var stored = StoreBatch()
    var endsOfPartition: [TopicPartitionOffset]
    /// Partitions the broker answered out of range (``ConsumedBatch/offsetsOutOfRange``).
    var offsetsOutOfRange: [TopicPartition] = []
    /// Records the poll took, readable or not.
    var recordCount: Int

    /// Applies the forwards, then the topic changes and the device changes, each in the order
    /// read (the two are independent), to `states`, and empties the changes; returns their count.
    mutating func apply(to states: inout DeviceStates) -> Int {
        for forward in forwards { states.restoreForward(forward) }
        let count = changes.count + topicChanges.count
        for (change, partition) in topicChanges { states.apply(change, in: partition) }
        topicChanges = []
        // Each change is moved out, not copied: a copy retains what the change holds, on
        // another thread than made it, and dropping the batch would release it all again.
        changes.reverseByMoving()
        while let (key, change, partition) = changes.popLast() {
            states.restore(change, key: key, in: partition)
        }
        return count
    }
}
