import Foundation
import Kafka
import NIOCore

/// The demo's devices: they connect and disconnect as their ``DevicePlan`` says (presence
/// `connect` / `disconnect`), read their inbox records, acknowledge each message (presence
/// `ack`), and do a full sync when a `deleted_messages` notice arrives.
struct DeviceSimulator: Sendable {
    let plan: DevicePlan
    let presenceTopic: String
    let presence: KafkaProducer
    /// A member of its own group, subscribed to the inbox topic: every device's partition.
    let inbox: KafkaConsumer

    /// Message ids in one `ack`.
    static let acknowledgementsPerRecord = 100

    func run(from start: ContinuousClock.Instant, reporting events: AsyncStream<DemoEvent>.Continuation) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func record(_ event: PresenceRecord) -> ProducerRecord {
            ProducerRecord(
                topic: presenceTopic, key: ByteBuffer(string: event.token),
                value: ByteBuffer(bytes: (try? encoder.encode(event)) ?? Data())
            )
        }
        // The bridge takes a device it has not heard of for offline.
        var online = [Bool](repeating: false, count: plan.tokens.count)
        var second = -1
        while true {
            try Task.checkCancellation()
            let now = Int(start.duration(to: .now).components.seconds)
            if now != second {
                second = now
                var changes: [ProducerRecord] = []
                for device in plan.tokens.indices where plan.isOnline(device, atSecond: now) != online[device] {
                    online[device].toggle()
                    changes.append(
                        record(
                            PresenceRecord(token: plan.tokens[device], event: online[device] ? "connect" : "disconnect")
                        ))
                }
                if !changes.isEmpty { try await presence.send(changes).throwFirstError() }
                events.yield(.online(online.count { $0 }))
            }
            var received: [String: [String]] = [:]
            for case .record(let record) in try await inbox.poll(maxRecords: 2000, timeout: .milliseconds(100)) {
                guard let value = record.value, let message = InboxRecord.decode(Array(value.readableBytesView)),
                    plan.contains(message.token)
                else { continue }
                events.yield(.inbox(message))
                if let id = message.messageID { received[message.token, default: []].append(id) }
            }
            let acknowledgements = received.flatMap { token, ids in
                stride(from: 0, to: ids.count, by: Self.acknowledgementsPerRecord).map {
                    record(
                        PresenceRecord(
                            token: token, event: "ack",
                            messageIDs: Array(ids[$0..<min($0 + Self.acknowledgementsPerRecord, ids.count)])))
                }
            }
            if !acknowledgements.isEmpty {
                try await presence.send(acknowledgements).throwFirstError()
                events.yield(.acknowledged(count: received.values.reduce(0) { $0 + $1.count }))
            }
        }
    }
}
