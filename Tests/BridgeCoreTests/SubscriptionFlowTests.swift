import BridgeConfig
import DeviceQueues
import FCMTranslation
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore

/// Subscriptions through the processor, with no Kafka: a worker holding every state partition,
/// each repartition record fed back to it until none is left, as the repartition topic would.
@Suite("Subscriptions through the processor")
struct SubscriptionFlowTests {
    static let time: Int64 = 1_700_000_000_000
    static let partitions: Int32 = 4

    /// A worker of every partition, and everything it wrote.
    struct Worker {
        var processor: RecordProcessor
        var states = DeviceStates()
        var written: [OutputRecords.Copy] = []
        var offset: Int64 = 0
        /// The offsets a group would have committed: past every input processed.
        var committed: [CommittedInputs.Input: Int64] = [:]

        init(maxTopics: Int = 2000, limits: OutputLimits = .librdkafkaDefault, colocated: Bool = false) {
            var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
            configuration.queue.maxTopicsPerDevice = maxTopics
            processor = RecordProcessor(
                configuration: configuration, statePartitions: SubscriptionFlowTests.partitions,
                colocatedTopics: colocated ? [configuration.topics.send, configuration.topics.presence] : [],
                limits: limits, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            for partition in 0..<SubscriptionFlowTests.partitions { states.adopt(partition) }
        }

        /// Processes a subscription request, then what it forwards, to the end; returns what it wrote.
        @discardableResult
        mutating func subscriptionRequest(_ json: String, at time: Int64 = SubscriptionFlowTests.time)
            -> [OutputRecords.Copy]
        {
            feed(
                InMemoryRecord(
                    topic: processor.topics.subscriptions, partition: 0, offset: next(),
                    value: ByteBuffer(string: json),
                    createTime: time))
        }

        /// Processes a presence event for `token`, then what it forwards.
        @discardableResult
        mutating func presence(_ token: String, _ event: String, at time: Int64) -> [OutputRecords.Copy] {
            feed(
                InMemoryRecord(
                    topic: processor.topics.presence, partition: 0, offset: next(), key: ByteBuffer(string: token),
                    value: ByteBuffer(string: #"{"token":"\#(token)","event":"\#(event)"}"#), createTime: time))
        }

        /// Notes `input` processed, its offset committed (never backwards, as a group commits).
        mutating func processed(_ input: some InputRecord) {
            guard let topic = processor.stateInputs.first(where: { $0.name == input.topic })?.topic else { return }
            let key = CommittedInputs.Input(topic, partition: input.partition)
            committed[key] = max(committed[key] ?? 0, input.offset + 1)
        }

        /// The restore's rule at this point: the committed offsets of every input that feeds a
        /// state partition, its start where nothing of it was processed (the group has committed
        /// a batch there before).
        var committedInputs: CommittedInputs {
            CommittedInputs(
                Dictionary(
                    uniqueKeysWithValues: processor.stateInputs.flatMap { input in
                        (0..<SubscriptionFlowTests.partitions).map { partition in
                            let input = CommittedInputs.Input(input.topic, partition: partition)
                            return (input, committed[input] ?? 0)
                        }
                    }))
        }

        mutating func next() -> Int64 {
            offset += 1
            return offset
        }

        mutating func feed(_ first: InMemoryRecord) -> [OutputRecords.Copy] {
            var pending = [first]
            var all: [OutputRecords.Copy] = []
            while !pending.isEmpty {
                var outputs = OutputRecords()
                let input = pending.removeFirst()
                processor.process(known: input, states: &states, outputs: &outputs)
                processed(input)
                for copy in outputs.copies {
                    all.append(copy)
                    if copy.topic == .repartition {
                        pending.append(consumed(copy, topic: processor.repartition.topic, offset: next()))
                    }
                }
            }
            written += all
            return all
        }
    }

    static func statuses(_ outputs: [OutputRecords.Copy]) -> [(token: String?, json: JSONValue)] {
        outputs.filter { $0.topic == .status }.compactMap { copy in
            guard let value = copy.value, let json = try? JSONParser.parse(value) else { return nil }
            return (copy.key.map { String(decoding: $0, as: UTF8.self) }, json)
        }
    }

    static func subscribe(_ topic: String, _ tokens: [String], action: String = "subscribe") -> String {
        #"{"action":"\#(action)","topic":"\#(topic)","tokens":[\#(tokens.map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }

    @Test(
        "each token gets subscribed, keyed by it, with the topic; the device's and the topic's records land in their own partitions"
    )
    func subscribes() throws {
        var worker = Worker()
        let outputs = worker.subscriptionRequest(Self.subscribe("/topics/news", ["a", "b", "c"]))
        let statuses = Self.statuses(outputs)
        #expect(statuses.map(\.token) == ["a", "b", "c"])
        #expect(statuses.allSatisfy { $0.json["type"] == .string("subscribed") && $0.json["topic"] == .string("news") })
        #expect(statuses.allSatisfy { $0.json["at"] == .number("\(Self.time)") && $0.json["message_id"] == nil })
        let topicPartition = worker.processor.statePartition(ofTopic: "news")
        let changelog = outputs.filter { $0.topic == .changelog }
        for token in ["a", "b", "c"] {
            let devicePartition = worker.processor.statePartition(of: token)
            #expect(changelog.contains { $0.key == Array("s news \(token)".utf8) && $0.partition == devicePartition })
            #expect(changelog.contains { $0.key == Array("t news \(token)".utf8) && $0.partition == topicPartition })
        }
        #expect(worker.states.topics.members(in: topicPartition)["news"]?.count == 3)
    }

    @Test("a request processed again changes no state and says subscribed again")
    func idempotent() {
        var worker = Worker()
        worker.subscriptionRequest(Self.subscribe("news", ["a"]))
        let again = worker.subscriptionRequest(Self.subscribe("news", ["a"]))
        #expect(again.filter { $0.topic == .changelog }.isEmpty)
        #expect(Self.statuses(again).map { $0.json["type"] } == [.string("subscribed")])
    }

    @Test("one topic past max_topics_per_device is refused with too_many_topics for that device only")
    func tooManyTopics() {
        var worker = Worker(maxTopics: 2)
        worker.subscriptionRequest(Self.subscribe("t1", ["a"]))
        worker.subscriptionRequest(Self.subscribe("t2", ["a"]))
        let refused = Self.statuses(worker.subscriptionRequest(Self.subscribe("t3", ["a", "b"])))
        #expect(refused.count == 2)
        #expect(refused.first { $0.token == "a" }?.json["reason"] == .string("too_many_topics"))
        #expect(refused.first { $0.token == "b" }?.json["type"] == .string("subscribed"))
        worker.subscriptionRequest(Self.subscribe("t1", ["a"], action: "unsubscribe"))
        let after = Self.statuses(worker.subscriptionRequest(Self.subscribe("t3", ["a"])))
        #expect(after.map { $0.json["type"] } == [.string("subscribed")])
    }

    @Test("unsubscribing a device never seen says unsubscribed and makes no device")
    func unsubscribeUnknown() {
        var worker = Worker()
        let outputs = worker.subscriptionRequest(Self.subscribe("news", ["never"], action: "unsubscribe"))
        #expect(Self.statuses(outputs).map { $0.json["type"] } == [.string("unsubscribed")])
        #expect(outputs.filter { $0.topic == .changelog }.isEmpty)
        #expect(worker.states.deviceCount == 0)
    }

    @Test("bad tokens get their own rejected, with no key; the rest are subscribed; a dead letter is not written")
    func badTokens() {
        var worker = Worker()
        let outputs = worker.subscriptionRequest(
            #"{"action":"subscribe","topic":"news","tokens":["a",1,"b\"","c"]}"#)
        let statuses = Self.statuses(outputs)
        #expect(statuses.filter { $0.json["type"] == .string("subscribed") }.map(\.token) == ["a", "c"])
        let rejected = statuses.filter { $0.json["type"] == .string("rejected") }
        #expect(rejected.count == 2 && rejected.allSatisfy { $0.token == nil })
        #expect(!outputs.contains { $0.topic == .deadLetters })
    }

    @Test("an undecodable request is rejected with no key and dead-lettered")
    func undecodable() {
        var worker = Worker()
        let outputs = worker.subscriptionRequest("not json")
        #expect(Self.statuses(outputs).map { $0.json["reason"] } == [.string("invalid_argument")])
        #expect(outputs.contains { $0.topic == .deadLetters })
    }

    @Test("a forgotten device leaves its topics, its own set and the topics' members, with no status")
    func forgottenDeviceLeaves() {
        var worker = Worker()
        let partition = worker.processor.statePartition(of: "idle")
        let busy = (0...).lazy.map { "busy\($0)" }.first { worker.processor.statePartition(of: $0) == partition } ?? ""
        worker.subscriptionRequest(Self.subscribe("news", ["idle"]))
        worker.subscriptionRequest(Self.subscribe("sport", ["idle", busy]))
        // A month and a day later, inputs of the busy device (in the idle one's partition) run the sweep.
        let later = Self.time + 31 * day
        let before = worker.written.count
        for _ in 0..<3 { worker.presence(busy, "connect", at: later) }
        let sweep = Array(worker.written[before...])
        #expect(!sweep.contains { $0.topic == .status && $0.key == Array("idle".utf8) }, "forgetting said something")
        #expect(sweep.contains { $0.topic == .changelog && $0.key == Array("t news idle".utf8) && $0.value == nil })
        #expect(worker.states.topics.topics(of: "idle", in: partition).isEmpty)
        let sport = worker.processor.statePartition(ofTopic: "sport")
        #expect(worker.states.topics.members(in: sport)["sport"]?.contains("idle") == false)
        #expect(worker.states.topics.members(in: sport)["sport"]?.contains(busy) == true)
        #expect(
            worker.written.contains { $0.topic == .changelog && $0.key == Array("s news idle".utf8) && $0.value == nil }
        )
    }

    @Test("replaying the changelog gives the live topic state: members and each device's topics")
    func replayEqualsLive() throws {
        var worker = Worker(maxTopics: 3)
        let tokens = (0..<12).map { "d\($0)" }
        for (index, topic) in ["a", "b", "c", "d", "e"].enumerated() {
            worker.subscriptionRequest(Self.subscribe(topic, Array(tokens[index...])))
        }
        worker.subscriptionRequest(Self.subscribe("b", ["d3", "d4", "never"], action: "unsubscribe"))
        var replayed = DeviceStates()
        for partition in 0..<Self.partitions { replayed.adopt(partition) }
        let codec = worker.processor.changelog
        for copy in worker.written where copy.topic == .changelog {
            let record = consumed(copy, topic: codec.topic)
            if case .topic(let change) = try codec.decode(record) { replayed.apply(change, in: record.partition) }
        }
        for partition in 0..<Self.partitions {
            for topic in ["a", "b", "c", "d", "e"] {
                let live = worker.states.topics.members(in: partition)[topic]
                let restored = replayed.topics.members(in: partition)[topic]
                #expect(
                    Set(TopicMembersTests.walk(live ?? TopicMembers(), limit: 100).members)
                        == Set(TopicMembersTests.walk(restored ?? TopicMembers(), limit: 100).members))
            }
            for token in tokens {
                #expect(
                    replayed.topics.topics(of: token, in: partition)
                        == worker.states.topics.topics(of: token, in: partition))
            }
        }
        #expect(worker.states.topics.membershipCount == replayed.topics.membershipCount)
    }
}
