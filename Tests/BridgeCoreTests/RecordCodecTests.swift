import DeviceQueues
import FCMTranslation
import NIOCore
import Testing

@testable import BridgeCore

/// The one record `write` writes.
func written(_ write: (inout OutputRecords) -> Void) -> OutputRecords.Copy {
    var outputs = OutputRecords()
    write(&outputs)
    #expect(outputs.count == 1)
    return outputs.copy(at: 0)
}

/// What a consumer would read back of a written record.
func consumed(_ record: OutputRecords.Copy, topic: String, offset: Int64 = 7) -> InMemoryRecord {
    InMemoryRecord(
        topic: topic, partition: record.partition ?? 0, offset: offset,
        key: record.key.map { ByteBuffer(bytes: $0) }, value: record.value.map { ByteBuffer(bytes: $0) },
        createTime: record.timestamp,
        headers: Dictionary(record.headers.map { ($0.name, String(decoding: $0.value, as: UTF8.self)) }) { first, _ in
            first
        }
    )
}

@Suite("Internal record formats")
struct RecordCodecTests {
    static let message = QueuedMessage(
        id: "1:2:0", collapseKey: "score", sentAt: 1_700_000_000_000, expiresAt: 1_700_000_060_000,
        apns: Array(#"{"kind":"message"}"#.utf8))
    static let plain = QueuedMessage(id: "1:3:0", collapseKey: nil, sentAt: 1_700_000_000_001, expiresAt: nil, apns: [])

    @Test(
        "every state change survives the changelog, whatever the token",
        arguments: [
            StateChange.device(DeviceStatus(isOnline: true, lastActivity: 1_700_000_000_000, pendingNotice: nil)),
            .device(
                DeviceStatus(
                    isOnline: false, lastActivity: 5, pendingNotice: DeletionNotice(reason: .deviceInactive, count: 101)
                )),
            .enqueued(message), .enqueued(plain),
            .dequeued(messageID: "1:2:0"), .awaitingAcknowledgement(messageID: "1:2:0"),
            .acknowledgementSettled(messageID: "1:2:0"),
            .forgotten,
        ], ["token", "a token with spaces", "ü", "\u{301}starts with a combining mark", "e\u{301}"])
    func changelogRoundTrip(change: StateChange, token: String) throws {
        let codec = ChangelogCodec(topic: "changelog")
        let record = written { codec.record(change, token: token, partition: 3, to: &$0) }
        #expect(record.partition == 3 && record.topic == .changelog)
        guard case .device(let decodedToken, let decoded) = try codec.decode(consumed(record, topic: "changelog"))
        else {
            Issue.record("a device's change reads back as topic state")
            return
        }
        #expect(Array(decodedToken.utf8) == Array(token.utf8), "tokens are compared as bytes")
        #expect(decoded == change)
    }

    static let topicTarget = try! TopicTarget.parse("'a' in topics || 'b' in topics", as: .condition).get()
    static let fanOut = FanOutMessage(
        sendID: "2:9:0", target: topicTarget, collapseKey: "k", expiresAt: 1_700_000_060_000, time: 1_700_000_000_000,
        apns: Array(#"{"headers":{},"payload":{"gcm.message_id":"2:9:0/0000000000000000"}}"#.utf8), idRange: 41..<63)

    @Test(
        "every topic change survives the changelog",
        arguments: [
            TopicChange.member(topic: "news", token: "a token", isMember: true),
            .member(topic: "news", token: "t", isMember: false),
            .deviceTopic(token: "\u{301}t", topic: "news", isSubscribed: true),
            .conditionCopies(
                token: "t",
                ConditionCopies(entries: [
                    .init(sendID: "1:2:0", walk: 0, sentAt: 5), .init(sendID: "3:4:0", walk: 1, sentAt: -1),
                ])),
            .conditionCopies(token: "t", nil),
            .walk(
                FanOutWalk.Key(sendID: "2:9:0", topicIndex: 1),
                FanOutWalk(message: fanOut, topicIndex: 1, ended: [nil, [0: 3, 2: 1]])),
            .walk(FanOutWalk.Key(sendID: "2:9:0", topicIndex: 1), nil),
            .tally(sendID: "2:9:0", FanOutStatusSubject(sendID: "2:9:0", target: topicTarget, time: 5)),
            .tally(sendID: "2:9:0", nil),
            .walkEnded(sendID: "2:9:0", topicIndex: 1, lastChunks: [FanOutTally.Channel(segment: 2, partition: 3): 7]),
            .walkEnded(sendID: "2:9:0", topicIndex: 0, lastChunks: nil),
            .tallyProgress(
                sendID: "2:9:0", FanOutTally.TopicChannel(topic: 1, channel: .init(segment: 0, partition: 2)),
                FanOutTally.Progress(lastChunk: 4, accepted: 900)),
        ])
    func topicChangeRoundTrip(change: TopicChange) throws {
        let codec = ChangelogCodec(topic: "changelog")
        let record = written { codec.record(change, partition: 2, to: &$0) }
        #expect(try codec.decode(consumed(record, topic: "changelog")) == .topic(change))
    }

    @Test("each changelog kind keeps its wire letter, so records of earlier versions restore")
    func kindLetters() {
        let letters = Dictionary(
            uniqueKeysWithValues: ChangelogKind.allCases.map { ($0, Character(Unicode.Scalar($0.rawValue))) })
        #expect(
            letters == [
                .device: "d", .waitingMessage: "m", .awaitingAcknowledgement: "a", .member: "t", .deviceTopic: "s",
                .conditionCopies: "c", .walk: "j", .tally: "k", .walkEnded: "e", .tallyProgress: "q",
            ])
    }

    @Test("removals are tombstones of the key that added, so compaction keeps only live state")
    func tombstones() {
        let codec = ChangelogCodec(topic: "changelog")
        let added = written { codec.record(.enqueued(Self.message), token: "t", partition: 0, to: &$0) }
        let removed = written { codec.record(.dequeued(messageID: Self.message.id), token: "t", partition: 0, to: &$0) }
        #expect(removed.key == added.key && removed.value == nil)
        let awaiting = written {
            codec.record(.awaitingAcknowledgement(messageID: "x"), token: "t", partition: 0, to: &$0)
        }
        let settled = written {
            codec.record(.acknowledgementSettled(messageID: "x"), token: "t", partition: 0, to: &$0)
        }
        #expect(settled.key == awaiting.key && settled.value == nil && awaiting.value != nil)
        let status = written {
            codec.record(
                .device(DeviceStatus(isOnline: true, lastActivity: 1, pendingNotice: nil)), token: "t", partition: 0,
                to: &$0)
        }
        let forgotten = written { codec.record(.forgotten, token: "t", partition: 0, to: &$0) }
        #expect(forgotten.key == status.key && forgotten.value == nil && status.value != nil)
    }

    @Test(
        "an unreadable changelog record is an error, not a crash; one of a kind a newer version could write says so",
        arguments: [
            (nil, nil, false), ("d t", "{}", false), ("m 1:2:0", "x", false), ("d t", "not json", false),
            ("mt", "x", false), ("é t", "x", false), ("z 1 t", "x", true), ("z t", nil, true), ("\u{7F} t", "x", false),
            ("A t", "x", false),
            ("t news", nil, false), ("j 1:2:0 x", "{}", false), ("j 1:2:0 -1", nil, false), ("q 1:2:0 0.0", nil, false),
            ("k 1:2:0", "[]", false), ("c t", "{}", false), ("e 1:2:0 0", "{}", false),
        ] as [(String?, String?, Bool)])
    func malformedChangelog(key: String?, value: String?, unknownKind: Bool) {
        let record = InMemoryRecord(
            topic: "c", key: key.map { ByteBuffer(string: $0) }, value: value.map { ByteBuffer(string: $0) })
        let error = #expect(throws: MalformedRecord.self) { try ChangelogCodec(topic: "c").decode(record) }
        #expect(error?.isUnknownKind == unknownKind)
    }

    @Test(
        "a waiting message's expires-at header is read as Int64(String) reads it",
        arguments: [
            ("1700000060000", 1_700_000_060_000), ("+5", 5), ("-5", -5), ("12x", nil), (" 5", nil), ("", nil),
            ("9223372036854775807", Int64.max), ("9223372036854775808", nil),
        ] as [(String, Int64?)])
    func expiresAtHeader(header: String, expected: Int64?) throws {
        let record = InMemoryRecord(
            topic: "c", key: ByteBuffer(string: "m 1:2:0 t"), value: ByteBuffer(string: "{}"), createTime: 7,
            headers: ["expires-at": header])
        guard case .device(_, .enqueued(let message)) = try ChangelogCodec(topic: "c").decode(record) else {
            Issue.record("not a waiting message")
            return
        }
        #expect(message.expiresAt == expected)
        #expect(message.expiresAt == Int64(header), "the same as Int64(String)")
    }

    @Test(
        "every device input survives the repartition topic, with its event time",
        arguments: [
            DeviceInput.send(message), .send(plain), .presence(.connect), .presence(.disconnect),
            .presence(.acknowledge(messageIDs: ["1:2:0", "with\\nnewline", ""])),
        ])
    func repartitionRoundTrip(input: DeviceInput) throws {
        let codec = RepartitionCodec(topic: "repartition")
        let time: Int64 = {
            if case .send(let message) = input { return message.sentAt }
            return 1_700_000_000_123
        }()
        let routed = RoutedInput(token: "device token", input: input, time: time)
        let record = written { codec.record(routed, source: "send:3:9", partition: 1, to: &$0) }
        #expect(record.key == Array("device token".utf8) && record.timestamp == time && record.partition == 1)
        #expect(record.value != nil, "an empty value, never a null one")
        guard case .device(let read, let source) = try codec.carried(by: consumed(record, topic: "repartition")) else {
            Issue.record("not a device input")
            return
        }
        #expect(read == routed && source == "send:3:9")
    }

    @Test(
        "devices joining or leaving a topic survive the repartition topic, to their partition or to the topic's",
        arguments: [
            (MembershipChange(topic: "news", tokens: ["a"], action: .subscribe, time: 5), false),
            (
                MembershipChange(
                    topic: "a-b_c.d~e%f", tokens: ["a", "b c", "\u{301}d"], action: .unsubscribe, time: 6), false
            ),
            (MembershipChange(topic: "news", tokens: ["a", "b"], action: .subscribe, time: 7), true),
            (MembershipChange(topic: "news", tokens: ["a"], action: .unsubscribe, time: 8), true),
            (MembershipChange(topic: "news", tokens: ["a"], action: .unsubscribe, time: 9, isForgetting: true), true),
        ])
    func membershipRoundTrip(change: MembershipChange, toTopic: Bool) throws {
        let codec = RepartitionCodec(topic: "repartition")
        let record = written { codec.record(change, toTopic: toTopic, partition: 2, to: &$0) }
        switch try codec.carried(by: consumed(record, topic: "repartition")) {
        case .subscription(let read) where !toTopic: #expect(read == change)
        case .membership(let read) where toTopic: #expect(read == change)
        default: Issue.record("carried as something else")
        }
    }

    @Test("a subscription record of one device, as an older bridge wrote it (no value), names it by its key")
    func singleDeviceSubscription() throws {
        let record = InMemoryRecord(
            topic: "r", key: ByteBuffer(string: "tok"), value: ByteBuffer(), createTime: 7,
            headers: ["kind": "subscribe", "topic": "news"])
        guard case .subscription(let change) = try RepartitionCodec(topic: "r").carried(by: record) else {
            Issue.record("not a subscription")
            return
        }
        #expect(change == MembershipChange(topic: "news", tokens: ["tok"], action: .subscribe, time: 7))
    }

    @Test("a change's parts hold every token once, in order, each part within its bytes")
    func membershipParts() {
        let tokens = (0..<50).map { String(repeating: "x", count: $0 * 7 % 90 + 1) }
        let change = MembershipChange(topic: "news", tokens: tokens, action: .subscribe, time: 1)
        for maxBytes in [1, 50, 91, 300, 10_000] {
            let parts = change.parts(maxBytes: maxBytes)
            #expect(parts.flatMap(\.tokens) == tokens)
            #expect(
                parts.allSatisfy { $0.tokens.count == 1 || $0.tokens.reduce(0) { $0 + $1.utf8.count + 1 } <= maxBytes })
        }
    }

    @Test("a message an older bridge stored as its whole inbox record comes back with its apns object")
    func wholeInboxRecords() throws {
        let apns = #"{"headers":{"apns-priority":"5"},"payload":{"aps":{}}}"#
        let whole = ByteBuffer(
            string: #"{"apns":\#(apns),"kind":"message","message_id":"1:2:0","sent_at":7,"token":"t"}"#)
        let changelog = InMemoryRecord(topic: "c", key: ByteBuffer(string: "m 1:2:0 t"), value: whole, createTime: 7)
        guard case .device(_, .enqueued(let restored)) = try ChangelogCodec(topic: "c").decode(changelog) else {
            Issue.record("not a waiting message")
            return
        }
        #expect(restored.withAPNs { Array($0) } == Array(apns.utf8))
        let repartition = InMemoryRecord(
            topic: "r", key: ByteBuffer(string: "t"), value: whole, createTime: 7,
            headers: ["kind": "message", "message-id": "1:2:0"])
        guard case .device(let routed, _) = try RepartitionCodec(topic: "r").carried(by: repartition),
            case .send(let forwarded) = routed.input
        else {
            Issue.record("not a message")
            return
        }
        #expect(forwarded.withAPNs { Array($0) } == Array(apns.utf8))
    }

    @Test(
        "a changelog key names the device whose queue it changes, and a waiting message's its id; no device for topic state"
    )
    func deviceRowOfKey() {
        let codec = ChangelogCodec(topic: "changelog")
        let token = "tok en:é"
        let deviceChanges: [(StateChange, String?)] = [
            (.device(DeviceStatus(isOnline: true, lastActivity: 1, pendingNotice: nil)), nil), (.forgotten, nil),
            (.enqueued(Self.message), Self.message.id), (.dequeued(messageID: "1:2:0"), "1:2:0"),
            (.awaitingAcknowledgement(messageID: "x"), nil), (.acknowledgementSettled(messageID: "x"), nil),
        ]
        let row = { (key: [UInt8]) in key.withUnsafeBytes(ChangelogCodec.deviceRow(ofKey:)) }
        for (change, messageID) in deviceChanges {
            let record = written { codec.record(change, token: token, partition: 0, to: &$0) }
            let named = record.key.flatMap(row)
            #expect(named?.token == token && named?.messageID == messageID, "\(change)")
        }
        let topicChanges: [TopicChange] = [
            .member(topic: "news", token: token, isMember: true),
            .deviceTopic(token: token, topic: "news", isSubscribed: true), .conditionCopies(token: token, nil),
            .walk(FanOutWalk.Key(sendID: "s", topicIndex: 0), nil), .tally(sendID: "s", nil),
        ]
        for change in topicChanges {
            let record = written { codec.record(change, partition: 0, to: &$0) }
            #expect(record.key.flatMap(row) == nil)
        }
        let malformed = ["", "d", "d ", "dx", "m 1:2:0", "z tok", "\u{0} tok"]
        for key in malformed {
            #expect(row(Array(key.utf8)) == nil, "\(key)")
        }
        #expect(row(Array("m 1:2:0 ".utf8)).map { [$0.token, $0.messageID] } == ["", "1:2:0"])
    }
}
