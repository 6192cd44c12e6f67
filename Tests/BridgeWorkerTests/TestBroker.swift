@_spi(Benchmarks) import BridgeWorker
import Kafka
import Logging
import TestSupport

extension TestBroker {
    /// A restorer of `changelog` and `repartition` on the test cluster, with short fetch waits.
    static func restorer(changelog: String, repartition: String, logger: Logger = logger) -> ChangelogRestorer {
        var configuration = KafkaConsumerConfiguration(kafka: kafka(), groupID: nil)
        configuration.fetchWaitMax = .milliseconds(10)
        return ChangelogRestorer(
            consumerConfiguration: configuration, changelogTopic: changelog, repartitionTopic: repartition,
            logger: logger)
    }

    /// Every record of partition 0 of `topic`, read from its start to its end.
    static func readToEnd(_ topic: String) async throws -> [ConsumerRecord] {
        try await readAll([TopicPartition(topic, 0)], isolation: .readCommitted)
    }
}
