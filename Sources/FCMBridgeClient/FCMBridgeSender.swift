import Foundation
import Kafka
import Logging
import NIOCore

/// Sends requests to the bridge: each is produced to the send topic as JSON, keyed by its device
/// (FID or token) where it names one (null otherwise; the bridge routes every device either way).
public final class FCMBridgeSender: Sendable {
    private let producer: KafkaProducer
    private let topic: String

    /// A sender producing to `topic` on the cluster `kafka` names (idempotent producer, acks=all).
    public init(kafka: KafkaConfiguration, topic: String = "fcm.send", logger: Logger) throws {
        self.producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        self.topic = topic
    }

    /// Sends `requests` and waits until the broker has them all; throws the first failure.
    public func send(_ requests: [SendRequest]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let records = try requests.map { request in
            ProducerRecord(
                topic: topic, key: request.token.map { ByteBuffer(string: $0) },
                value: ByteBuffer(bytes: try encoder.encode(request)))
        }
        try await producer.send(records).throwFirstError()
    }

    /// Sends one request and waits until the broker has it.
    public func send(_ request: SendRequest) async throws {
        try await send([request])
    }

    /// Delivers what is in flight and disconnects.
    public func close() async throws {
        try await producer.close()
    }
}
