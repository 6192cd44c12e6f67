import BridgeCore
import DeviceQueues
import Kafka

/// A poll's records, decoded where the consumer took them, to apply to device state.
struct DecodedChanges: Sendable {
    /// Changelog changes, in the order read.
    var changes: [(token: String, change: StateChange, partition: Int32)] = []
    /// Repartition records, as ``DeviceStates/restoreForward(_:)`` reads them.
    var forwards: [InMemoryRecord] = []
    var endsOfPartition: [TopicPartitionOffset]
    /// Records the poll took, readable or not.
    var recordCount: Int

    /// Applies the changes and forwards to `states`; returns the count of changes.
    func apply(to states: inout DeviceStates) -> Int {
        for forward in forwards { states.restoreForward(forward) }
        for (token, change, partition) in changes { states.restore(change, token: token, in: partition) }
        return changes.count
    }
}
