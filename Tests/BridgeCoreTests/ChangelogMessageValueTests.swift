import DeviceQueues
import NIOCore
import PropertyBased
import Testing

@testable import BridgeCore

@Suite("A waiting message's changelog value")
struct ChangelogMessageValueTests {
    /// Collapse keys of any text, those JSON must escape and those that look like the format included.
    static let collapseKeys = Gen.element(of: [
        "score", "", "null", #"a"b"#, #"back\slash"#, "new\nline", "\u{1}", "ü✓", #"","kind":"message","#, #"null}"#,
    ]).array(of: 1...3).map { (pieces: [String?]) -> String in pieces.compactMap { $0 }.joined() }.optional
    static let expiries = Gen.element(of: [Int64.min, -1, 0, 1, 1_700_000_060_000, Int64.max, nil] as [Int64?])
        .map { (expiry: Int64??) -> Int64? in expiry ?? nil }
    /// `apns` objects whose payloads hold the value's own marks.
    static let apnsObjects = Gen.element(of: [
        #","kind":"message","#, #"{"apns":"#, #""expires_at":"#, #"\""#, "x", "}",
    ])
    .array(of: 0...8).map { (pieces: [String?]) -> [UInt8] in
        Array((#"{"headers":{},"payload":"# + pieces.compactMap { $0 }.joined() + "}").utf8)
    }

    /// The record `message` makes in the changelog.
    static func record(_ message: QueuedMessage) -> OutputRecords.Copy {
        written { ChangelogCodec(topic: "c").record(.enqueued(message), token: "device token", partition: 2, to: &$0) }
    }

    /// What the codec reads of `record`, given no headers, and the headers it asked for.
    static func read(_ record: OutputRecords.Copy) throws -> (QueuedMessage?, asked: [String]) {
        var asked: [String] = []
        let key = record.key ?? []
        let value = record.value ?? []
        let change = try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                try ChangelogCodec(topic: "c").decode(
                    ChangelogRecordView(
                        topic: "c", partition: 2, offset: 9, key: key, value: value, createTime: record.timestamp),
                    header: { name in
                        asked.append(name)
                        return nil
                    }
                )
            }
        }
        guard case .device(_, .enqueued(let message)) = change else { return (nil, asked) }
        return (message, asked)
    }

    @Test("any message comes back from its value alone: its headers are not read")
    func fromValue() async {
        await propertyCheck(count: 300, input: Self.collapseKeys, Self.expiries, Self.apnsObjects) {
            collapseKey, expiresAt, apns in
            let message = QueuedMessage(
                id: "1:2:0", collapseKey: collapseKey, sentAt: 1_700_000_000_000, expiresAt: expiresAt, apns: apns)
            let (read, asked) = try Self.read(Self.record(message))
            #expect(asked.isEmpty)
            #expect(
                read?.collapseKey == collapseKey && read?.expiresAt == expiresAt && read?.sentAt == message.sentAt
                    && read?.id == "1:2:0")
            #expect(read?.withAPNs { Array($0) } == apns)
        }
    }

    /// How a worker of 0.10 (f188c0a) read a waiting message's value: the `apns` object, from a
    /// value that is a whole inbox record.
    static func apnsRangeOf010(_ value: UnsafeRawBufferPointer) -> Range<Int> {
        let start = #"{"apns":"#.utf8
        let mark = #","kind":"message","#.utf8
        guard value.starts(with: start), value.count >= start.count + mark.count else { return 0..<value.count }
        for end in stride(from: value.count - mark.count, through: start.count, by: -1)
        where value[end..<(end + mark.count)].elementsEqual(mark) {
            return start.count..<end
        }
        return 0..<value.count
    }

    @Test("a worker of 0.10 reads any message's record right, from its apns object and headers")
    func readBy010() async {
        await propertyCheck(count: 300, input: Self.collapseKeys, Self.expiries, Self.apnsObjects) {
            collapseKey, expiresAt, apns in
            let message = QueuedMessage(
                id: "1:2:0", collapseKey: collapseKey, sentAt: 1_700_000_000_000, expiresAt: expiresAt, apns: apns)
            let record = Self.record(message)
            let value = record.value ?? []
            #expect(value.withUnsafeBytes { Array($0[Self.apnsRangeOf010($0)]) } == apns)
            #expect(record.header("collapse-key").map { String(decoding: $0, as: UTF8.self) } == collapseKey)
            #expect(record.header("expires-at").flatMap { Int64(String(decoding: $0, as: UTF8.self)) } == expiresAt)
        }
    }

    @Test(
        "a value that does not carry both fields has them read from headers",
        arguments: [
            // 0.10's value: the apns object alone.
            #"{"headers":{}}"#,
            // Older: the whole inbox record.
            #"{"apns":{},"kind":"message","message_id":"1:2:0","sent_at":5,"token":"t"}"#,
            // Not quite the format.
            #"{"apns":{},"kind":"message","expires_at":5}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":null"#,
            #"{"apns":{},"kind":"message","expires_at":,"collapse_key":null}"#,
            #"{"apns":{},"kind":"message","expires_at":5x,"collapse_key":null}"#,
            #"{"apns":{},"kind":"message","expires_at":9223372036854775808,"collapse_key":null}"#,
            #"{"apns":{},"kind":"message","expires_at":nul,"collapse_key":null}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":5}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":"a"b"}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":"}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":nulls}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":"\x"}"#,
            #"{"apns":{},"kind":"message","expires_at":5,"collapse_key":"a","x":1}"#,
            #"{"apns":{},"kind":"message","collapse_key":"a","expires_at":5}"#,
        ])
    func fromHeaders(value: String) throws {
        let record = InMemoryRecord(
            topic: "c", key: ByteBuffer(string: "m 1:2:0 t"), value: ByteBuffer(string: value), createTime: 7,
            headers: ["expires-at": "42", "collapse-key": "from headers"])
        guard case .device(_, .enqueued(let message)) = try ChangelogCodec(topic: "c").decode(record) else {
            Issue.record("not a waiting message")
            return
        }
        #expect(message.expiresAt == 42 && message.collapseKey == "from headers")
    }

    @Test(
        "a value that carries both fields wins over headers",
        arguments: [
            (#"{"apns":{},"kind":"message","expires_at":null,"collapse_key":null}"#, nil, nil),
            (#"{"apns":{},"kind":"message","expires_at":-5,"collapse_key":"a\"b\u00fc"}"#, -5, #"a"bü"#),
            (#"{"apns":{"kind":"message"},"kind":"message","expires_at":5,"collapse_key":""}"#, 5, ""),
        ] as [(String, Int64?, String?)])
    func valueWins(value: String, expiresAt: Int64?, collapseKey: String?) throws {
        let record = InMemoryRecord(
            topic: "c", key: ByteBuffer(string: "m 1:2:0 t"), value: ByteBuffer(string: value), createTime: 7,
            headers: ["expires-at": "42", "collapse-key": "from headers"])
        guard case .device(_, .enqueued(let message)) = try ChangelogCodec(topic: "c").decode(record) else {
            Issue.record("not a waiting message")
            return
        }
        #expect(message.expiresAt == expiresAt && message.collapseKey == collapseKey)
    }
}
