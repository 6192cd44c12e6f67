import FCMBridgeClient
import Kafka
import Logging

/// `fcm-bridge watch --replay-parked`: sends the parked events again, once the app server is
/// fixed, under their first id (so the app server can dedupe), and stops at the end of the
/// parking topic. A replayed event's offset is committed once the webhook took it; one the webhook
/// still refuses stops the replay there, uncommitted, for the next one.
public struct ParkedReplay: Sendable {
    /// How a replay ended.
    public enum Outcome: Sendable {
        /// Every parked event was delivered: this many.
        case delivered(Int)
        /// The webhook still refuses the event `id`; `delivered` events before it were taken.
        case stillRefused(id: String, answer: WebhookAnswer, delivered: Int)
    }

    let consumerConfiguration: KafkaConsumerConfiguration
    let topic: String
    let delivery: EventDelivery
    let logger: Logger
    /// How long to wait for the group to assign the parking topic's partitions.
    var assignmentTimeout = Duration.seconds(60)

    /// A replay of `topic` by a consumer configured as `consumerConfiguration`: a group member,
    /// which the replay has report the ends of partitions.
    public init(
        consumerConfiguration: KafkaConsumerConfiguration, topic: String, delivery: EventDelivery, logger: Logger
    ) {
        var consumerConfiguration = consumerConfiguration
        consumerConfiguration.reportsEndOfPartition = true
        self.consumerConfiguration = consumerConfiguration
        self.topic = topic
        self.delivery = delivery
        self.logger = logger
    }

    /// Replays, then leaves the group.
    public func run() async throws -> Outcome {
        try await withKafkaConsumer(configuration: consumerConfiguration, logger: logger) { try await replay(by: $0) }
    }

    private func replay(by consumer: KafkaConsumer) async throws -> Outcome {
        try consumer.subscribe([topic])
        let deadline = ContinuousClock.now + assignmentTimeout
        var assigned: Set<TopicPartition>?
        var atEnd: Set<TopicPartition> = []
        var delivered = 0
        while true {
            for event in try await consumer.poll(maxRecords: 100, timeout: .milliseconds(500)) {
                switch event {
                case .partitionsAssigned(let partitions):
                    assigned = (assigned ?? []).union(partitions)
                case .partitionsRevoked(let partitions, _):
                    assigned?.subtract(partitions)
                    atEnd.subtract(partitions)
                case .endOfPartition(let partition, _):
                    atEnd.insert(partition)
                case .record(let record):
                    atEnd.remove(record.topicPartition)
                    let id =
                        record.headers.string(for: WebhookSignature.idHeader)
                        ?? StatusEvent.position(topic: record.topic, partition: record.partition, offset: record.offset)
                    let next = TopicPartitionOffset(record.topicPartition, offset: record.offset + 1)
                    guard let value = record.value, let parked = try? StatusEvent.decode(Array(value.readableBytesView))
                    else {
                        logger.warning(
                            "skipping a parked record that is not a status event", metadata: ["event": "\(id)"])
                        try await consumer.commit([next])
                        continue
                    }
                    switch try await delivery.deliver(parked, id: id) {
                    case .delivered:
                        try await consumer.commit([next])
                        delivered += 1
                    case .refused(let answer, _):
                        return .stillRefused(id: id, answer: answer, delivered: delivered)
                    }
                }
            }
            if let assigned, !assigned.isEmpty, assigned.isSubset(of: atEnd) { return .delivered(delivered) }
            if assigned?.isEmpty ?? true, ContinuousClock.now > deadline {
                throw ReplayError(
                    description:
                        "no partition of \(topic) was assigned within \(assignmentTimeout): does the topic exist, or does another replay hold it?"
                )
            }
        }
    }
}

/// A replay that could not start.
public struct ReplayError: Error, CustomStringConvertible {
    public var description: String
}
