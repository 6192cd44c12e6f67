import Crypto
import DeviceQueues
import FCMTranslation
import NIOCore

/// Writes the records of the contract's output topics: inbox, status and dead letters.
struct OutputEncoder: Sendable {
    /// An inbox record for `token`, partitioned by murmur2(token), stamped with the event time.
    func inbox(_ entry: InboxRecord, token: String, at time: Int64, to outputs: inout OutputRecords) {
        outputs.begin(.inbox, timestamp: time)
        outputs.key { $0.append(utf8: token) }
        switch entry {
        case .message(let message):
            outputs.value { InboxEncoding.writeMessage(message, token: token, to: &$0) }
            outputs.header("message-id", text: message.id)
            outputs.header("kind") { $0.append(InboxEncoding.messageKind) }
        case .deletedMessages(let reason, let count):
            outputs.value { InboxEncoding.writeDeletedMessages(token: token, reason: reason, count: count, to: &$0) }
            outputs.header("kind") { $0.append(InboxEncoding.deletedMessagesKind) }
        }
    }

    /// A status record, keyed by token (null for undecodable input), stamped with its `at`.
    func status(_ addressed: AddressedStatus, to outputs: inout OutputRecords) {
        outputs.begin(.status, timestamp: addressed.status.time)
        outputs.tally.wrote(addressed.status)
        if let key = addressed.key { outputs.key { $0.append(utf8: key) } }
        outputs.value { addressed.status.write(token: addressed.token, target: addressed.target, to: &$0) }
    }

    /// The input record, unchanged, with headers saying why and where it came from; cut to fit
    /// `limits` when it is larger (see ``DeadLetterCut``).
    func deadLetter(_ record: some InputRecord, error: String, limits: OutputLimits, to outputs: inout OutputRecords) {
        outputs.begin(.deadLetters, timestamp: record.createTime)
        let cut = DeadLetterCut(
            key: record.key?.readableBytes ?? 0, value: record.value?.readableBytes ?? 0, limits: limits)
        if let key = record.key { outputs.key { $0.append(key, upTo: cut.keptKey) } }
        if let value = record.value { outputs.value { $0.append(value, upTo: cut.keptValue) } }
        outputs.header("error", text: Rejection.capped(error))
        outputs.header("source-topic", text: record.topic)
        outputs.header("source-partition", integer: Int64(record.partition))
        outputs.header("source-offset", integer: record.offset)
        if cut.cutsKey || cut.cutsValue {
            outputs.header(
                "truncated",
                text: [cut.cutsKey ? "key" : nil, cut.cutsValue ? "value" : nil].compactMap { $0 }.joined(
                    separator: ","))
        }
        if cut.cutsKey, let key = record.key {
            originalSizeAndHash(of: key, names: ("original-key-bytes", "original-key-sha256"), to: &outputs)
        }
        if cut.cutsValue, let value = record.value {
            originalSizeAndHash(of: value, names: ("original-value-bytes", "original-value-sha256"), to: &outputs)
        }
    }

    private func originalSizeAndHash(
        of bytes: ByteBuffer, names: (size: StaticString, hash: StaticString), to outputs: inout OutputRecords
    ) {
        outputs.header(names.size, integer: Int64(bytes.readableBytes))
        let digest = bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        outputs.header(names.hash) { writer in
            for byte in digest { JSONOutput.writeHex(byte, to: &writer) }
        }
    }
}
