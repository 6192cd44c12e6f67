import BridgeConfig
import FCMTranslation
import Logging
import NIOCore
import Testing

@testable import BridgeCore

/// Every output fits what the producer accepts: dead letters are cut, oversized messages are
/// rejected, and a configuration whose own limits cannot fit is refused.
@Suite("Output limits")
struct OutputLimitsTests {
    static let limits = OutputLimits(maxRecordBytes: 40_000)
    let configuration: BridgeConfiguration = {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.app"
        return configuration
    }()

    func process(_ record: InMemoryRecord) -> [OutputRecords.Copy] {
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: 1, colocatedTopics: [configuration.topics.send],
            limits: Self.limits, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        var states = DeviceStates()
        states.adopt(0)
        var outputs = OutputRecords()
        processor.process(known: record, states: &states, outputs: &outputs)
        return outputs.copies
    }

    static func size(_ copy: OutputRecords.Copy) -> Int {
        (copy.key?.count ?? 0) + (copy.value?.count ?? 0)
            + copy.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.count }
    }

    @Test("an undecodable record too large for one output is cut, saying its original size and SHA-256")
    func deadLetterCut() throws {
        let value = "{" + String(repeating: "x", count: 99_999)
        let record = InMemoryRecord(
            topic: configuration.topics.send, key: ByteBuffer(string: "k"), value: ByteBuffer(string: value),
            createTime: 1)
        let letter = try #require(process(record).first { $0.topic == .deadLetters })
        #expect(Self.size(letter) <= Self.limits.maxRecordBytes)
        #expect(letter.key == Array("k".utf8))
        #expect(
            letter.value.map { Array(value.utf8.prefix($0.count)) == $0 } == true, "the value's beginning, unchanged")
        #expect(letter.value?.count == 35_903, "40,000 less 4,096 for headers and the 1-byte key")
        #expect(letter.header("truncated") == Array("value".utf8))
        #expect(letter.header("original-value-bytes") == Array("100000".utf8))
        #expect(
            letter.header("original-value-sha256")
                == Array("5020fd656e6098d30f67796d2a2d85aede957079ddea60662c623e4420031ff3".utf8))
        #expect(letter.header("original-key-bytes") == nil)
    }

    @Test("a dead letter that fits is the record unchanged, with no truncation headers")
    func deadLetterWhole() throws {
        let record = InMemoryRecord(
            topic: configuration.topics.send, key: ByteBuffer(string: "k"), value: ByteBuffer(string: "{nope"),
            createTime: 1)
        let letter = try #require(process(record).first { $0.topic == .deadLetters })
        #expect(letter.value == Array("{nope".utf8))
        #expect(letter.headers.map(\.name) == ["error", "source-topic", "source-partition", "source-offset"])
    }

    @Test(
        "how much of a key and value is kept",
        arguments: [
            // key, value, kept key, kept value (limit 40,000, of which 4,096 is kept for headers)
            (10, 1_000, 10, 1_000),
            (0, 35_904, 0, 35_904),
            (0, 35_905, 0, 35_904),
            (100_000, 0, 4_096, 0),
            (100_000, 100_000, 4_096, 31_808),
            (5_000, 31_000, 4_096, 31_000),
        ])
    func cut(key: Int, value: Int, keptKey: Int, keptValue: Int) {
        let cut = DeadLetterCut(key: key, value: value, limits: Self.limits)
        #expect(cut.keptKey == keptKey && cut.keptValue == keptValue)
        #expect(cut.cutsKey == (keptKey < key) && cut.cutsValue == (keptValue < value))
    }

    @Test("a message whose APNs headers make it too large for an output is rejected, naming them")
    func oversizedMessage() throws {
        let header = String(repeating: "h", count: 36_000)
        let request = #"{"message":{"token":"device-a","apns":{"headers":{"x-big":"\#(header)"}}}}"#
        let record = InMemoryRecord(
            topic: configuration.topics.send, key: ByteBuffer(string: "device-a"), value: ByteBuffer(string: request),
            createTime: 1)
        let outputs = process(record)
        #expect(outputs.map(\.topic) == [.status])
        let status = try #require(outputs.first?.value.map { String(decoding: $0, as: UTF8.self) })
        #expect(
            status.contains(#""reason":"invalid_argument""#)
                && status.contains("message.apns.headers: the message with its headers takes"), "\(status)")
        #expect(outputs.allSatisfy { Self.size($0) <= Self.limits.maxRecordBytes })
    }

    @Test(
        "a configuration whose outputs cannot fit is refused, naming the field",
        arguments: [
            (1_000_000, 4096, 100, nil),
            (1_000_000, 983_616, 100, nil),
            (1_000_000, 983_617, 100, "apns.payload_limit"),
            (80_000, 63_616, 100, nil),
            (80_000, 4096, 1_000, nil),
            (80_000, 4096, 2_000, "queue.max_pending"),
            (65_536, 4096, 100, nil),
            (65_535, 4096, 100, "kafka.producer_properties.message.max.bytes"),
        ] as [(Int, Int, Int, String?)])
    func configurationFits(maxRecordBytes: Int, payloadLimit: Int, maxPending: Int, field: String?) {
        var configuration = configuration
        configuration.payloadLimit = payloadLimit
        configuration.queue.maxPending = maxPending
        #expect(OutputLimits(maxRecordBytes: maxRecordBytes).problem(with: configuration)?.field == field)
    }

    @Test(
        "more state partitions than a fan-out's walk end can list are refused",
        arguments: [(2048, nil), (2049, "topics.partitions")] as [(Int32, String?)])
    func statePartitions(partitions: Int32, field: String?) {
        var configuration = configuration
        configuration.topics.partitions = partitions
        #expect(OutputLimits.librdkafkaDefault.problem(with: configuration)?.field == field)
    }

    @Test("the largest forwarded ack and a status about the longest token fit the smallest limit")
    func largestOutputsFit() throws {
        let limits = OutputLimits(maxRecordBytes: 65_536)
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: 2, colocatedTopics: [],
            limits: limits, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let token = String(repeating: "é", count: RequestDecoder.maximumTokenBytes / 2)
        let ids = (0..<1000).map { #""2147483647:9223372036854775807:\#($0)""# }.joined(separator: ",")
        let ack = #"{"token":"\#(token)","event":"ack","message_ids":[\#(ids)]}"#
        let record = InMemoryRecord(
            topic: configuration.topics.presence, key: ByteBuffer(string: token), value: ByteBuffer(string: ack),
            createTime: 1)
        var states = DeviceStates()
        var outputs = OutputRecords()
        processor.process(known: record, states: &states, outputs: &outputs)
        let copies = outputs.copies
        #expect(copies.map(\.topic) == [.repartition])
        #expect(copies.allSatisfy { Self.size($0) <= limits.maxRecordBytes }, "\(copies.map(Self.size))")
    }
}
