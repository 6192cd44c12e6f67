import BridgeConfig
import FCMTranslation
import Foundation
import Kafka
import Logging
import ServiceLifecycle

/// One fcm-bridge worker: a member of the fleet's consumer group that reads send requests and
/// presence events, keeps the queues of the devices it owns, and writes inbox records, status
/// events and dead letters, committing each batch by the configured delivery guarantee.
///
/// Runs until graceful shutdown (SIGTERM or SIGINT through a `ServiceGroup`), finishing the
/// batch at hand. Throws when a batch cannot be committed; a restart resumes from the last commit.
public struct BridgeWorker: Service {
    private let configuration: BridgeConfiguration
    private let logger: Logger

    /// Creates a worker; nothing connects until ``run()``.
    public init(configuration: BridgeConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        try Librdkafka.requireMinimumVersion()
        let kafka = KafkaConfiguration(
            bootstrapServers: configuration.kafka.bootstrapServers,
            clientID: configuration.kafka.clientID,
            properties: configuration.kafka.properties
        )
        logger.info("starting fcm-bridge worker", metadata: [
            "librdkafka": "\(Librdkafka.version)", "kafka": "\(kafka)", "group": "\(configuration.kafka.groupID)",
            "delivery": "\(configuration.delivery.rawValue)",
        ])

        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        let layout = try await TopicLayout.prepare(configuration, admin: admin, logger: logger)
        await admin.close()
        logger.info("topics ready", metadata: [
            "state_partitions": "\(layout.statePartitions)", "colocated_inputs": "\(layout.colocatedTopics.sorted())",
        ])

        let producer = try KafkaProducer(configuration: producerConfiguration(kafka), logger: logger)
        if configuration.delivery == .exactlyOnce { try await producer.initTransactions() }
        let consumerConfiguration = consumerConfiguration(kafka)
        let ownership = PartitionOwnership(
            repartitionTopic: configuration.repartitionTopic,
            restorer: ChangelogRestorer(consumerConfiguration: consumerConfiguration, codec: changelogCodec, logger: logger)
        )
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, rebalanceListener: ownership, logger: logger)
        try consumer.subscribe([configuration.topics.send, configuration.topics.presence, configuration.repartitionTopic])

        let committer = BatchCommitter(delivery: configuration.delivery, producer: producer, logger: logger)
        do {
            try await consume(consumer, ownership: ownership, processor: processor(layout), committer: committer)
        } catch {
            logger.error("stopping: \(error)")
            try? await consumer.close()
            try? await producer.close()
            throw error
        }
        logger.info("shutting down: leaving the group")
        try await consumer.close()
        try await producer.close()
    }

    private func consume(_ consumer: KafkaConsumer, ownership: PartitionOwnership, processor: RecordProcessor, committer: BatchCommitter) async throws {
        var progress = ProgressLog(logger: logger)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let events = try await consumer.poll(maxRecords: configuration.maxBatchRecords, timeout: .milliseconds(100))
            var nextOffsets: [TopicPartition: Int64] = [:]
            var produced: [ProducerRecord] = []
            ownership.withStates { states in
                for case .record(let record) in events {
                    processor.process(record, states: &states, produced: &produced)
                    nextOffsets[record.topicPartition] = record.offset + 1
                }
            }
            guard !nextOffsets.isEmpty else { continue }
            let offsets = nextOffsets.map { TopicPartitionOffset($0.key, offset: $0.value) }
            try await committer.commit(produced, offsets: offsets, consumer: consumer)
            progress.record(inputs: events.count, outputs: produced.count)
        }
    }

    private var changelogCodec: ChangelogCodec { ChangelogCodec(topic: configuration.changelogTopic) }

    private func processor(_ layout: TopicLayout) -> RecordProcessor {
        let topics = configuration.topics
        return RecordProcessor(
            topics: topics,
            rules: configuration.queue,
            intake: SendIntake(translator: APNsTranslator(bundleID: configuration.bundleID, payloadLimit: configuration.payloadLimit)),
            outputs: OutputEncoder(inboxTopic: topics.inbox, statusTopic: topics.status, deadLetterTopic: topics.deadLetters),
            repartition: RepartitionCodec(topic: configuration.repartitionTopic),
            changelog: changelogCodec,
            statePartitions: layout.statePartitions,
            colocatedTopics: layout.colocatedTopics,
            logger: logger
        )
    }

    private func consumerConfiguration(_ kafka: KafkaConfiguration) -> KafkaConsumerConfiguration {
        var kafka = kafka
        kafka.properties.merge(configuration.kafka.consumerProperties) { $1 }
        var consumer = KafkaConsumerConfiguration(kafka: kafka, groupID: configuration.kafka.groupID)
        // Range assigns the same partition numbers of the co-partitioned inputs to one member.
        consumer.assignmentStrategy = "range"
        consumer.isolationLevel = .readCommitted
        consumer.autoOffsetReset = .earliest
        return consumer
    }

    private func producerConfiguration(_ kafka: KafkaConfiguration) -> KafkaProducerConfiguration {
        var kafka = kafka
        kafka.properties.merge(configuration.kafka.producerProperties) { $1 }
        var producer = KafkaProducerConfiguration(kafka: kafka)
        if configuration.delivery == .exactlyOnce {
            // Unique per start unless configured: a stable id (one per instance) fences a
            // crashed predecessor's open transaction at once instead of at its timeout.
            producer.transactionalID = configuration.kafka.transactionalID ?? "\(configuration.kafka.groupID)-\(UUID().uuidString)"
            producer.transactionTimeout = .seconds(20)
        }
        return producer
    }
}

/// Logs throughput now and then, so an operator sees the worker is alive.
private struct ProgressLog {
    let logger: Logger
    var interval: Duration = .seconds(30)
    private var inputs = 0
    private var outputs = 0
    private var since = ContinuousClock.now

    init(logger: Logger) { self.logger = logger }

    mutating func record(inputs: Int, outputs: Int) {
        self.inputs += inputs
        self.outputs += outputs
        guard ContinuousClock.now - since >= interval else { return }
        logger.info("progress", metadata: ["records_in": "\(self.inputs)", "records_out": "\(self.outputs)", "over": "\(interval)"])
        self.inputs = 0
        self.outputs = 0
        since = ContinuousClock.now
    }
}
