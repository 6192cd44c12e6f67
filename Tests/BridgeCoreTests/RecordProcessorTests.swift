import BridgeConfig
import FCMTranslation
import Logging
import NIOCore
import Testing

@testable import BridgeCore

/// Routing decisions and the records each input makes, with no Kafka: a record is handled where
/// it lands only when its topic is partitioned like the state, it sits on its device's state
/// partition, and this worker holds that partition; else it is forwarded there.
@Suite("Record processing and routing")
struct RecordProcessorTests {
    static let statePartitions: Int32 = 4
    static let configuration: BridgeConfiguration = {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.app"
        return configuration
    }()
    static let time: Int64 = 1_700_000_000_000

    let topics = Self.configuration.topics
    let token = "device-a"
    var owner: Int32 { Murmur2Partitioner.partition(of: token.utf8, partitions: Self.statePartitions) }

    func processor(colocated: Bool = true) -> RecordProcessor {
        processor(colocatedTopics: colocated ? [topics.send, topics.presence] : [])
    }

    func processor(colocatedTopics: Set<String>) -> RecordProcessor {
        RecordProcessor(
            configuration: Self.configuration, statePartitions: Self.statePartitions, colocatedTopics: colocatedTopics,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    /// States holding every partition but `except`.
    func heldStates(except: Int32? = nil) -> DeviceStates {
        var states = DeviceStates()
        for partition in 0..<Self.statePartitions where partition != except { states.adopt(partition) }
        return states
    }

    func send(_ json: String, partition: Int32, offset: Int64 = 3) -> InMemoryRecord {
        InMemoryRecord(
            topic: topics.send, partition: partition, offset: offset, key: ByteBuffer(string: token),
            value: ByteBuffer(string: json), createTime: Self.time)
    }

    func presence(_ event: String, partition: Int32) -> InMemoryRecord {
        InMemoryRecord(
            topic: topics.presence, partition: partition, offset: 1, key: ByteBuffer(string: token),
            value: ByteBuffer(string: #"{"token":"\#(token)","event":"\#(event)"}"#), createTime: Self.time - 1)
    }

    func process(_ records: [InMemoryRecord], with processor: RecordProcessor, states: inout DeviceStates)
        -> [OutputRecords.Copy]
    {
        var outputs = OutputRecords()
        for record in records { processor.process(known: record, states: &states, outputs: &outputs) }
        return outputs.copies
    }

    @Test("a send on its device's own partition, held here, is queued in place")
    func handledInPlace() throws {
        var states = heldStates()
        let outputs = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)], with: processor(), states: &states)
        #expect(outputs.map(\.topic) == [.changelog, .changelog, .status], "device created, message enqueued, queued")
        #expect(outputs.filter { $0.topic == .changelog }.allSatisfy { $0.partition == owner })
        let status = try JSONParser.parse(try #require(outputs[2].value))
        #expect(status["type"] == .string("queued") && status["message_id"] == .string("\(owner):3:0"))
        #expect(outputs[2].key == Array(token.utf8) && outputs[2].timestamp == Self.time)
    }

    @Test(
        "a send is forwarded to the owning partition, with nothing else, unless all three hold",
        arguments: [
            (false, true, true),  // its topic is not partitioned like the state
            (true, false, true),  // it sits on another partition than its device's
            (true, true, false),  // this worker does not hold its device's partition
        ])
    func forwarded(colocated: Bool, onOwner: Bool, ownerHeld: Bool) throws {
        let partition = onOwner ? owner : (owner + 1) % Self.statePartitions
        var states = heldStates(except: ownerHeld ? nil : owner)
        let outputs = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: partition)], with: processor(colocated: colocated),
            states: &states)
        #expect(outputs.count == 1)
        let forwarded = try #require(outputs.first)
        #expect(forwarded.topic == .repartition && forwarded.partition == owner && forwarded.key == Array(token.utf8))
        #expect(
            forwarded.header("kind") == Array("message".utf8)
                && forwarded.header("message-id") == Array("\(partition):3:0".utf8))
        #expect(forwarded.timestamp == Self.time)
    }

    @Test("each input topic is handled in place only when it is partitioned like the state", arguments: [true, false])
    func colocationPerTopic(sendColocated: Bool) {
        let processor = processor(colocatedTopics: sendColocated ? [topics.send] : [topics.presence])
        // Fresh states for each: a forwarded input would hold back the device's next one.
        var states = heldStates()
        let sendOutputs = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)], with: processor, states: &states)
        states = heldStates()
        let presenceOutputs = process([presence("connect", partition: owner)], with: processor, states: &states)
        // In place: the device is created, then the message queued or the device connected.
        #expect(sendOutputs.map(\.topic) == (sendColocated ? [.changelog, .changelog, .status] : [.repartition]))
        #expect(presenceOutputs.map(\.topic) == (sendColocated ? [.repartition] : [.changelog, .changelog]))
    }

    @Test("a forwarded input is handled in the partition it arrives on")
    func repartitionedInput() throws {
        var states = heldStates()
        let processor = processor(colocated: false)
        let forwarded = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)], with: processor, states: &states)
        let arrived = consumed(try #require(forwarded.first), topic: Self.configuration.repartitionTopic)
        let outputs = process([arrived], with: processor, states: &states)
        #expect(outputs.map(\.topic) == [.changelog, .changelog, .status])
    }

    @Test("a forwarded input for a partition not held here is forwarded again, not dropped")
    func repartitionedNotHeld() throws {
        var states = heldStates()
        let forwarded = process(
            [send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)], with: processor(colocated: false),
            states: &states)
        var elsewhere = heldStates(except: owner)
        let outputs = process(
            [consumed(try #require(forwarded.first), topic: Self.configuration.repartitionTopic)], with: processor(),
            states: &elsewhere)
        #expect(outputs.map(\.topic) == [.repartition] && outputs.first?.partition == owner)
    }

    @Test("an online device gets an inbox record keyed by its token, partitioned by key")
    func dispatchedOnline() throws {
        var states = heldStates()
        let outputs = process(
            [presence("connect", partition: owner), send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)],
            with: processor(), states: &states)
        let inbox = try #require(outputs.first { $0.topic == .inbox })
        #expect(inbox.key == Array(token.utf8) && inbox.partition == nil && inbox.timestamp == Self.time)
        #expect(
            inbox.header("kind") == Array("message".utf8) && inbox.header("message-id") == Array("\(owner):3:0".utf8))
        let value = try JSONParser.parse(try #require(inbox.value))
        #expect(value["token"] == .string(token) && value["kind"] == .string("message"))
        let statuses = outputs.filter { $0.topic == .status }.compactMap { try? JSONParser.parse($0.value ?? []) }
        #expect(statuses.map { $0["type"] } == [.string("dispatched")])
    }

    @Test("an undecodable send gets a rejection with a null key and a dead letter naming its source")
    func deadLetter() throws {
        var states = heldStates()
        let outputs = process([send("not json", partition: 2, offset: 41)], with: processor(), states: &states)
        #expect(outputs.map(\.topic) == [.status, .deadLetters])
        #expect(outputs[0].key == nil)
        let letter = outputs[1]
        #expect(
            letter.value == Array("not json".utf8) && letter.key == Array(token.utf8) && letter.timestamp == Self.time)
        #expect(
            letter.header("source-topic") == Array(topics.send.utf8)
                && letter.header("source-partition") == Array("2".utf8))
        #expect(letter.header("source-offset") == Array("41".utf8) && letter.header("error") != nil)
    }

    @Test(
        "a forwarded record of a kind a newer version could write stops the worker, named; a corrupt or missing kind is a dead letter",
        arguments: [
            ("fanout-merge", true), ("v2", true), ("Message", false), ("", false), ("fan out", false),
            (String(repeating: "x", count: 33), false), (nil, false),
        ] as [(String?, Bool)])
    func unknownForwardKind(kind: String?, refused: Bool) {
        let record = InMemoryRecord(
            topic: Self.configuration.repartitionTopic, partition: owner, offset: 9, key: ByteBuffer(string: token),
            value: ByteBuffer(string: "{}"), createTime: Self.time, headers: kind.map { ["kind": $0] } ?? [:])
        var states = heldStates()
        var outputs = OutputRecords()
        let processor = processor()
        if refused {
            let error = #expect(throws: UnknownRecordKind.self) {
                try processor.process(record, states: &states, outputs: &outputs)
            }
            #expect(error?.description.contains("[\(owner)]@9 is of a kind this version does not know") == true)
            #expect(error?.description.contains("newer fcm-bridge") == true)
        } else {
            #expect(throws: Never.self) { try processor.process(record, states: &states, outputs: &outputs) }
            #expect(outputs.copies.map(\.topic) == [.deadLetters])
        }
    }

    @Test("each token of a multicast is routed on its own")
    func multicast() throws {
        let tokens = (0..<8).map { "device-\($0)" }
        let owners = Set(tokens.map { Murmur2Partitioner.partition(of: $0.utf8, partitions: Self.statePartitions) })
        #expect(owners.count > 1, "the tokens spread over partitions")
        var states = heldStates()
        let ids = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        let outputs = process(
            [send(#"{"registration_ids":[\#(ids)],"data":{"k":"v"}}"#, partition: 0)], with: processor(),
            states: &states)
        let forwarded = outputs.filter { $0.topic == .repartition }
        let handledHere = tokens.filter {
            Murmur2Partitioner.partition(of: $0.utf8, partitions: Self.statePartitions) == 0
        }
        #expect(forwarded.count == tokens.count - handledHere.count)
        for record in forwarded {
            let key = String(decoding: try #require(record.key), as: UTF8.self)
            #expect(record.partition == Murmur2Partitioner.partition(of: key.utf8, partitions: Self.statePartitions))
        }
        #expect(outputs.filter { $0.topic == .status }.count == handledHere.count, "queued for those handled here")
    }
}

extension RecordProcessorTests {
    @Test(
        "a record without a usable event time is rejected, naming the timestamp; one at the end of time is queued",
        arguments: [
            (nil as Int64?, true), (-1, true), (Int64.min, true), (0, false), (Int64.max - 1, false),
        ])
    func eventTime(time: Int64?, rejected: Bool) throws {
        var states = heldStates()
        var record = send(#"{"to":"device-a","data":{"k":"v"}}"#, partition: owner)
        record.createTime = time
        var presence = presence("connect", partition: owner)
        presence.createTime = time
        let outputs = process([record, presence], with: processor(), states: &states)
        let statuses = try outputs.filter { $0.topic == .status }.map { try JSONParser.parse(try #require($0.value)) }
        if rejected {
            #expect(outputs.map(\.topic) == [.status, .status], "nothing queued, nothing forwarded")
            for status in statuses {
                #expect(status["type"] == .string("rejected") && status["reason"] == .string("invalid_argument"))
                #expect(
                    status["detail"]?.stringValue?.contains("timestamp") == true && status["token"] == .string(token))
            }
        } else {
            #expect(statuses.map { $0["type"] } == [.string("queued"), .string("dispatched")])
        }
    }
}
