import BridgeCore
import Kafka
import Logging

/// Rebuilds the device state of partitions from their changelog: reads each changelog partition
/// from the beginning to its high watermark and replays every committed change. Says how far it
/// is every few seconds, and throws when it does not finish within its timeout.
@_spi(Benchmarks) public struct ChangelogRestorer: Sendable {
    let consumerConfiguration: KafkaConsumerConfiguration
    let codec: ChangelogCodec
    /// How long a restore may go without reaching every partition's end.
    var timeout: Duration = .seconds(300)
    let logger: Logger

    /// A restorer reading `changelogTopic` with consumers configured like `consumerConfiguration`.
    public init(consumerConfiguration: KafkaConsumerConfiguration, changelogTopic: String, logger: Logger) {
        self.consumerConfiguration = consumerConfiguration
        self.codec = ChangelogCodec(topic: changelogTopic)
        self.logger = logger
    }

    /// Restores `partitions` into `states`.
    public func restore(_ partitions: [Int32], into states: inout DeviceStates) async throws {
        guard !partitions.isEmpty else { return }
        let started = ContinuousClock.now
        var configuration = consumerConfiguration
        configuration.groupID = nil
        configuration.reportsEndOfPartition = true
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        let replayed: Int
        do {
            replayed = try await replay(partitions, with: consumer, into: &states, started: started)
        } catch {
            try? await consumer.close()
            throw error
        }
        try await consumer.close()
        logger.info("restored device state", metadata: [
            "partitions": "\(partitions)", "changes": "\(replayed)", "devices": "\(states.deviceCount)",
            "took": "\(ContinuousClock.now - started)",
        ])
    }

    /// Reads the partitions from the beginning until each is read to its high watermark (see
    /// ``RestoreProgress``); returns the count of changes.
    private func replay(
        _ partitions: [Int32], with consumer: KafkaConsumer, into states: inout DeviceStates, started: ContinuousClock.Instant
    ) async throws -> Int {
        try await consumer.assign(partitions.map { TopicPartitionOffset(TopicPartition(codec.topic, $0), offset: KafkaOffset.beginning) })
        for partition in partitions { states.adopt(partition) }
        var progress = RestoreProgress(partitions: partitions)
        var replayed = 0
        var lastReport = started
        while !progress.isComplete {
            let now = ContinuousClock.now
            guard now - started < timeout else { throw RestoreTimeout(progress: progress, topic: codec.topic, timeout: timeout) }
            if now - lastReport >= Self.reportInterval {
                lastReport = now
                logger.notice("restoring device state", metadata: [
                    "changes": "\(replayed)", "remaining": "\(progress.remaining.sorted())",
                    "waiting_for_transactions": "\(RestoreTimeout.describe(progress.waiting, topic: codec.topic))",
                ])
            }
            let events = try await consumer.poll()
            for event in events {
                switch event {
                case .record(let record):
                    do {
                        let (token, change) = try codec.change(of: record)
                        states.restore(change, token: token, in: record.partition)
                        replayed += 1
                    } catch {
                        logger.error("skipping an unreadable changelog record", metadata: ["error": "\(error)"])
                    }
                case .endOfPartition(let partition, let offset):
                    progress.reachedEnd(of: partition.partition, position: offset, highWatermark: consumer.highWatermark(of: partition))
                case .partitionsAssigned, .partitionsRevoked:
                    break
                }
            }
            if events.isEmpty {
                // An end that did not move is reported once: look at the positions instead.
                let remaining = progress.remaining.map { TopicPartition(codec.topic, $0) }
                for (partition, position) in try consumer.positions(remaining) {
                    progress.reachedEnd(of: partition.partition, position: position, highWatermark: consumer.highWatermark(of: partition))
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
    var progress: RestoreProgress
    var topic: String
    var timeout: Duration

    var description: String {
        "restoring device state did not reach the end of \(topic) partitions \(progress.remaining.sorted()) within \(timeout)"
            + (progress.waiting.isEmpty ? "" : "; waiting for transactions to finish: \(Self.describe(progress.waiting, topic: topic))")
    }

    static func describe(_ waiting: [Int32: RestoreProgress.Behind], topic: String) -> String {
        waiting.sorted { $0.key < $1.key }
            .map { "\(topic)[\($0.key)] read to \($0.value.position) of \($0.value.highWatermark)" }
            .joined(separator: ", ")
    }
}
