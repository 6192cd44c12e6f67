import BridgeConfig
import BridgeCore
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
        let kafka = kafkaConfiguration
        logger.info("starting fcm-bridge worker", metadata: [
            "librdkafka": "\(Librdkafka.version)", "kafka": "\(kafka)", "group": "\(configuration.kafka.groupID)",
            "delivery": "\(configuration.delivery.rawValue)",
        ])

        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        let layout: TopicLayout
        do {
            layout = try await TopicLayout.prepare(configuration, admin: admin, logger: logger)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        logger.info("topics ready", metadata: [
            "state_partitions": "\(layout.statePartitions)", "colocated_inputs": "\(layout.colocatedTopics.sorted())",
        ])

        let producer = try KafkaProducer(configuration: producerConfiguration(kafka), logger: logger)
        let consumer: KafkaConsumer
        do {
            if configuration.delivery == .exactlyOnce { try await producer.initTransactions() }
            consumer = try KafkaConsumer(configuration: consumerConfiguration(kafka), logger: logger)
        } catch {
            try? await producer.close()
            throw error
        }
        do {
            try consumer.subscribe([configuration.topics.send, configuration.topics.presence, configuration.repartitionTopic])
            try await consume(consumer, producer: producer, processor: processor(layout))
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

    /// The loop: takes what has arrived, handles it against the device state it owns, hands the
    /// outputs to the producer, and commits each batch when it is due. Rebalances arrive as
    /// events of the poll, so the state needs no lock: a revocation commits the batch at hand
    /// before the partitions go, an assignment restores their state before any of their records.
    private func consume(_ consumer: KafkaConsumer, producer: KafkaProducer, processor: RecordProcessor) async throws {
        let committer = BatchCommitter(
            delivery: configuration.delivery, producer: producer,
            outputs: try OutputProducer(producer: producer, topicNames: processor.outputTopicNames),
            interval: .milliseconds(configuration.commitIntervalMilliseconds),
            maxRecords: configuration.maxBatchRecords, maxBytes: configuration.maxBatchBytes, logger: logger
        )
        let restorer = ChangelogRestorer(consumerConfiguration: consumerConfiguration(kafkaConfiguration), changelogTopic: configuration.changelogTopic, logger: logger)
        var states = DeviceStates()
        var batch = OpenBatch()
        var produced = OutputRecords()
        var progress = ProgressLog(logger: logger)
        var outputs = 0
        do {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                let wait = committer.timeUntilDue(batch, now: .now) ?? .milliseconds(100)
                let room = max(1, configuration.maxBatchRecords - batch.records)
                let events = try await consumer.poll(maxRecords: min(room, 1_000), timeout: wait)
                for event in events {
                    switch event {
                    case .record(let record):
                        processor.process(record, states: &states, outputs: &produced)
                        batch.take(record, at: .now)
                        // Outputs go to the producer in bounded runs, and a full batch commits
                        // at once, even in the middle of a poll: one poll cannot outgrow a batch.
                        if produced.count >= Self.outputRun || committer.isFull(batch) {
                            outputs += produced.count
                            try await committer.send(&produced, in: &batch)
                        }
                        if committer.isFull(batch) {
                            try await committer.commit(&batch, consumer: consumer)
                        }
                    case .partitionsAssigned(let partitions):
                        let owned = partitions.filter { $0.topic == configuration.repartitionTopic }.map(\.partition)
                        try await restorer.restore(owned, into: &states)
                    case .partitionsRevoked(let partitions, lost: false):
                        try await committer.commit(&batch, consumer: consumer)
                        for partition in partitions where partition.topic == configuration.repartitionTopic {
                            states.drop(partition.partition)
                        }
                    case .partitionsRevoked(let partitions, lost: true):
                        // Taken already: the batch cannot commit. Its changes to any partition's
                        // state are undone with it, so all state goes; an assignment restores it.
                        logger.warning("partitions lost; dropping the open batch and the device state", metadata: ["partitions": "\(partitions)"])
                        await committer.abandon(&batch)
                        states = DeviceStates()
                    case .endOfPartition:
                        break
                    }
                }
                outputs += produced.count
                try await committer.send(&produced, in: &batch)
                progress.record(inputs: events.count, outputs: outputs)
                outputs = 0
                if committer.isDue(batch, now: .now) {
                    try await committer.commit(&batch, consumer: consumer)
                }
            }
            try await committer.commit(&batch, consumer: consumer)
        } catch {
            await committer.abandon(&batch)
            throw error
        }
    }

    /// Outputs handed to the producer at a time.
    private static let outputRun = 2_000

    private var kafkaConfiguration: KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: configuration.kafka.bootstrapServers,
            clientID: configuration.kafka.clientID,
            properties: configuration.kafka.properties
        )
    }

    private func processor(_ layout: TopicLayout) -> RecordProcessor {
        RecordProcessor(configuration: configuration, statePartitions: layout.statePartitions, colocatedTopics: layout.colocatedTopics, logger: logger)
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
