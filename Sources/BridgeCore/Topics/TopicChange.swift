import FCMTranslation

/// A change to topic state: what the processor's pure steps return, what
/// ``TopicStates/apply(_:in:)`` applies (live and when restoring alike), and one changelog
/// record each (its kind: ``ChangelogKind``), the latest per key winning, so that compaction
/// keeps exactly the live memberships and fan-outs. Topic names and ids have no spaces, so the
/// token is everything after the second space.
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
            outputs.key { Self.writeTopicKey(.member, topic, token, to: &$0) }
            if isMember { outputs.value { _ in } }
        case .deviceTopic(let token, let topic, let isSubscribed):
            outputs.key { Self.writeTopicKey(.deviceTopic, topic, token, to: &$0) }
            if isSubscribed { outputs.value { _ in } }
        case .conditionCopies(let token, let copies):
            outputs.key { Self.writeTopicKey(.conditionCopies, token, to: &$0) }
            if let copies { outputs.value { FanOutJSON.write(copies, to: &$0) } }
        case .walk(let key, let walk):
            outputs.key { Self.writeTopicKey(.walk, key.sendID, String(key.topicIndex), to: &$0) }
            if let walk { outputs.value { FanOutJSON.write(walk, to: &$0) } }
        case .tally(let sendID, let subject):
            outputs.key { Self.writeTopicKey(.tally, sendID, to: &$0) }
            if let subject { outputs.value { FanOutJSON.write(subject, to: &$0) } }
        case .walkEnded(let sendID, let index, let lastChunks):
            outputs.key { Self.writeTopicKey(.walkEnded, sendID, String(index), to: &$0) }
            if let lastChunks { outputs.value { FanOutJSON.write(lastChunks, to: &$0) } }
        case .tallyProgress(let sendID, let channel, let progress):
            let name = "\(channel.topic).\(channel.channel.segment).\(channel.channel.partition)"
            outputs.key { Self.writeTopicKey(.tallyProgress, sendID, name, to: &$0) }
            if let progress { outputs.value { FanOutJSON.write(progress, to: &$0) } }
        }
    }

    /// The topic change of a record of kind `kind` (``ChangelogKind/isTopicState``), whose key
    /// after its kind is `rest`.
    func topicChange(_ kind: ChangelogKind, rest: UnsafeRawBufferPointer, of record: ChangelogRecordView)
        throws(MalformedRecord) -> TopicChange
    {
        switch kind {
        case .member:
            let (topic, token) = try Self.split(rest, of: record, naming: "topic")
            return .member(topic: topic, token: token, isMember: record.value != nil)
        case .deviceTopic:
            let (topic, token) = try Self.split(rest, of: record, naming: "topic")
            return .deviceTopic(token: token, topic: topic, isSubscribed: record.value != nil)
        case .conditionCopies:
            let token = String(decoding: rest, as: UTF8.self)
            guard let value = record.value else { return .conditionCopies(token: token, nil) }
            guard let copies = FanOutJSON.conditionCopies(value) else {
                throw MalformedRecord(description: "changelog condition copies at \(record.position) are not readable")
            }
            return .conditionCopies(token: token, copies)
        case .walk:
            let (sendID, index) = try Self.walkKey(rest, of: record, naming: "fan-out walk")
            let key = FanOutWalk.Key(sendID: sendID, topicIndex: index)
            guard let value = record.value else { return .walk(key, nil) }
            guard let walk = FanOutJSON.walk(sendID: sendID, topicIndex: index, value: value) else {
                throw MalformedRecord(description: "changelog fan-out walk at \(record.position) is not readable")
            }
            return .walk(key, walk)
        case .tally:
            let sendID = String(decoding: rest, as: UTF8.self)
            guard let value = record.value else { return .tally(sendID: sendID, nil) }
            guard let subject = FanOutJSON.subject(value) else {
                throw MalformedRecord(description: "changelog fan-out tally at \(record.position) is not readable")
            }
            return .tally(sendID: sendID, subject)
        case .walkEnded:
            let (sendID, index) = try Self.walkKey(rest, of: record, naming: "fan-out walk end")
            guard let value = record.value else {
                return .walkEnded(sendID: sendID, topicIndex: index, lastChunks: nil)
            }
            guard let lastChunks = FanOutJSON.lastChunks(value) else {
                throw MalformedRecord(description: "changelog fan-out walk end at \(record.position) is not readable")
            }
            return .walkEnded(sendID: sendID, topicIndex: index, lastChunks: lastChunks)
        case .tallyProgress:
            let (sendID, name) = try Self.split(rest, of: record, naming: "fan-out channel")
            let numbers = name.split(separator: ".", omittingEmptySubsequences: false).compactMap { Int($0) }
            guard numbers.count == 3, numbers.allSatisfy({ $0 >= 0 }), let partition = Int32(exactly: numbers[2]) else {
                throw MalformedRecord(description: "changelog fan-out channel at \(record.position) has no channel")
            }
            let channel = FanOutTally.TopicChannel(
                topic: numbers[0], channel: FanOutTally.Channel(segment: numbers[1], partition: partition))
            guard let value = record.value else { return .tallyProgress(sendID: sendID, channel, nil) }
            guard let progress = FanOutJSON.progress(value) else {
                throw MalformedRecord(description: "changelog fan-out channel at \(record.position) is not readable")
            }
            return .tallyProgress(sendID: sendID, channel, progress)
        case .device, .waitingMessage, .awaitingAcknowledgement:
            throw MalformedRecord(description: "changelog record at \(record.position) is no topic state")
        }
    }

    /// `<name> <rest>` of a key after its kind: the name (a topic or send id) and the rest (a
    /// token, or a walk's name).
    private static func split(_ rest: UnsafeRawBufferPointer, of record: ChangelogRecordView, naming what: String)
        throws(MalformedRecord) -> (name: String, rest: String)
    {
        guard let end = rest.firstIndex(of: UInt8(ascii: " "), from: 0) else {
            throw MalformedRecord(description: "changelog key at \(record.position) has no \(what) name")
        }
        return (String(decoding: rest[..<end], as: UTF8.self), String(decoding: rest[(end + 1)...], as: UTF8.self))
    }

    /// ``split(_:of:naming:)`` of a walk's key: its send id and topic index.
    private static func walkKey(_ rest: UnsafeRawBufferPointer, of record: ChangelogRecordView, naming what: String)
        throws(MalformedRecord) -> (sendID: String, topicIndex: Int)
    {
        let (sendID, index) = try split(rest, of: record, naming: what)
        guard let topicIndex = Int(index), topicIndex >= 0 else {
            throw MalformedRecord(description: "changelog \(what) at \(record.position) has no topic index")
        }
        return (sendID, topicIndex)
    }

    /// `<kind> <name> <token>`, or `<kind> <name>` without a token.
    private static func writeTopicKey(
        _ kind: ChangelogKind, _ name: String, _ token: String? = nil, to key: inout ByteWriter
    ) {
        key.append(kind.rawValue)
        key.append(UInt8(ascii: " "))
        key.append(utf8: name)
        if let token {
            key.append(UInt8(ascii: " "))
            key.append(utf8: token)
        }
    }
}
