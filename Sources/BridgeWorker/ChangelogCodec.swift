import DeviceQueues
import FCMTranslation
import Kafka

/// The changelog topic's records: one per state change, keyed so that compaction keeps exactly
/// the live state. Each key holds one thing, and the latest record for it wins:
///
/// - `d <token>`: the device's status (`{"online":..,"last_activity":..,"notice":{..}}`);
/// - `m <message id> <token>`: a waiting message (value: its inbox record; headers
///   `collapse-key`, `expires-at`; timestamp: its send time), or a tombstone once it left;
/// - `a <message id> <token>`: a dispatched message awaiting `ack` (empty value), or a tombstone.
///
/// Message ids have no spaces, so the token is everything after the second space.
struct ChangelogCodec: Sendable {
    let topic: String

    func record(_ change: StateChange, token: String, partition: Int32) -> ProducerRecord {
        var record = ProducerRecord(topic: topic, partition: .explicit(partition), value: nil)
        switch change {
        case .device(let status):
            record.key = Self.key("d", nil, token)
            record.value = Self.json(status)
        case .enqueued(let message):
            record.key = Self.key("m", message.id, token)
            record.value = message.inboxRecord
            record.timestamp = message.sentAt
            if let key = message.collapseKey { record.headers.append(KafkaHeader(key: "collapse-key", value: key)) }
            if let expiresAt = message.expiresAt { record.headers.append(RecordFields.header("expires-at", expiresAt)) }
        case .dequeued(let id):
            record.key = Self.key("m", id, token)
        case .awaitingAcknowledgement(let id):
            record.key = Self.key("a", id, token)
            record.value = []
        case .acknowledgementSettled(let id):
            record.key = Self.key("a", id, token)
        }
        return record
    }

    /// The device and change a changelog record holds. The key is read as bytes (a token may
    /// start with anything, a combining mark included); errors name the record's place, never
    /// its token.
    func change(of record: ConsumerRecord) throws(MalformedRecord) -> (token: String, change: StateChange) {
        let place = "\(record.topicPartition)@\(record.offset)"
        guard let key = record.key?.readableBytesView, key.count > 2, key[key.startIndex + 1] == UInt8(ascii: " ") else {
            throw MalformedRecord(description: "changelog record at \(place) has no key of the form \"<kind> ...\"")
        }
        let kind = key[key.startIndex]
        let rest = key.dropFirst(2)
        if kind == UInt8(ascii: "d") {
            return (String(decoding: rest, as: UTF8.self), .device(try status(of: record)))
        }
        guard let space = rest.firstIndex(of: UInt8(ascii: " ")) else {
            throw MalformedRecord(description: "changelog key at \(place) has no message id")
        }
        let id = String(decoding: rest[..<space], as: UTF8.self)
        let token = String(decoding: rest[(space + 1)...], as: UTF8.self)
        switch (kind, record.value) {
        case (UInt8(ascii: "m"), nil): return (token, .dequeued(messageID: id))
        case (UInt8(ascii: "m"), let value?):
            let message = QueuedMessage(
                id: id, collapseKey: record.headers.string(for: "collapse-key"),
                sentAt: record.timestamp?.milliseconds ?? 0,
                expiresAt: RecordFields.integer("expires-at", in: record.headers),
                inboxRecord: Array(value.readableBytesView)
            )
            return (token, .enqueued(message))
        case (UInt8(ascii: "a"), nil): return (token, .acknowledgementSettled(messageID: id))
        case (UInt8(ascii: "a"), _): return (token, .awaitingAcknowledgement(messageID: id))
        default: throw MalformedRecord(description: "changelog key at \(place) is of unknown kind")
        }
    }

    private func status(of record: ConsumerRecord) throws(MalformedRecord) -> DeviceStatus {
        guard let bytes = RecordFields.bytes(record.value), let json = try? JSONParser.parse(bytes),
              case .bool(let online)? = json["online"], let activity = json["last_activity"].flatMap(Self.integer) else {
            throw MalformedRecord(description: "changelog device status at \(record.topicPartition)@\(record.offset) is not readable")
        }
        var notice: DeletionNotice?
        if let value = json["notice"] {
            guard let reason = value["reason"]?.stringValue.flatMap(DeletionReason.init(rawValue:)),
                  let count = value["count"].flatMap(Self.integer) else {
                throw MalformedRecord(description: "changelog notice at \(record.topicPartition)@\(record.offset) is not readable")
            }
            notice = DeletionNotice(reason: reason, count: Int(count))
        }
        return DeviceStatus(isOnline: online, lastActivity: activity, pendingNotice: notice)
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        if case .number(let text) = value { Int64(text) } else { nil }
    }

    /// `{"last_activity":..,"notice":{"count":..,"reason":..},"online":..}`, members in name order.
    private static func json(_ status: DeviceStatus) -> [UInt8] {
        ByteWriter.array(scratchCapacity: 256) { output in
            output.append(#"{"last_activity":"#)
            JSONOutput.writeInteger(status.lastActivity, to: &output)
            if let notice = status.pendingNotice {
                output.append(#","notice":{"count":"#)
                JSONOutput.writeInteger(Int64(notice.count), to: &output)
                output.append(#","reason":"#)
                JSONOutput.writeString(notice.reason.rawValue, to: &output)
                output.append(UInt8(ascii: "}"))
            }
            output.append(status.isOnline ? #","online":true}"# : #","online":false}"#)
        }
    }

    private static func key(_ kind: StaticString, _ id: String?, _ token: String) -> [UInt8] {
        ByteWriter.array(scratchCapacity: 512) { key in
            key.append(kind)
            key.append(UInt8(ascii: " "))
            if let id {
                key.append(utf8: id)
                key.append(UInt8(ascii: " "))
            }
            key.append(utf8: token)
        }
    }
}
