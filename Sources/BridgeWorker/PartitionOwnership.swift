import Kafka
import NIOConcurrencyHelpers

/// The device state this worker owns, which follows the repartition topic's partitions: restored
/// from the changelog when one is assigned, before any of its records is handled, and dropped
/// when it is revoked. Rebalances happen between batches, when every batch so far is committed.
final class PartitionOwnership: KafkaRebalanceListener {
    private let states = NIOLockedValueBox(DeviceStates())
    private let repartitionTopic: String
    private let restorer: ChangelogRestorer

    init(repartitionTopic: String, restorer: ChangelogRestorer) {
        self.repartitionTopic = repartitionTopic
        self.restorer = restorer
    }

    /// Runs `body` with the owned device state.
    func withStates<Result>(_ body: (inout DeviceStates) throws -> Result) rethrows -> Result {
        try states.withLockedValue(body)
    }

    func partitionsAssigned(_ partitions: [TopicPartition], consumer: KafkaConsumer) async throws {
        let statePartitions = partitions.filter { $0.topic == repartitionTopic }.map(\.partition)
        var restored = DeviceStates()
        try await restorer.restore(statePartitions, into: &restored)
        states.withLockedValue { $0.adopt(contentsOf: restored) }
    }

    func partitionsRevoked(_ partitions: [TopicPartition], lost: Bool, consumer: KafkaConsumer) async throws {
        states.withLockedValue { states in
            for partition in partitions where partition.topic == repartitionTopic {
                states.drop(partition.partition)
            }
        }
    }
}
