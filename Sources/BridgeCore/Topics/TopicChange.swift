import FCMTranslation

/// A change to topic state, as the changelog records it: each one record, the latest per key
/// winning, so that compaction keeps exactly the live memberships and fan-outs.
///
/// - `t <topic> <token>` in the topic's state partition: the device is a member (empty value),
///   or left (a tombstone);
/// - `s <topic> <token>` in the device's state partition: the topic is in the device's own set
///   (empty value), or left it (a tombstone);
/// - `j <send id> <topic index>` in the topic's state partition: a fan-out's walk of the topic
///   (``FanOutJSON``), or its end (a tombstone);
/// - `c <token>` in the device's state partition: the condition sends the device took its copy
///   of (``ConditionCopies``, a JSON array of `[send id, walk, send time]`), or none (a
///   tombstone, when it is forgotten);
/// - `k <send id>` in the first topic's state partition: a fan-out's tally began (the send's id,
///   target and time; written once, so that compaction keeps it ahead of the rest), or completed
///   (a tombstone); beside it, `e <send id> <topic index>`: a walk ended, with its last chunks,
///   and `q <send id> <topic>.<segment>.<partition>`: one channel's acknowledgements, so that an
///   acknowledgement is one small record.
///
/// Topic names and ids have no spaces, so the token is everything after the second space.
public enum TopicChange: Sendable, Hashable {
    /// The device joined (`isMember`) or left the topic: the topic's view.
    case member(topic: String, token: String, isMember: Bool)
    /// The topic joined (`isSubscribed`) or left the device's own set: the device's view.
    case deviceTopic(token: String, topic: String, isSubscribed: Bool)
    /// The condition sends a device took its copy of changed (or it was forgotten: nil).
    case conditionCopies(token: String, ConditionCopies?)
    /// A walk went on (or ended: nil).
    case walk(FanOutWalk.Key, FanOutWalk?)
    /// A tally began (or completed: nil).
    case tally(sendID: String, FanOutStatusSubject?)
    /// A topic's walk ended, having sent these last chunks (or the tally completed: nil).
    case walkEnded(sendID: String, topicIndex: Int, lastChunks: [FanOutTally.Channel: Int]?)
    /// A tally's channel was acknowledged (or the tally completed: nil).
    case tallyProgress(sendID: String, FanOutTally.TopicChannel, FanOutTally.Progress?)
}

extension ChangelogCodec {
    /// Writes the changelog record of `change` to state partition `partition`.
    func record(_ change: TopicChange, partition: Int32, to outputs: inout OutputRecords) {
        begin(partition: partition, timestamp: nil, to: &outputs)
        switch change {
        case .member(let topic, let token, let isMember):
            outputs.key { Self.writeTopicKey("t", topic, token, to: &$0) }
            if isMember { outputs.value { _ in } }
        case .deviceTopic(let token, let topic, let isSubscribed):
            outputs.key { Self.writeTopicKey("s", topic, token, to: &$0) }
            if isSubscribed { outputs.value { _ in } }
        case .conditionCopies(let token, let copies):
            outputs.key {
                $0.append("c ")
                $0.append(utf8: token)
            }
            if let copies { outputs.value { FanOutJSON.write(copies, to: &$0) } }
        case .walk(let key, let walk):
            outputs.key { Self.writeTopicKey("j", key.sendID, String(key.topicIndex), to: &$0) }
            if let walk { outputs.value { FanOutJSON.write(walk, to: &$0) } }
        case .tally(let sendID, let subject):
            outputs.key {
                $0.append("k ")
                $0.append(utf8: sendID)
            }
            if let subject { outputs.value { FanOutJSON.write(subject, to: &$0) } }
        case .walkEnded(let sendID, let index, let lastChunks):
            outputs.key { Self.writeTopicKey("e", sendID, String(index), to: &$0) }
            if let lastChunks { outputs.value { FanOutJSON.write(lastChunks, to: &$0) } }
        case .tallyProgress(let sendID, let channel, let progress):
            let name = "\(channel.topic).\(channel.channel.segment).\(channel.channel.partition)"
            outputs.key { Self.writeTopicKey("q", sendID, name, to: &$0) }
            if let progress { outputs.value { FanOutJSON.write(progress, to: &$0) } }
        }
    }

    /// The topic change a changelog record holds; nil for a record of a device's queue (see
    /// ``change(of:header:)``).
    public func topicChange(of record: ChangelogRecordView) throws(MalformedRecord) -> TopicChange? {
        let space = UInt8(ascii: " ")
        guard let key = record.key, key.count > 2, key[1] == space,
            Self.topicKinds.contains(key[0])
        else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: key[2...])
        if key[0] == UInt8(ascii: "c") {
            let token = String(decoding: rest, as: UTF8.self)
            guard let value = record.value else { return .conditionCopies(token: token, nil) }
            guard let copies = FanOutJSON.conditionCopies(value) else {
                throw MalformedRecord(description: "changelog condition copies at \(record.position) are not readable")
            }
            return .conditionCopies(token: token, copies)
        }
        if key[0] == UInt8(ascii: "k") {
            let sendID = String(decoding: rest, as: UTF8.self)
            guard let value = record.value else { return .tally(sendID: sendID, nil) }
            guard let subject = FanOutJSON.subject(value) else {
                throw MalformedRecord(description: "changelog fan-out tally at \(record.position) is not readable")
            }
            return .tally(sendID: sendID, subject)
        }
        guard let topicEnd = rest.firstIndex(of: space, from: 0) else {
            throw MalformedRecord(description: "changelog key at \(record.position) has no topic")
        }
        let topic = String(decoding: rest[..<topicEnd], as: UTF8.self)
        let token = String(decoding: rest[(topicEnd + 1)...], as: UTF8.self)
        if key[0] == UInt8(ascii: "q") {
            let numbers = token.split(separator: ".", omittingEmptySubsequences: false).compactMap { Int($0) }
            guard numbers.count == 3, numbers.allSatisfy({ $0 >= 0 }), let partition = Int32(exactly: numbers[2]) else {
                throw MalformedRecord(description: "changelog fan-out channel at \(record.position) has no channel")
            }
            let channel = FanOutTally.TopicChannel(
                topic: numbers[0], channel: FanOutTally.Channel(segment: numbers[1], partition: partition))
            guard let value = record.value else { return .tallyProgress(sendID: topic, channel, nil) }
            guard let progress = FanOutJSON.progress(value) else {
                throw MalformedRecord(description: "changelog fan-out channel at \(record.position) is not readable")
            }
            return .tallyProgress(sendID: topic, channel, progress)
        }
        if key[0] == UInt8(ascii: "e") {
            guard let index = Int(token), index >= 0 else {
                throw MalformedRecord(
                    description: "changelog fan-out walk end at \(record.position) has no topic index")
            }
            guard let value = record.value else { return .walkEnded(sendID: topic, topicIndex: index, lastChunks: nil) }
            guard let lastChunks = FanOutJSON.lastChunks(value) else {
                throw MalformedRecord(description: "changelog fan-out walk end at \(record.position) is not readable")
            }
            return .walkEnded(sendID: topic, topicIndex: index, lastChunks: lastChunks)
        }
        if key[0] == UInt8(ascii: "j") {
            guard let index = Int(token), index >= 0 else {
                throw MalformedRecord(description: "changelog fan-out walk at \(record.position) has no topic index")
            }
            let walkKey = FanOutWalk.Key(sendID: topic, topicIndex: index)
            guard let value = record.value else { return .walk(walkKey, nil) }
            guard let walk = FanOutJSON.walk(sendID: topic, topicIndex: index, value: value) else {
                throw MalformedRecord(description: "changelog fan-out walk at \(record.position) is not readable")
            }
            return .walk(walkKey, walk)
        }
        let present = record.value != nil
        return key[0] == UInt8(ascii: "t")
            ? .member(topic: topic, token: token, isMember: present)
            : .deviceTopic(token: token, topic: topic, isSubscribed: present)
    }

    /// ``topicChange(of:)-(ChangelogRecordView)`` of a record held whole (tests, the fuzzer).
    public func topicChange(of record: some InputRecord) throws(MalformedRecord) -> TopicChange? {
        let key = record.key.map { Array($0.readableBytesView) }
        let value = record.value.map { Array($0.readableBytesView) }
        let bytes = (key ?? []) + (value ?? [])
        return try bytes.withUnsafeBytes { bytes in
            Result { () throws(MalformedRecord) in
                let keyCount = key?.count ?? 0
                return try topicChange(
                    of: ChangelogRecordView(
                        topic: record.topic, partition: record.partition, offset: record.offset,
                        key: key == nil ? nil : UnsafeRawBufferPointer(rebasing: bytes[..<keyCount]),
                        value: value == nil ? nil : UnsafeRawBufferPointer(rebasing: bytes[keyCount...]),
                        createTime: record.createTime))
            }
        }.get()
    }

    /// The first bytes of the keys of topic changes.
    private static let topicKinds: [UInt8] = ["t", "s", "c", "j", "k", "e", "q"].map { UInt8(ascii: $0) }

    /// `<kind> <topic> <token>` (`<kind> <send id> <topic index>` for a walk).
    private static func writeTopicKey(_ kind: StaticString, _ topic: String, _ token: String, to key: inout ByteWriter)
    {
        key.append(kind)
        key.append(UInt8(ascii: " "))
        key.append(utf8: topic)
        key.append(UInt8(ascii: " "))
        key.append(utf8: token)
    }
}
