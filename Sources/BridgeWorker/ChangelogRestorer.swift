import BridgeCore
import Kafka
import Logging

/// Rebuilds the device state of partitions from their changelog: reads each changelog partition
/// from the beginning to its end (by partition EOF, which every broker reports correctly) and
/// replays every change.
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

    /// Reads the partitions from the beginning until each reports its end; returns the count of changes.
    private func replay(
        _ partitions: [Int32], with consumer: KafkaConsumer, into states: inout DeviceStates, started: ContinuousClock.Instant
    ) async throws -> Int {
        let topicPartitions = partitions.map { TopicPartition(codec.topic, $0) }
        try await consumer.assign(topicPartitions.map { TopicPartitionOffset($0, offset: KafkaOffset.beginning) })
        for partition in partitions { states.adopt(partition) }
        var remaining = Set(topicPartitions)
        var replayed = 0
        while !remaining.isEmpty {
            guard ContinuousClock.now - started < timeout else {
                throw RestoreTimeout(partitions: remaining.sorted(), timeout: timeout)
            }
            for event in try await consumer.poll() {
                switch event {
                case .record(let record):
                    do {
                        let (token, change) = try codec.change(of: record)
                        states.restore(change, token: token, in: record.partition)
                        replayed += 1
                    } catch {
                        logger.error("skipping an unreadable changelog record", metadata: ["error": "\(error)"])
                    }
                case .endOfPartition(let partition, _):
                    remaining.remove(partition)
                case .partitionsAssigned, .partitionsRevoked:
                    break
                }
            }
        }
        return replayed
    }
}

/// A changelog could not be read to its end in time.
struct RestoreTimeout: Error, CustomStringConvertible {
    var partitions: [TopicPartition]
    var timeout: Duration
    var description: String { "restoring device state did not reach the end of \(partitions) within \(timeout)" }
}
