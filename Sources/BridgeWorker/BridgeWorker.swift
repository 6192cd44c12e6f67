import BridgeConfig
import BridgeCore
import BridgeHealth
import BridgeStore
import CoreMetrics
import Foundation
import Kafka
import Logging
import NIOPosix
import ServiceLifecycle

/// One fcm-bridge worker: a member of the fleet's consumer group that reads send requests and
/// presence events, keeps the queues of the devices it owns, and writes inbox records, status
/// events and dead letters, committing each batch by the configured delivery guarantee.
///
/// Runs until graceful shutdown (SIGTERM or SIGINT through a `ServiceGroup`), finishing the
/// batch at hand. Throws when a batch cannot be committed; a restart resumes from the last commit.
public struct BridgeWorker: Service, CustomStringConvertible {
    private let configuration: BridgeConfiguration
    /// Made with the worker, so that its series are exported from the process's start, before
    /// any broker answers: what `FcmBridgeWorkersDown`'s `absent()` looks for.
    private let metrics: WorkerMetrics
    /// What the health endpoints answer from.
    public let health: WorkerHealth
    /// What the endpoints ask about the devices whose state this worker holds.
    public let queries = StateQueries()
    private let logger: Logger

    /// Creates a worker; nothing connects until ``run()``. Its metrics go to `metrics` (none
    /// by default), from now on.
    public init(
        configuration: BridgeConfiguration, metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        health: WorkerHealth = WorkerHealth(), logger: Logger
    ) {
        self.configuration = configuration
        self.metrics = WorkerMetrics(
            inputTopics: [
                configuration.topics.send, configuration.topics.presence, configuration.topics.subscriptions,
                configuration.repartitionTopic,
            ],
            outputTopics: OutputTopic.allCases.map { $0.name(in: configuration) }, factory: metrics)
        self.health = health
        self.logger = logger
    }

    /// Names the worker's group and guarantee, never its settings (they may hold secrets).
    public var description: String {
        "BridgeWorker(group: \(configuration.kafka.groupID), delivery: \(configuration.delivery.rawValue))"
    }

    /// Runs the worker until graceful shutdown. Its Kafka clients are scoped to the run: each
    /// is closed on the way out, the consumer first (leaving the group), whatever ended the run.
    public func run() async throws {
        try Librdkafka.requireMinimumVersion()
        let kafka = configuration.kafkaClients
        logger.info(
            "starting fcm-bridge worker",
            metadata: [
                "version": "\(BridgeVersion.current)", "librdkafka": "\(Librdkafka.version)", "kafka": "\(kafka)",
                "group": "\(configuration.kafka.groupID)",
                "delivery": "\(configuration.delivery.rawValue)",
            ])
        do {
            try await run(kafka: kafka)
        } catch let error as ShutDownBeforeStart {
            logger.notice("\(error)")
        } catch let error as ClusterRefusesConnection {
            logger.critical("cannot start: \(error)")
            throw error
        }
    }

    private func run(kafka: KafkaConfiguration) async throws {
        // One admin client serves start-up (topics) and then trimming, for the worker's life.
        try await withKafkaAdmin(configuration: kafka, logger: logger) { admin in
            let retry = UnreachableClusterRetry(admin: admin)
            let layout = try await retry.run("reading the topics", health: health, logger: logger) {
                try await TopicLayout.prepare(configuration, admin: admin, logger: logger)
            }
            logger.info(
                "topics ready",
                metadata: [
                    "state_partitions": "\(layout.statePartitions)",
                    "colocated_inputs": "\(layout.colocatedTopics.sorted())",
                ])
            try await withKafkaProducer(
                configuration: configuration.workerProducer(topicRecordLimit: layout.maxRecordBytes),
                statistics: metrics.librdkafka.record, logger: logger
            ) { producer in
                let limits = outputLimits(producer: producer, layout: layout)
                if let problem = limits.problem(with: configuration) { throw problem }
                if configuration.delivery == .exactlyOnce { try await producer.initTransactions() }
                try await withKafkaConsumer(
                    configuration: configuration.workerConsumer, statistics: metrics.librdkafka.record, logger: logger
                ) { consumer in
                    try consumer.subscribe([
                        configuration.topics.send, configuration.topics.presence, configuration.topics.subscriptions,
                        configuration.repartitionTopic,
                    ])
                    do {
                        try await consume(
                            consumer, producer: producer, admin: admin,
                            processor: processor(layout, limits: limits))
                    } catch let error as ShutDownBeforeStart {
                        throw error
                    } catch {
                        logger.error("stopping: \(error)")
                        throw error
                    }
                    logger.info("shutting down: leaving the group")
                }
            }
        }
    }

    /// Runs the loop with its committer and restorer, and the trimmer beside it.
    private func consume(
        _ consumer: KafkaConsumer, producer: KafkaProducer, admin: KafkaAdmin, processor: RecordProcessor
    ) async throws {
        let trimmer = RepartitionTrimmer(topic: configuration.repartitionTopic, logger: logger)
        var stores: StateDirectory?
        if let directory = configuration.state.directory {
            logger.info(
                "keeping each state partition's state in a local store", metadata: ["directory": "\(directory)"])
            let retry = UnreachableClusterRetry(admin: admin)
            let changelogID = try await retry.run("describing the changelog", health: health, logger: logger) {
                try await TopicLayout.changelogID(configuration.changelogTopic, admin: admin, logger: logger)
            }
            stores = try StateDirectory(directory, configuration: configuration, changelogID: changelogID?.description)
        }
        var committer = BatchCommitter(
            delivery: configuration.delivery,
            outputs: try OutputProducer(producer: producer, topicNames: processor.outputTopicNames),
            interval: .milliseconds(configuration.commitIntervalMilliseconds),
            maxRecords: configuration.maxBatchRecords, maxBytes: configuration.maxBatchBytes, trimmer: trimmer,
            metrics: metrics, logger: logger
        )
        committer.keepsStores = stores != nil
        committer.keepsDeviceRows = stores?.keepsDeviceRows ?? false
        let restorer = ChangelogRestorer(
            consumerConfiguration: configuration.workerConsumer, changelogTopic: configuration.changelogTopic,
            repartitionTopic: configuration.repartitionTopic, health: health, metrics: metrics, logger: logger)
        let served = stores.flatMap { stores in
            configuration.state.devicesHeld.map {
                ServedDevices(
                    limit: $0, rules: configuration.queue, directory: stores.path, reads: metrics.deviceReads,
                    scanThread: NIOThreadPool(numberOfThreads: 1))
            }
        }
        served?.scanThread.start()
        var loop = WorkerLoop(
            consumer: consumer, processor: processor, committer: committer, restorer: restorer, stores: stores,
            served: served,
            stateTopic: configuration.repartitionTopic, maxBatchRecords: configuration.maxBatchRecords, health: health,
            queries: queries, logger: logger
        )
        async let trimming: Void = trimmer.run(admin: admin)
        var failure: (any Error)?
        do {
            try await loop.run()
        } catch {
            failure = error
        }
        trimmer.finish()
        await trimming
        // The loop has awaited every scan: the thread has nothing left to run.
        try? await served?.scanThread.shutdownGracefully()
        if let failure { throw failure }
    }

    private func processor(_ layout: TopicLayout, limits: OutputLimits) -> RecordProcessor {
        RecordProcessor(
            configuration: configuration, statePartitions: layout.statePartitions,
            colocatedTopics: layout.colocatedTopics,
            limits: limits, logger: logger)
    }

    /// What one output may hold: what the producer accepts, and less where the topics it writes
    /// accept less.
    private func outputLimits(producer: KafkaProducer, layout: TopicLayout) -> OutputLimits {
        let limit = min(producer.maximumRecordBytes, layout.maxRecordBytes ?? .max)
        logger.info("output records hold at most \(limit) bytes")
        return OutputLimits(maxRecordBytes: limit)
    }
}
