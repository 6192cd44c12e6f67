import DeviceQueues
import FCMTranslation
import Kafka

/// The repartition topic's records: inputs forwarded to the partition that owns their device,
/// keyed by token, with the original event time as the record's CreateTime.
///
/// The `kind` header says what the input is: `message` (value: the inbox record; headers
/// `message-id`, `collapse-key`, `expires-at`), `connect`, `disconnect`, or `ack` (value: the
/// acknowledged ids as a JSON array).
struct RepartitionCodec: Sendable {
    let topic: String

    func record(_ routed: RoutedInput, partition: Int32) -> ProducerRecord {
        var headers: [KafkaHeader] = []
        var value: [UInt8] = []
        switch routed.input {
        case .send(let message):
            headers = [KafkaHeader(key: "kind", value: "message"), KafkaHeader(key: "message-id", value: message.id)]
            if let key = message.collapseKey { headers.append(KafkaHeader(key: "collapse-key", value: key)) }
            if let expiresAt = message.expiresAt { headers.append(RecordFields.header("expires-at", expiresAt)) }
            value = message.inboxRecord
        case .presence(.connect):
            headers = [KafkaHeader(key: "kind", value: "connect")]
        case .presence(.disconnect):
            headers = [KafkaHeader(key: "kind", value: "disconnect")]
        case .presence(.acknowledge(let ids)):
            headers = [KafkaHeader(key: "kind", value: "ack")]
            value = JSONValue.array(ids.map(JSONValue.string)).jsonBytes
        }
        return ProducerRecord(
            topic: topic, partition: .explicit(partition), key: Array(routed.token.utf8),
            value: value, headers: headers, timestamp: routed.time
        )
    }

    func input(of record: ConsumerRecord) throws(MalformedRecord) -> RoutedInput {
        guard let token = RecordFields.text(record.key), let time = record.timestamp?.milliseconds else {
            throw MalformedRecord(description: "repartition record without a key or timestamp")
        }
        let input: DeviceInput
        switch record.headers.string(for: "kind") {
        case "message":
            guard let id = record.headers.string(for: "message-id") else {
                throw MalformedRecord(description: "repartition message without a message-id header")
            }
            input = .send(QueuedMessage(
                id: id, collapseKey: record.headers.string(for: "collapse-key"), sentAt: time,
                expiresAt: RecordFields.integer("expires-at", in: record.headers),
                inboxRecord: RecordFields.bytes(record.value) ?? []
            ))
        case "connect":
            input = .presence(.connect)
        case "disconnect":
            input = .presence(.disconnect)
        case "ack":
            guard let bytes = RecordFields.bytes(record.value), case .array(let ids)? = try? JSONParser.parse(bytes) else {
                throw MalformedRecord(description: "repartition ack without a JSON array of ids")
            }
            input = .presence(.acknowledge(messageIDs: ids.compactMap(\.stringValue)))
        case let kind:
            throw MalformedRecord(description: "repartition record of unknown kind \(kind ?? "nil")")
        }
        return RoutedInput(token: token, input: input, time: time)
    }
}
