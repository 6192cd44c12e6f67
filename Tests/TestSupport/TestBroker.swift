import Foundation
import Kafka
import Logging
import NIOCore
import Testing

/// The cluster the integration suites test against: `KAFKA_BOOTSTRAP_SERVERS`, which
/// `scripts/test.sh` sets to the local broker it starts, or to any cluster named before it runs.
/// The variable is read here and nowhere else.
public enum TestBroker {
    /// The cluster's bootstrap servers; nil when none is named (``needsBroker`` suites skip).
    public static let bootstrapServers = ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"]

    /// The test logger: warnings and worse, or the level `TEST_LOG_LEVEL` names.
    public static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning
        return logger
    }

    /// The cluster's client configuration, for a client named `clientID`.
    public static func kafka(clientID: String = "test") -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: bootstrapServers ?? "", clientID: clientID)
    }

    /// A name no other test uses: `prefix`, a dot, and 8 random characters.
    public static func uniqueName(_ prefix: String) -> String { "\(prefix).\(UUID().uuidString.prefix(8))" }

    /// Creates `topics` with an admin client of its own.
    public static func createTopics(_ topics: [NewTopic], ignoreExisting: Bool = false) async throws {
        try await withKafkaAdmin(configuration: kafka(), logger: logger) {
            try await $0.createTopics(topics, ignoreExisting: ignoreExisting)
        }
    }

    /// A new topic with a name no other test uses.
    public static func createTopic(_ prefix: String, partitions: Int32 = 1) async throws -> String {
        let name = uniqueName(prefix)
        try await createTopics([NewTopic(name: name, partitions: partitions)])
        return name
    }

    /// A consumer configuration with test-friendly timings that are valid on Apache Kafka too:
    /// short fetch waits (some brokers answer a long-poll only at its end) and a short session.
    public static func consumerConfiguration(group: String?) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(kafka: kafka(), groupID: group)
        configuration.fetchWaitMax = .milliseconds(10)
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.reportsEndOfPartition = true
        return configuration
    }

    /// A producer that lingers 1 ms, transactional when given an id.
    public static func producer(transactionalID: String? = nil, properties: [String: String] = [:]) throws
        -> KafkaProducer
    {
        var configuration = KafkaProducerConfiguration(kafka: kafka(), transactionalID: transactionalID)
        configuration.kafka.properties = properties
        configuration.linger = .milliseconds(1)
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    /// Every record of `partitions`, read from their beginning to their end with no group.
    public static func readAll(_ partitions: [TopicPartition], isolation: IsolationLevel = .readCommitted) async throws
        -> [ConsumerRecord]
    {
        var configuration = consumerConfiguration(group: nil)
        configuration.isolationLevel = isolation
        return try await KafkaConsumer.readToEnd(partitions, configuration: configuration, logger: logger)
    }
}

/// A day in milliseconds: event times in the tests step by it.
public let day: Int64 = 86_400_000

/// Waits until `condition` holds, checking it every `interval` (a condition that waits itself,
/// such as a poll, takes none); false if it never did within `timeout`.
public func eventually(
    timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        if interval > .zero { try? await Task.sleep(for: interval) }
    }
    return try await condition()
}

extension TestBroker {
    /// Whether the cluster hides aborted transactions from read_committed consumers, as Apache
    /// Kafka does and tansu does not: a record produced in an aborted transaction is looked for.
    /// Tests assert exactly-once outcomes only where it does.
    public static func hidesAbortedTransactions() async throws -> Bool {
        let topic = try await createTopic("aborted")
        let configuration = KafkaProducerConfiguration(kafka: kafka(), transactionalID: uniqueName("aborted"))
        try await withKafkaProducer(configuration: configuration, logger: logger) { producer in
            try await producer.initTransactions()
            try producer.beginTransaction()
            _ = try await producer.enqueue([ProducerRecord(topic: topic, value: ByteBuffer(string: "aborted"))])
            try await producer.flush(timeout: .seconds(30))
            try await producer.abortTransaction()
        }
        var consumer = KafkaConsumerConfiguration(kafka: kafka(), groupID: nil)
        consumer.isolationLevel = .readCommitted
        let records = try await KafkaConsumer.readToEnd(
            [TopicPartition(topic, 0)], configuration: consumer, logger: logger)
        return records.isEmpty
    }
}
