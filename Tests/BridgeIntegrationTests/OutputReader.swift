import FCMTranslation
import Foundation
import Kafka
import TestSupport
import Testing

/// Reads the bridge's output topics (status, inbox, dead letters) from the beginning, keeping
/// everything read, and waits for what a test expects.
final class OutputReader {
    private let consumer: KafkaConsumer
    private let topics: BridgeFixtureTopics
    private(set) var statuses: [OutputRecord] = []
    private(set) var inbox: [OutputRecord] = []
    private(set) var deadLetters: [OutputRecord] = []

    /// Reads `only` these of the output topics, or all three.
    init(fixture: BridgeFixture, only: [String]? = nil) async throws {
        topics = BridgeFixtureTopics(fixture)
        var configuration = KafkaConsumerConfiguration(kafka: fixture.kafka, groupID: nil)
        configuration.fetchWaitMax = .milliseconds(10)
        consumer = try KafkaConsumer(configuration: configuration, logger: BridgeFixture.logger)
        let partitions = (0..<fixture.configuration.topics.partitions).flatMap { partition in
            (only ?? [topics.status, topics.inbox, topics.deadLetters]).map {
                TopicPartitionOffset(TopicPartition($0, partition), offset: KafkaOffset.beginning)
            }
        }
        try await consumer.assign(partitions)
    }

    deinit {
        let consumer = consumer
        Task { try? await consumer.close() }
    }

    /// Status events about `token`, parsed.
    func statuses(of token: String) -> [JSONValue] {
        statuses.filter { $0.key == token }.map(\.json)
    }

    /// Inbox records for `token`.
    func inbox(of token: String) -> [OutputRecord] {
        inbox.filter { $0.key == token }
    }

    /// Reads until `condition` holds; records an issue if it does not within `timeout`.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(60), _ what: String, _ condition: (OutputReader) -> Bool) async throws
        -> Bool
    {
        // The poll waits for records itself: no interval between checks.
        let met = try await eventually(timeout: timeout, every: .zero) {
            if condition(self) { return true }
            for case .record(let record) in try await consumer.poll(timeout: .milliseconds(50)) {
                let output = OutputRecord(record)
                switch record.topic {
                case topics.status: statuses.append(output)
                case topics.inbox: inbox.append(output)
                default: deadLetters.append(output)
                }
            }
            return condition(self)
        }
        if !met { Issue.record("timed out waiting for \(what); last statuses: \(statuses.suffix(5).map(\.text))") }
        return met
    }

    /// Waits until `token` has `count` status events, and returns them.
    func statuses(of token: String, count: Int, timeout: Duration = .seconds(60)) async throws -> [JSONValue] {
        try await waitUntil(timeout: timeout, "\(count) statuses of \(token)") { $0.statuses(of: token).count >= count }
        return statuses(of: token)
    }
}

/// An output record, with its value as text and parsed JSON.
struct OutputRecord: Sendable {
    var topicPartition: TopicPartition
    var key: String?
    var value: [UInt8]?
    var headers: [KafkaHeader]
    var timestamp: Int64?

    init(_ record: ConsumerRecord) {
        topicPartition = record.topicPartition
        key = record.key.map { String(buffer: $0) }
        value = record.value.map { Array($0.readableBytesView) }
        headers = record.headers
        timestamp = record.timestamp?.milliseconds
    }

    var text: String { value.map { String(decoding: $0, as: UTF8.self) } ?? "null" }
    var json: JSONValue { value.flatMap { try? JSONParser.parse($0) } ?? .null }
}

struct BridgeFixtureTopics {
    let status: String
    let inbox: String
    let deadLetters: String

    init(_ fixture: BridgeFixture) {
        status = fixture.configuration.topics.status
        inbox = fixture.configuration.topics.inbox
        deadLetters = fixture.configuration.topics.deadLetters
    }
}

extension JSONValue {
    /// The `type` of a status event.
    var type: String? { self["type"]?.stringValue }
    /// The `message_id` of a status event or inbox record.
    var messageID: String? { self["message_id"]?.stringValue }
    /// A whole number field.
    func integer(_ key: String) -> Int64? {
        if case .number(let text)? = self[key] { Int64(text) } else { nil }
    }
}

extension OutputReader {
    /// Makes `token` an online device with one message dispatched, in a visible order: a send
    /// at `time` (queued), then a connect at `time + 1` (dispatched). Returns the message's id.
    func queuedThenConnected(_ token: String, fixture: BridgeFixture, at time: Int64) async throws -> String {
        try await fixture.send([Requests.legacy(token, title: "first")], key: token, at: time)
        let id = try #require(try await statuses(of: token, count: 1).first?.messageID)
        try await fixture.presence(token, "connect", at: time + 1)
        try await waitUntil("the first message dispatched") { $0.statuses(of: token).count >= 2 }
        return id
    }

    /// Makes `token` a device that was online and left at `time + 2`: connected as above, then
    /// disconnected and acked (the `delivered` shows the disconnect before it was handled).
    /// Returns how many status events that made.
    func connectedAndLeft(_ token: String, fixture: BridgeFixture, at time: Int64) async throws -> Int {
        let id = try await queuedThenConnected(token, fixture: fixture, at: time)
        try await fixture.presence(token, "disconnect", at: time + 2)
        try await fixture.presence(token, "ack", messageIDs: [id], at: time + 2)
        try await waitUntil("delivered") { $0.statuses(of: token).count >= 3 }
        return 3
    }
}
