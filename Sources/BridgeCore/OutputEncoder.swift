import DeviceQueues
import FCMTranslation

/// Writes the records of the contract's output topics: inbox, status and dead letters.
struct OutputEncoder: Sendable {
    /// An inbox record for `token`, partitioned by murmur2(token), stamped with the event time.
    func inbox(_ entry: InboxRecord, token: String, at time: Int64, to outputs: inout OutputRecords) {
        outputs.begin(.inbox, timestamp: time)
        outputs.key { $0.append(utf8: token) }
        switch entry {
        case .message(let id, let record):
            outputs.value { $0.append(record) }
            outputs.header("message-id", text: id)
            outputs.header("kind") { $0.append(InboxEncoding.messageKind) }
        case .deletedMessages(let reason, let count):
            outputs.value { InboxEncoding.writeDeletedMessages(token: token, reason: reason, count: count, to: &$0) }
            outputs.header("kind") { $0.append(InboxEncoding.deletedMessagesKind) }
        }
    }

    /// A status record, keyed by token (null for undecodable input), stamped with its `at`.
    func status(_ addressed: AddressedStatus, to outputs: inout OutputRecords) {
        outputs.begin(.status, timestamp: addressed.status.time)
        if let token = addressed.token { outputs.key { $0.append(utf8: token) } }
        outputs.value { addressed.status.write(token: addressed.token, to: &$0) }
    }

    /// The input record, unchanged, with headers saying why and where it came from.
    func deadLetter(_ record: some InputRecord, error: String, to outputs: inout OutputRecords) {
        outputs.begin(.deadLetters, timestamp: record.createTime)
        if let key = record.key { outputs.key { $0.append(key) } }
        if let value = record.value { outputs.value { $0.append(value) } }
        outputs.header("error", text: error)
        outputs.header("source-topic", text: record.topic)
        outputs.header("source-partition", integer: Int64(record.partition))
        outputs.header("source-offset", integer: record.offset)
    }
}
