import BridgeCore
import Kafka
import Logging

/// Rebuilds the device state of partitions from their changelog: reads each changelog partition
/// from the beginning to its high watermark and replays every committed change. Reads the
/// repartition partitions too, from the group's committed offsets to their high watermark, to
/// learn which devices have inputs on their way (``DeviceStates/restoreForward(_:)``). Says how
/// far it is every few seconds, and throws when it does not finish within its timeout.
@_spi(Benchmarks) public struct ChangelogRestorer: Sendable {
    let consumerConfiguration: KafkaConsumerConfiguration
    let codec: ChangelogCodec
    /// The repartition topic, whose partitions are the state partitions.
    let repartitionTopic: String
    /// How long a restore may go without reaching every partition's end.
    var timeout: Duration = .seconds(300)
    let logger: Logger

    /// A restorer reading `changelogTopic` with consumers configured like `consumerConfiguration`.
    public init(consumerConfiguration: KafkaConsumerConfiguration, changelogTopic: String, repartitionTopic: String, logger: Logger) {
        self.consumerConfiguration = consumerConfiguration
        self.codec = ChangelogCodec(topic: changelogTopic)
        self.repartitionTopic = repartitionTopic
        self.logger = logger
    }

    /// Restores `partitions` into `states`; `forwards` are the repartition partitions' committed
    /// offsets (none: nothing is on its way).
    public func restore(_ partitions: [Int32], forwards: [TopicPartitionOffset] = [], into states: inout DeviceStates) async throws {
        guard !partitions.isEmpty else { return }
        let started = ContinuousClock.now
        var configuration = consumerConfiguration
        configuration.groupID = nil
        configuration.reportsEndOfPartition = true
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        let replayed: Int
        do {
            replayed = try await replay(partitions, forwards: forwards, with: consumer, into: &states, started: started)
        } catch {
            try? await consumer.close()
            throw error
        }
        try await consumer.close()
        logger.info("restored device state", metadata: [
            "partitions": "\(partitions)", "changes": "\(replayed)", "devices": "\(states.deviceCount)",
            "forwards_in_flight": "\(partitions.reduce(0) { $0 + states.forwardsInFlight(in: $1) })",
            "took": "\(ContinuousClock.now - started)",
        ])
    }

    /// Reads the changelog partitions from the beginning and the repartition partitions from
    /// `forwards` until each is read to its high watermark (see ``RestoreProgress``); returns the
    /// count of changes.
    private func replay(
        _ partitions: [Int32], forwards: [TopicPartitionOffset], with consumer: KafkaConsumer, into states: inout DeviceStates,
        started: ContinuousClock.Instant
    ) async throws -> Int {
        let forwards = forwards.filter { $0.topicPartition.topic == repartitionTopic && partitions.contains($0.topicPartition.partition) }
            .map { $0.offset >= 0 ? $0 : TopicPartitionOffset($0.topicPartition, offset: KafkaOffset.beginning) }
        try await consumer.assign(partitions.map { TopicPartitionOffset(TopicPartition(codec.topic, $0), offset: KafkaOffset.beginning) } + forwards)
        for partition in partitions { states.adopt(partition) }
        // Every worker forwards to the repartition topic: what it holds past its stable end is
        // other workers' open transactions, which their own order covers; read what is committed.
        var progress = RestoreProgress(partitions: partitions.map { TopicPartition(codec.topic, $0) } + forwards.map(\.topicPartition),
                                       readableEndOnly: forwards.map(\.topicPartition))
        var replayed = 0
        var lastReport = started
        while !progress.isComplete {
            let now = ContinuousClock.now
            guard now - started < timeout else { throw RestoreTimeout(progress: progress, timeout: timeout) }
            if now - lastReport >= Self.reportInterval {
                lastReport = now
                logger.notice("restoring device state", metadata: [
                    "changes": "\(replayed)", "remaining": "\(progress.remaining.sorted())",
                    "waiting_for_transactions": "\(RestoreTimeout.describe(progress.waiting))",
                ])
            }
            let events = try await consumer.poll()
            for event in events {
                switch event {
                case .record(let record) where record.topic == repartitionTopic:
                    states.restoreForward(record)
                case .record(let record):
                    do {
                        let (token, change) = try codec.change(of: record)
                        states.restore(change, token: token, in: record.partition)
                        replayed += 1
                    } catch {
                        logger.error("skipping an unreadable changelog record", metadata: ["error": "\(error)"])
                    }
                case .endOfPartition(let partition, let offset):
                    progress.reachedEnd(of: partition, position: offset, highWatermark: consumer.highWatermark(of: partition))
                case .partitionsAssigned, .partitionsRevoked:
                    break
                }
            }
            if events.isEmpty {
                // An end that did not move is reported once: look at the positions instead.
                for (partition, position) in try consumer.positions(Array(progress.remaining)) {
                    progress.reachedEnd(of: partition, position: position, highWatermark: consumer.highWatermark(of: partition))
                }
            }
        }
        return replayed
    }

    /// How often a restore that has not finished says how far it is.
    private static let reportInterval = Duration.seconds(5)
}

/// A changelog could not be read to its end in time.
struct RestoreTimeout: Error, CustomStringConvertible {
    var progress: RestoreProgress<TopicPartition>
    var timeout: Duration

    var description: String {
        "restoring device state did not reach the end of \(progress.remaining.sorted()) within \(timeout)"
            + (progress.waiting.isEmpty ? "" : "; waiting for transactions to finish: \(Self.describe(progress.waiting))")
    }

    static func describe(_ waiting: [TopicPartition: RestoreProgress<TopicPartition>.Behind]) -> String {
        waiting.sorted { $0.key < $1.key }
            .map { "\($0.key) read to \($0.value.position) of \($0.value.highWatermark)" }
            .joined(separator: ", ")
    }
}
