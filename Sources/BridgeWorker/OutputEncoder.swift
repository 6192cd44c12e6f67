import DeviceQueues
import Kafka

/// Builds the records of the contract's output topics: inbox, status and dead letters.
struct OutputEncoder: Sendable {
    let inboxTopic: String
    let statusTopic: String
    let deadLetterTopic: String

    private static let messageKindHeader = KafkaHeader(key: "kind", value: InboxEncoding.messageKind)
    private static let deletedMessagesHeaders = [KafkaHeader(key: "kind", value: InboxEncoding.deletedMessagesKind)]

    /// An inbox record for `token` (whose UTF-8 bytes are `key`), partitioned by murmur2(token),
    /// stamped with the event time.
    func inbox(_ entry: InboxRecord, token: String, key: [UInt8], at time: Int64) -> ProducerRecord {
        let value: [UInt8]
        var headers: [KafkaHeader]
        switch entry {
        case .message(let id, let record):
            value = record
            headers = [KafkaHeader(key: "message-id", value: id), Self.messageKindHeader]
        case .deletedMessages(let reason, let count):
            value = InboxEncoding.deletedMessages(token: token, reason: reason, count: count)
            headers = Self.deletedMessagesHeaders
        }
        return ProducerRecord(topic: inboxTopic, key: key, value: value, headers: headers, timestamp: time)
    }

    /// A status record, keyed by token (null for undecodable input; `key` when its bytes are at
    /// hand), stamped with its `at`.
    func status(_ addressed: AddressedStatus, key: [UInt8]? = nil) -> ProducerRecord {
        ProducerRecord(
            topic: statusTopic, key: key ?? addressed.token.map { Array($0.utf8) },
            value: addressed.status.json(token: addressed.token), timestamp: addressed.status.time
        )
    }

    /// The input record, unchanged, with headers saying why and where it came from.
    func deadLetter(_ record: ConsumerRecord, error: String) -> ProducerRecord {
        ProducerRecord(
            topic: deadLetterTopic,
            key: RecordFields.bytes(record.key),
            value: RecordFields.bytes(record.value),
            headers: [
                KafkaHeader(key: "error", value: error),
                KafkaHeader(key: "source-topic", value: record.topic),
                KafkaHeader(key: "source-partition", value: String(record.partition)),
                KafkaHeader(key: "source-offset", value: String(record.offset)),
            ],
            timestamp: record.timestamp?.milliseconds
        )
    }
}
