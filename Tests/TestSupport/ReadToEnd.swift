import Kafka
import Logging
import Testing

extension KafkaConsumer {
    /// Polls until an event matches, and returns it; nil when `timeout` passes first.
    public func pollUntil(timeout: Duration = .seconds(30), _ matches: (ConsumerEvent) -> Bool) async throws
        -> ConsumerEvent?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = try await poll(timeout: .milliseconds(100)).first(where: matches) { return event }
        }
        return nil
    }

    /// Polls until every partition in `partitions` reported its end, returning the records read;
    /// records an issue and returns what it has when `timeout` passes first.
    public func pollUntilEnd(of partitions: Set<TopicPartition>, timeout: Duration = .seconds(30)) async throws
        -> [ConsumerRecord]
    {
        var records: [ConsumerRecord] = []
        var ended: Set<TopicPartition> = []
        let deadline = ContinuousClock.now + timeout
        while !partitions.isSubset(of: ended) {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out; ended: \(ended.sorted()), records: \(records.count)")
                return records
            }
            for event in try await poll() {
                switch event {
                case .record(let record): records.append(record)
                case .endOfPartition(let partition, _): ended.insert(partition)
                case .partitionsAssigned, .partitionsRevoked: break
                }
            }
        }
        return records
    }

    /// Every record of `partitions`, read from their beginning to their end by a consumer of no
    /// group configured like `configuration` (which need not ask for end-of-partition events).
    public static func readToEnd(
        _ partitions: [TopicPartition], configuration: KafkaConsumerConfiguration, logger: Logger
    ) async throws -> [ConsumerRecord] {
        var configuration = configuration
        configuration.groupID = nil
        configuration.reportsEndOfPartition = true
        return try await withKafkaConsumer(configuration: configuration, logger: logger) { consumer in
            try await consumer.assign(partitions.map { TopicPartitionOffset($0, offset: KafkaOffset.beginning) })
            return try await consumer.pollUntilEnd(of: Set(partitions))
        }
    }
}
