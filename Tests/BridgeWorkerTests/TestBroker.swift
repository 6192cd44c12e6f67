@_spi(Benchmarks) import BridgeWorker
import Foundation
import Kafka
import KafkaTestSupport
import Logging

/// The real broker named by `KAFKA_BOOTSTRAP_SERVERS`, for this target's suites.
enum TestBroker {
    static let logger = Logger(label: "worker-test", factory: { _ in SwiftLogNoOpLogHandler() })

    static var kafka: KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "", clientID: "worker-test")
    }

    /// Creates `topics` with an admin client of its own.
    static func createTopics(_ topics: [NewTopic]) async throws {
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        do {
            try await admin.createTopics(topics)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
    }

    /// A restorer of `changelog` and `repartition` on this broker, with short fetch waits.
    static func restorer(changelog: String, repartition: String) -> ChangelogRestorer {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: nil)
        configuration.fetchWaitMax = .milliseconds(10)
        return ChangelogRestorer(consumerConfiguration: configuration, changelogTopic: changelog, repartitionTopic: repartition, logger: logger)
    }

    /// Every record of partition 0 of `topic`, read from its start to its end.
    static func readToEnd(_ topic: String) async throws -> [ConsumerRecord] {
        try await KafkaConsumer.readToEnd([TopicPartition(topic, 0)], configuration: KafkaConsumerConfiguration(kafka: kafka, groupID: nil), logger: logger)
    }
}
