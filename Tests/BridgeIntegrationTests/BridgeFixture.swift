import BridgeConfig
import BridgeWorker
import FCMTranslation
import Foundation
import Kafka
import Logging
import NIOCore
import ServiceLifecycle
import TestSupport
import Testing

/// A bridge deployment of its own for one test, on the real broker named by
/// `KAFKA_BOOTSTRAP_SERVERS`: unique topic names and group, test-friendly timings.
struct BridgeFixture: Sendable {
    var configuration: BridgeConfiguration
    let kafka: KafkaConfiguration

    /// Creates the input and output topics (the workers create the internal ones).
    static func make(
        partitions: Int32 = 2, delivery: BridgeConfiguration.Delivery = .exactlyOnce,
        _ adjust: (inout BridgeConfiguration) -> Void = { _ in }
    ) async throws -> BridgeFixture {
        let servers = try #require(TestBroker.bootstrapServers, "run the tests with scripts/test.sh")
        let id = UUID().uuidString.prefix(8)
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: servers))
        configuration.kafka.groupID = "bridge-test-\(id)"
        configuration.kafka.consumerProperties = ["fetch.wait.max.ms": "10", "session.timeout.ms": "6000"]
        configuration.kafka.producerProperties = ["linger.ms": "1"]
        configuration.topics.send = "send.\(id)"
        configuration.topics.presence = "presence.\(id)"
        configuration.topics.inbox = "inbox.\(id)"
        configuration.topics.status = "status.\(id)"
        configuration.topics.deadLetters = "dlq.\(id)"
        configuration.topics.subscriptions = "subscriptions.\(id)"
        configuration.topics.partitions = partitions
        configuration.bundleID = "com.example.test"
        configuration.delivery = delivery
        adjust(&configuration)
        let fixture = BridgeFixture(
            configuration: configuration, kafka: KafkaConfiguration(bootstrapServers: servers, clientID: "bridge-test"))
        let topics = configuration.topics
        try await withKafkaAdmin(configuration: fixture.kafka, logger: Self.logger) { admin in
            try await admin.createTopics(
                [topics.send, topics.presence, topics.inbox, topics.status, topics.deadLetters, topics.subscriptions]
                    .map {
                        NewTopic(name: $0, partitions: partitions)
                    },
                ignoreExisting: false
            )
        }
        return fixture
    }

    /// Runs `body` with a new fixture, one worker of it, and a reader of its outputs; stops the
    /// worker afterwards, also when `body` throws.
    static func withWorker(
        partitions: Int32 = 2, adjust: (inout BridgeConfiguration) -> Void = { _ in },
        _ body: (BridgeFixture, OutputReader) async throws -> Void
    ) async throws {
        let fixture = try await make(partitions: partitions, adjust)
        let worker = fixture.startWorker()
        do {
            try await body(fixture, try await fixture.outputs())
        } catch {
            try? await worker.stop()
            throw error
        }
        try await worker.stop()
    }

    static var logger: Logger { TestBroker.logger }

    /// Starts a worker in this process, in a service group as `fcm-bridge run` does; stop it
    /// with ``RunningWorker/stop()``.
    func startWorker() -> RunningWorker {
        let worker = BridgeWorker(configuration: configuration, logger: Self.logger)
        let group = ServiceGroup(configuration: .init(services: [worker], logger: Self.logger))
        return RunningWorker(group: group, task: Task { try await group.run() })
    }

    // MARK: Inputs

    /// Produces send requests (JSON text) keyed by `key`, with the given event time.
    @discardableResult
    func send(_ requests: [String], key: String?, at time: Int64, partition: Int32? = nil) async throws
        -> [DeliveryReport]
    {
        try await produce(
            requests.map {
                ProducerRecord(
                    topic: configuration.topics.send, partition: partition.map { .explicit($0) } ?? .byKey,
                    key: key.map { ByteBuffer(string: $0) }, value: ByteBuffer(string: $0), timestamp: time)
            })
    }

    /// Produces a subscription request (FCM's batchAdd / batchRemove body), to partition 0: the
    /// requests of a test are processed in the order given.
    func subscription(_ action: String, topic: String, tokens: [String], at time: Int64) async throws {
        let request: JSONValue = .object([
            "action": .string(action), "topic": .string(topic), "tokens": .array(tokens.map(JSONValue.string)),
        ])
        try await produce([
            ProducerRecord(
                topic: configuration.topics.subscriptions, partition: .explicit(0),
                value: ByteBuffer(bytes: request.jsonBytes), timestamp: time)
        ])
    }

    /// Produces a presence event.
    func presence(_ token: String, _ event: String, messageIDs: [String]? = nil, at time: Int64) async throws {
        var fields: [String: JSONValue] = ["token": .string(token), "event": .string(event)]
        fields["message_ids"] = messageIDs.map { .array($0.map(JSONValue.string)) }
        try await produce([
            ProducerRecord(
                topic: configuration.topics.presence, key: ByteBuffer(string: token),
                value: ByteBuffer(bytes: JSONValue.object(fields).jsonBytes), timestamp: time)
        ])
    }

    @discardableResult
    func produce(_ records: [ProducerRecord]) async throws -> [DeliveryReport] {
        var producerConfiguration = KafkaProducerConfiguration(kafka: kafka)
        producerConfiguration.linger = .milliseconds(1)
        let reports = try await withKafkaProducer(configuration: producerConfiguration, logger: Self.logger) {
            try await $0.send(records)
        }
        try reports.throwFirstError()
        return reports
    }

    /// A reader of the output topics from their beginning.
    func outputs() async throws -> OutputReader {
        try await OutputReader(fixture: self)
    }
}

/// A worker running in this process.
struct RunningWorker: Sendable {
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// Stops it the way SIGTERM does: it finishes its batch and leaves the group.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

/// 40 days ago, on a whole second: event times of test inputs start here.
let testEpoch: Int64 = (Int64(Date().timeIntervalSince1970) - 40 * 86_400) * 1000

/// A token of its own for a test.
func uniqueToken(_ name: String = "device") -> String { "\(name)-\(UUID().uuidString.prefix(8))" }
