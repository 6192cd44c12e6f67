import Foundation
import Kafka
import Logging
import NIOCore

/// Sends requests to the bridge: each is produced to the send topic as JSON, keyed by its device
/// (FID or token) where it names one (null otherwise; the bridge routes every device either way);
/// subscriptions go to the subscriptions topic as FCM's batchAdd / batchRemove bodies.
public final class FCMBridgeSender: Sendable {
    private let producer: KafkaProducer
    private let topic: String
    private let subscriptionsTopic: String

    /// A sender producing to `topic` and `subscriptionsTopic` on the cluster `kafka` names
    /// (idempotent producer, acks=all).
    public init(
        kafka: KafkaConfiguration, topic: String = "fcm.send", subscriptionsTopic: String = "fcm.subscriptions",
        logger: Logger
    ) throws {
        self.producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        self.topic = topic
        self.subscriptionsTopic = subscriptionsTopic
    }

    /// Subscribes the devices to `topic` (`news` or `/topics/news`), in requests of at most
    /// 1,000 devices, and waits until the broker has them: each device then gets a `subscribed`
    /// status, or `rejected` (`too_many_topics`).
    public func subscribe(_ devices: [String], to topic: String) async throws {
        try await subscription("subscribe", topic: topic, devices: devices)
    }

    /// Unsubscribes the devices from `topic`, as ``subscribe(_:to:)`` subscribes them; each gets
    /// an `unsubscribed` status.
    public func unsubscribe(_ devices: [String], from topic: String) async throws {
        try await subscription("unsubscribe", topic: topic, devices: devices)
    }

    private func subscription(_ action: String, topic: String, devices: [String]) async throws {
        struct Body: Encodable {
            var action: String
            var topic: String
            var tokens: [String]
        }
        let encoder = Self.encoder()
        let records = try stride(from: 0, to: devices.count, by: Self.maximumSubscriptionTokens).map { start in
            let body = Body(
                action: action, topic: topic,
                tokens: Array(devices[start..<min(start + Self.maximumSubscriptionTokens, devices.count)]))
            return ProducerRecord(topic: subscriptionsTopic, value: ByteBuffer(bytes: try encoder.encode(body)))
        }
        try await producer.send(records).throwFirstError()
    }

    /// The most devices one subscription request names (FCM's limit).
    static let maximumSubscriptionTokens = 1000

    /// Sends `requests` and waits until the broker has them all; throws the first failure.
    /// Returns where each was written, in order: what names its messages in the statuses.
    @discardableResult
    public func send(_ requests: [SendRequest]) async throws -> [SentRequest] {
        let encoder = Self.encoder()
        let reports = try await producer.send(try requests.map { try record($0, encoder: encoder) })
        try reports.throwFirstError()
        return reports.map(SentRequest.init)
    }

    /// Sends one request and waits until the broker has it; returns where it was written.
    @discardableResult
    public func send(_ request: SendRequest) async throws -> SentRequest {
        SentRequest(try await producer.send(try record(request, encoder: Self.encoder())))
    }

    /// The send topic's record of `request`: its JSON, keyed by its device when it names one.
    private func record(_ request: SendRequest, encoder: JSONEncoder) throws -> ProducerRecord {
        ProducerRecord(
            topic: topic, key: request.token.map { ByteBuffer(string: $0) },
            value: ByteBuffer(bytes: try encoder.encode(request)))
    }

    /// The encoder of every request's JSON: keys sorted, so equal requests are equal bytes.
    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// Delivers what is in flight and disconnects.
    public func close() async throws {
        try await producer.close()
    }
}
