import Kafka
import Logging
import NIOConcurrencyHelpers

/// The device state this worker owns, which follows the repartition topic's partitions: restored
/// from the changelog when one is assigned, before any of its records is handled, and dropped
/// when it is revoked. Rebalances happen between batches, when every batch so far is committed.
final class PartitionOwnership: KafkaRebalanceListener {
    private let states = NIOLockedValueBox(DeviceStates())
    private let repartitionTopic: String
    private let restorer: ChangelogRestorer
    private let logger: Logger

    init(repartitionTopic: String, restorer: ChangelogRestorer, logger: Logger) {
        self.repartitionTopic = repartitionTopic
        self.restorer = restorer
        self.logger = logger
    }

    /// Runs `body` with the owned device state.
    func withStates<Result>(_ body: (inout DeviceStates) throws -> Result) rethrows -> Result {
        try states.withLockedValue(body)
    }

    func partitionsAssigned(_ partitions: [TopicPartition], consumer: KafkaConsumer) async throws {
        logger.info("partitions assigned", metadata: ["partitions": "\(partitions)"])
        let statePartitions = partitions.filter { $0.topic == repartitionTopic }.map(\.partition)
        var restored = DeviceStates()
        try await restorer.restore(statePartitions, into: &restored)
        states.withLockedValue { $0.adopt(contentsOf: restored) }
    }

    func partitionsRevoked(_ partitions: [TopicPartition], lost: Bool, consumer: KafkaConsumer) async throws {
        logger.info("partitions revoked", metadata: ["partitions": "\(partitions)", "lost": "\(lost)"])
        states.withLockedValue { states in
            for partition in partitions where partition.topic == repartitionTopic {
                states.drop(partition.partition)
            }
        }
    }
}
