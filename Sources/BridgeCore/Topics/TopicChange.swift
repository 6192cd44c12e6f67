import FCMTranslation

/// A change to topic state, as the changelog records it: each an O(1) record, the latest per key
/// winning, so that compaction keeps exactly the live memberships.
///
/// - `t <topic> <token>` in the topic's state partition: the device is a member (empty value),
///   or left (a tombstone);
/// - `s <topic> <token>` in the device's state partition: the topic is in the device's own set
///   (empty value), or left it (a tombstone).
///
/// Topic names have no spaces, so the token is everything after the second space.
public enum TopicChange: Sendable, Hashable {
    /// The device joined (`isMember`) or left the topic: the topic's view.
    case member(topic: String, token: String, isMember: Bool)
    /// The topic joined (`isSubscribed`) or left the device's own set: the device's view.
    case deviceTopic(token: String, topic: String, isSubscribed: Bool)
}

extension ChangelogCodec {
    /// Writes the changelog record of `change` to state partition `partition`.
    func record(_ change: TopicChange, partition: Int32, to outputs: inout OutputRecords) {
        outputs.begin(.changelog, partition: partition, timestamp: nil)
        switch change {
        case .member(let topic, let token, let isMember):
            outputs.key { Self.writeTopicKey("t", topic, token, to: &$0) }
            if isMember { outputs.value { _ in } }
        case .deviceTopic(let token, let topic, let isSubscribed):
            outputs.key { Self.writeTopicKey("s", topic, token, to: &$0) }
            if isSubscribed { outputs.value { _ in } }
        }
    }

    /// The topic change a changelog record holds; nil for a record of a device's queue (see
    /// ``change(of:header:)``).
    public func topicChange(of record: ChangelogRecordView) throws(MalformedRecord) -> TopicChange? {
        let space = UInt8(ascii: " ")
        guard let key = record.key, key.count > 2, key[1] == space,
            key[0] == UInt8(ascii: "t") || key[0] == UInt8(ascii: "s")
        else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: key[2...])
        guard let topicEnd = rest.firstIndex(of: space, from: 0) else {
            throw MalformedRecord(description: "changelog key at \(record.position) has no topic")
        }
        let topic = String(decoding: rest[..<topicEnd], as: UTF8.self)
        let token = String(decoding: rest[(topicEnd + 1)...], as: UTF8.self)
        let present = record.value != nil
        return key[0] == UInt8(ascii: "t")
            ? .member(topic: topic, token: token, isMember: present)
            : .deviceTopic(token: token, topic: topic, isSubscribed: present)
    }

    /// ``topicChange(of:)-(ChangelogRecordView)`` of a record held whole (tests, the fuzzer).
    public func topicChange(of record: some InputRecord) throws(MalformedRecord) -> TopicChange? {
        let key = record.key.map { Array($0.readableBytesView) }
        return try (key ?? []).withUnsafeBytes { bytes in
            Result { () throws(MalformedRecord) in
                try topicChange(
                    of: ChangelogRecordView(
                        topic: record.topic, partition: record.partition, offset: record.offset,
                        key: key == nil ? nil : bytes,
                        // Topic records hold no value: only whether there is one counts.
                        value: record.value == nil ? nil : UnsafeRawBufferPointer(rebasing: bytes[0..<0]),
                        createTime: record.createTime))
            }
        }.get()
    }

    /// `<kind> <topic> <token>`.
    private static func writeTopicKey(_ kind: StaticString, _ topic: String, _ token: String, to key: inout ByteWriter)
    {
        key.append(kind)
        key.append(UInt8(ascii: " "))
        key.append(utf8: topic)
        key.append(UInt8(ascii: " "))
        key.append(utf8: token)
    }
}
