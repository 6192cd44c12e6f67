import FCMBridgeClient
import Foundation
import Kafka
import NIOCore

/// Where events the webhook refuses go, so that their partition moves on: the watcher group's
/// own topic, `<group>.parked`. A parked record is the event whole (its key and value as the
/// bridge wrote them) with headers saying where it came from and what the webhook last said.
/// The event is in the topic before its offset is committed, so nothing is lost.
public struct ParkingTopic: Sendable {
    /// The topic's name.
    public let name: String
    private let producer: KafkaProducer

    /// The parking topic of the watchers of `group`.
    public static func name(forGroup group: String) -> String { "\(group).parked" }

    /// The parking topic `name`, written by `producer`.
    public init(name: String, producer: KafkaProducer) {
        self.name = name
        self.producer = producer
    }

    /// Writes `event` with the webhook's last `answer` after `attempts`, and returns once the
    /// broker has it.
    public func park(_ event: StatusEvent, id: String, answer: WebhookAnswer, attempts: Int, at now: Date = Date())
        async throws
    {
        let headers = [
            (WebhookSignature.idHeader, id), ("status", answer.status.map(String.init) ?? "none"),
            ("answer", answer.detail),
            ("attempts", String(attempts)), ("parked-at", String(Int64(now.timeIntervalSince1970 * 1000))),
        ].map { KafkaHeader(key: $0.0, value: $0.1) }
        try await producer.send([
            ProducerRecord(
                topic: name, key: event.key.map { ByteBuffer(bytes: $0) }, value: ByteBuffer(bytes: event.json),
                headers: headers)
        ])
        .throwFirstError()
    }
}
