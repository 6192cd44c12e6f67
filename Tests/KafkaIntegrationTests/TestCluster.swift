import Foundation
import Kafka
import KafkaTestSupport
import Logging
import Testing

/// The cluster the integration tests talk to over TCP: `KAFKA_BOOTSTRAP_SERVERS`, which
/// `scripts/test.sh` sets to the local broker it starts, or to any cluster named before it runs.
enum TestCluster {
    static func bootstrapServers() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"],
            "KAFKA_BOOTSTRAP_SERVERS is not set: run the tests with scripts/test.sh"
        )
    }

    static var logger: Logger {
        var logger = Logger(label: "kafka-test")
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        return logger
    }

    static func kafka(_ clientID: String = "kafka-test") throws -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: try bootstrapServers(), clientID: clientID)
    }

    /// A consumer configuration with test-friendly timings that are valid on Apache Kafka too:
    /// short fetch waits (some brokers answer a long-poll only at its end) and a short session.
    static func consumerConfiguration(group: String?) throws -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(kafka: try kafka(), groupID: group)
        configuration.fetchWaitMax = .milliseconds(10)
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.reportsEndOfPartition = true
        return configuration
    }

    static func producer(transactionalID: String? = nil, properties: [String: String] = [:]) throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(kafka: try kafka(), transactionalID: transactionalID)
        configuration.kafka.properties = properties
        configuration.linger = .milliseconds(1)
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    /// A new topic with a name no other test uses.
    static func createTopic(_ prefix: String, partitions: Int32 = 1) async throws -> String {
        let name = "\(prefix).\(UUID().uuidString.prefix(8))"
        let admin = try KafkaAdmin(configuration: try kafka(), logger: logger)
        try await admin.createTopics([NewTopic(name: name, partitions: partitions)], ignoreExisting: false)
        await admin.close()
        return name
    }

    static func uniqueName(_ prefix: String) -> String { "\(prefix).\(UUID().uuidString.prefix(8))" }

    /// Reads partitions from the beginning until each has reported its end, with no group.
    static func readAll(_ partitions: [TopicPartition], isolation: IsolationLevel = .readCommitted) async throws -> [ConsumerRecord] {
        var configuration = try consumerConfiguration(group: nil)
        configuration.isolationLevel = isolation
        return try await KafkaConsumer.readToEnd(partitions, configuration: configuration, logger: logger)
    }
}

extension KafkaConsumer {
    /// Polls until `count` records arrived (or the timeout passed).
    func pollRecords(count: Int, timeout: Duration = .seconds(30)) async throws -> [ConsumerRecord] {
        var records: [ConsumerRecord] = []
        let deadline = ContinuousClock.now + timeout
        while records.count < count, ContinuousClock.now < deadline {
            for case .record(let record) in try await poll() { records.append(record) }
        }
        return records
    }
}

/// Waits until `condition` holds, checking every 50 ms; false if it never did within `timeout`.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
