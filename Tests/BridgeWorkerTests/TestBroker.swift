import Foundation
import Kafka
import Logging
import Testing

/// The real broker named by `KAFKA_BOOTSTRAP_SERVERS`, for this target's suites.
enum TestBroker {
    static let logger = Logger(label: "worker-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static var kafka: KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "", clientID: "worker-test")
    }

    /// Every record of partition 0 of `topic`, read from its start to its end.
    static func readToEnd(_ topic: String) async throws -> [ConsumerRecord] {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: nil)
        configuration.reportsEndOfPartition = true
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        try await consumer.assign([TopicPartitionOffset(TopicPartition(topic, 0), offset: KafkaOffset.beginning)])
        var records: [ConsumerRecord] = []
        var ended = false
        while !ended {
            for event in try await consumer.poll() {
                switch event {
                case .record(let record): records.append(record)
                case .endOfPartition: ended = true
                default: break
                }
            }
        }
        try await consumer.close()
        return records
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a suite when no broker is named, saying how to run it.
    static var needsBroker: Self {
        .enabled(if: ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] != nil, "KAFKA_BOOTSTRAP_SERVERS is not set: run `bash scripts/test.sh`")
    }
}
