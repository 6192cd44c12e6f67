import DeviceQueues
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// The restore reads the changelog records the worker writes, headers included, from a real
/// broker (the one named by `KAFKA_BOOTSTRAP_SERVERS`).
@Suite("Restoring the changelog", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreChangelogTests {
    @Test(
        "a waiting message comes back with its id, send time, collapse key and expiry; a removed one and a forgotten device do not"
    )
    func waitingMessagesComeBack() async throws {
        let (changelog, repartition) = try await Self.createTopics()
        let kept = QueuedMessage(
            id: "0:1:0", collapseKey: "score", sentAt: 1_700_000_000_000, expiresAt: 1_700_000_600_000,
            apns: Array(#"{"a":1}"#.utf8))
        let plain = QueuedMessage(
            id: "0:2:0", collapseKey: nil, sentAt: 1_700_000_000_001, expiresAt: nil, apns: Array(#"{"b":2}"#.utf8))
        let removed = QueuedMessage(id: "0:3:0", collapseKey: "x", sentAt: 1_700_000_000_002, expiresAt: nil, apns: [])
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        for (change, token) in [
            (StateChange.device(offline), "device"), (.enqueued(kept), "device"), (.enqueued(plain), "device"),
            (.enqueued(removed), "device"), (.dequeued(messageID: removed.id), "device"),
            (.device(offline), "forgotten"), (.enqueued(plain), "forgotten"), (.forgotten, "forgotten"),
        ] {
            codec.record(change, token: token, partition: 0, to: &outputs)
        }
        try await Self.produce(outputs.copies, to: changelog)

        var states = DeviceStates()
        try await TestBroker.restorer(changelog: changelog, repartition: repartition).restore(
            [0], committed: CommittedInputs([:]), into: &states)

        #expect(states.deviceCount == 1, "the forgotten device is gone")
        let connected = states.handle(
            RoutedInput(token: "device", input: .presence(.connect), time: 1_700_000_000_100), in: 0,
            rules: QueueRules())
        let delivered = connected.inbox.compactMap { entry -> QueuedMessage? in
            if case .message(let message) = entry { message } else { nil }
        }
        #expect(delivered.map(\.id) == ["0:1:0", "0:2:0"])
        #expect(delivered.map(\.collapseKey) == ["score", nil])
        #expect(delivered.map(\.sentAt) == [1_700_000_000_000, 1_700_000_000_001])
        #expect(delivered.first?.expiresAt == 1_700_000_600_000)
        #expect(delivered.map { $0.withAPNs { Array($0) } } == [Array(#"{"a":1}"#.utf8), Array(#"{"b":2}"#.utf8)])
    }

    @Test("the changes of inputs past the group's committed offsets are dropped, read with their headers")
    func uncommittedInputsDropped() async throws {
        let (changelog, repartition) = try await Self.createTopics()
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        // Offset 6 of the send topic and 2 of the presence topic are past what the group committed.
        for (input, id) in [(ChangelogInput.Topic.send, 5), (.send, 6), (.presence, 1), (.presence, 2)] {
            outputs.input = ChangelogInput(input, partition: 0, offset: Int64(id))
            codec.record(.device(offline), token: "device", partition: 0, to: &outputs)
            let message = QueuedMessage(
                id: "0:\(id):0", collapseKey: nil, sentAt: 1_700_000_000_000, expiresAt: nil, apns: [])
            codec.record(.enqueued(message), token: "device", partition: 0, to: &outputs)
        }
        try await Self.produce(outputs.copies, to: changelog)

        var states = DeviceStates()
        try await TestBroker.restorer(changelog: changelog, repartition: repartition).restore(
            [0],
            committed: CommittedInputs([.init(.send, partition: 0): 6, .init(.presence, partition: 0): 2]),
            into: &states)

        let connected = states.handle(
            RoutedInput(token: "device", input: .presence(.connect), time: 1_700_000_000_100), in: 0,
            rules: QueueRules())
        let delivered = connected.inbox.compactMap { entry -> String? in
            if case .message(let message) = entry { message.id } else { nil }
        }
        #expect(delivered == ["0:5:0", "0:1:0"])
    }

    @Test("a record of a kind this version does not know stops the restore, naming it, instead of being skipped")
    func unknownKindStops() async throws {
        let (changelog, repartition) = try await Self.createTopics()
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        codec.record(.device(offline), token: "device", partition: 0, to: &outputs)
        var copies = outputs.copies
        // What a newer version might write: a kind of its own, then a change this one knows.
        copies.insert(
            OutputRecords.Copy(
                topic: .changelog, partition: 0, key: Array("x device".utf8), value: Array("{}".utf8), headers: [],
                timestamp: nil),
            at: 0)
        try await Self.produce(copies, to: changelog)

        var states = DeviceStates()
        let error = await #expect(throws: UnknownRecordKind.self) {
            try await TestBroker.restorer(changelog: changelog, repartition: repartition).restore(
                [0], committed: CommittedInputs([:]), into: &states)
        }
        #expect(error?.description.contains("\(changelog)[0]@0") == true, "\(String(describing: error))")
        #expect(error?.description.contains("newer fcm-bridge") == true)
    }

    /// A changelog and a repartition topic of their own, one partition each.
    static func createTopics() async throws -> (changelog: String, repartition: String) {
        let id = UUID().uuidString.prefix(8)
        let topics = (changelog: "restore-changelog.\(id)", repartition: "restore-repartition.\(id)")
        try await TestBroker.createTopics([
            NewTopic(name: topics.changelog, partitions: 1), NewTopic(name: topics.repartition, partitions: 1),
        ])
        return topics
    }

    /// Produces `copies` to `changelog`, each to its partition (0 where it names none), headers
    /// included.
    static func produce(_ copies: [OutputRecords.Copy], to changelog: String) async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: TestBroker.kafka()), logger: TestBroker.logger)
        try
            (try await producer.send(
                copies.map { copy in
                    ProducerRecord(
                        topic: changelog, partition: .explicit(copy.partition ?? 0),
                        key: copy.key.map { ByteBuffer(bytes: $0) },
                        value: copy.value.map { ByteBuffer(bytes: $0) },
                        headers: copy.headers.map { KafkaHeader(key: $0.name, value: ByteBuffer(bytes: $0.value)) },
                        timestamp: copy.timestamp)
                })).throwFirstError()
        try await producer.close()
    }
}
