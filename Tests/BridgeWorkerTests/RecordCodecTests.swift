@_spi(Benchmarks) @testable import BridgeWorker
import DeviceQueues
import Kafka
import NIOCore
import Testing

/// What a consumer would read back of a produced record.
func consumed(_ record: ProducerRecord, offset: Int64 = 7) -> ConsumerRecord {
    let partition: Int32 = if case .explicit(let number) = record.partition { number } else { 0 }
    return ConsumerRecord(
        topicPartition: TopicPartition(record.topic, partition), offset: offset,
        key: record.key.map { ByteBuffer(bytes: $0) }, value: record.value.map { ByteBuffer(bytes: $0) },
        headers: record.headers, timestamp: record.timestamp.map { KafkaTimestamp(milliseconds: $0, kind: .createTime) }
    )
}

@Suite("Internal record formats")
struct RecordCodecTests {
    static let message = QueuedMessage(id: "1:2:0", collapseKey: "score", sentAt: 1_700_000_000_000, expiresAt: 1_700_000_060_000, inboxRecord: Array(#"{"kind":"message"}"#.utf8))
    static let plain = QueuedMessage(id: "1:3:0", collapseKey: nil, sentAt: 1_700_000_000_001, expiresAt: nil, inboxRecord: [])

    @Test("every state change survives the changelog, whatever the token", arguments: [
        StateChange.device(DeviceStatus(isOnline: true, lastActivity: 1_700_000_000_000, pendingNotice: nil)),
        .device(DeviceStatus(isOnline: false, lastActivity: 5, pendingNotice: DeletionNotice(reason: .deviceInactive, count: 101))),
        .enqueued(message), .enqueued(plain),
        .dequeued(messageID: "1:2:0"), .awaitingAcknowledgement(messageID: "1:2:0"), .acknowledgementSettled(messageID: "1:2:0"),
    ], ["token", "a token with spaces", "ü", "\u{301}starts with a combining mark", "e\u{301}"])
    func changelogRoundTrip(change: StateChange, token: String) throws {
        let codec = ChangelogCodec(topic: "changelog")
        let record = codec.record(change, token: token, partition: 3)
        #expect(record.partition == .explicit(3))
        let decoded = try codec.change(of: consumed(record))
        #expect(Array(decoded.token.utf8) == Array(token.utf8), "tokens are compared as bytes")
        #expect(decoded.change == change)
    }

    @Test("removals are tombstones of the key that added, so compaction keeps only live state")
    func tombstones() {
        let codec = ChangelogCodec(topic: "changelog")
        let added = codec.record(.enqueued(Self.message), token: "t", partition: 0)
        let removed = codec.record(.dequeued(messageID: Self.message.id), token: "t", partition: 0)
        #expect(removed.key == added.key && removed.value == nil)
        let awaiting = codec.record(.awaitingAcknowledgement(messageID: "x"), token: "t", partition: 0)
        let settled = codec.record(.acknowledgementSettled(messageID: "x"), token: "t", partition: 0)
        #expect(settled.key == awaiting.key && settled.value == nil && awaiting.value != nil)
    }

    @Test("an unreadable changelog record is an error, not a crash", arguments: [
        (nil, nil), ("d t", "{}"), ("m 1:2:0", "x"), ("z 1 t", "x"), ("d t", "not json"),
    ] as [(String?, String?)])
    func malformedChangelog(key: String?, value: String?) {
        let record = ConsumerRecord(topicPartition: TopicPartition("c", 0), offset: 0,
                                    key: key.map { ByteBuffer(string: $0) }, value: value.map { ByteBuffer(string: $0) })
        #expect(throws: MalformedRecord.self) { try ChangelogCodec(topic: "c").change(of: record) }
    }

    @Test("every device input survives the repartition topic, with its event time", arguments: [
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
        let record = codec.record(routed, partition: 1)
        #expect(record.key == Array("device token".utf8) && record.timestamp == time)
        #expect(try codec.input(of: consumed(record)) == routed)
    }
}
