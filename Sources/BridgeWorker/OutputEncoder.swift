import DeviceQueues
import Kafka

/// Builds the records of the contract's output topics: inbox, status and dead letters.
struct OutputEncoder: Sendable {
    let inboxTopic: String
    let statusTopic: String
    let deadLetterTopic: String

    /// An inbox record for `token`, partitioned by murmur2(token), stamped with the event time.
    func inbox(_ entry: InboxRecord, token: String, at time: Int64) -> ProducerRecord {
        let value: [UInt8]
        var headers: [KafkaHeader]
        switch entry {
        case .message(let id, let record):
            value = record
            headers = [KafkaHeader(key: "message-id", value: id), KafkaHeader(key: "kind", value: InboxEncoding.messageKind)]
        case .deletedMessages(let reason, let count):
            value = InboxEncoding.deletedMessages(token: token, reason: reason, count: count)
            headers = [KafkaHeader(key: "kind", value: InboxEncoding.deletedMessagesKind)]
        }
        return ProducerRecord(topic: inboxTopic, key: Array(token.utf8), value: value, headers: headers, timestamp: time)
    }

    /// A status record, keyed by token (null for undecodable input), stamped with its `at`.
    func status(_ addressed: AddressedStatus) -> ProducerRecord {
        ProducerRecord(
            topic: statusTopic, key: addressed.token.map { Array($0.utf8) },
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
