import BridgeCore
import DeviceQueues
import Kafka

/// A poll's records, decoded where the consumer took them, to apply to device state.
struct DecodedChanges: Sendable {
    /// Changelog changes, with their devices' keys, last read first (``apply(to:)`` takes them
    /// from the end, moving each out rather than copying it: a copy retains what the change
    /// holds, on another thread than made it, and dropping the array releases it all again).
    var changesLastFirst: [(key: DeviceKey, change: StateChange, partition: Int32)] = []
    /// Repartition records, as ``DeviceStates/restoreForward(_:)`` reads them.
    var forwards: [InMemoryRecord] = []
    var endsOfPartition: [TopicPartitionOffset]
    /// Records the poll took, readable or not.
    var recordCount: Int

    /// Applies the changes and forwards to `states`, in the order read, and empties them;
    /// returns the count of changes.
    mutating func apply(to states: inout DeviceStates) -> Int {
        for forward in forwards { states.restoreForward(forward) }
        let count = changesLastFirst.count
        while let (key, change, partition) = changesLastFirst.popLast() {
            states.restore(change, key: key, in: partition)
        }
        return count
    }
}
