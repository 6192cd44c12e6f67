import BridgeConfig
import FCMTranslation
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore

/// Topic and condition sends through the processor, with no Kafka: one worker holding every
/// state partition, each repartition record fed back to it in the order written, as the
/// repartition topic would; and a crash at any input, after which the state is what the
/// changelog holds and the inputs not yet processed are processed.
@Suite("Fan-out through the processor")
struct FanOutFlowTests {
    typealias Flow = SubscriptionFlowTests
    static let time = Flow.time

    /// The processor's world: its state, the records waiting to be processed, and what it wrote.
    struct Network {
        var worker: Flow.Worker
        var pending: [InMemoryRecord] = []
        var written: [OutputRecords.Copy] = []
        var processed = 0

        init(
            subscriptions: [(topic: String, tokens: [String])], limits: OutputLimits = .librdkafkaDefault,
            colocated: Bool = false
        ) {
            worker = Flow.Worker(limits: limits, colocated: colocated)
            for (topic, tokens) in subscriptions {
                for start in stride(from: 0, to: tokens.count, by: 1000) {
                    worker.subscriptionRequest(
                        Flow.subscribe(topic, Array(tokens[start..<min(start + 1000, tokens.count)])))
                }
            }
        }

        mutating func send(_ json: String) {
            pending.append(
                InMemoryRecord(
                    topic: worker.processor.topics.send, partition: 0, offset: worker.next(),
                    value: ByteBuffer(string: json), createTime: FanOutFlowTests.time))
        }

        mutating func presence(_ token: String, _ event: String, at time: Int64) {
            pending.append(
                InMemoryRecord(
                    topic: worker.processor.topics.presence, partition: 0, offset: worker.next(),
                    key: ByteBuffer(string: token),
                    value: ByteBuffer(string: #"{"token":"\#(token)","event":"\#(event)"}"#), createTime: time))
        }

        /// Queues `token`'s ack of message `id`.
        mutating func acknowledge(_ id: String, by token: String, at time: Int64) {
            pending.append(
                InMemoryRecord(
                    topic: worker.processor.topics.presence, partition: 0, offset: worker.next(),
                    key: ByteBuffer(string: token),
                    value: ByteBuffer(string: #"{"token":"\#(token)","event":"ack","message_ids":["\#(id)"]}"#),
                    createTime: time))
        }

        /// Processes one waiting record; false when none waits.
        mutating func step() -> Bool {
            guard !pending.isEmpty else { return false }
            var outputs = OutputRecords()
            let input = pending.removeFirst()
            worker.processor.process(known: input, states: &worker.states, outputs: &outputs)
            worker.processed(input)
            processed += 1
            for copy in outputs.copies {
                written.append(copy)
                worker.written.append(copy)
                if copy.topic == .repartition {
                    pending.append(consumed(copy, topic: worker.processor.repartition.topic, offset: worker.next()))
                }
            }
            return true
        }

        mutating func run() { while step() {} }

        /// Processes the first waiting record of `kind` from the walk of topic `topicIndex` first,
        /// as another partition's consumer may; false when none waits.
        mutating func stepFirst(_ kind: String, topicIndex: Int) -> Bool {
            guard
                let index = pending.firstIndex(where: {
                    $0.header("kind") == kind && $0.header("topic-index") == String(topicIndex)
                })
            else { return false }
            pending.insert(pending.remove(at: index), at: 0)
            return step()
        }

        /// Processes the next record as a worker does that dies before its input's offset is
        /// committed but after its changelog writes landed (at-least-once delivery, or a broker
        /// that shows aborted transactions): of its other outputs only those `kept` (by index)
        /// land, and the record is processed again after the crash.
        mutating func stepThenDie(keeping kept: (Int) -> Bool) {
            guard let input = pending.first else { return }
            var outputs = OutputRecords()
            worker.processor.process(known: input, states: &worker.states, outputs: &outputs)
            for (index, copy) in outputs.copies.enumerated() where copy.topic == .changelog || kept(index) {
                written.append(copy)
                worker.written.append(copy)
                if copy.topic == .repartition {
                    pending.append(consumed(copy, topic: worker.processor.repartition.topic, offset: worker.next()))
                }
            }
            crash()
        }

        /// A new worker's state: the changelog written so far, replayed as far as the group
        /// committed its inputs; `compacted`, only the last record of each key, where it was
        /// written (as log compaction leaves a partition).
        mutating func crash(compacted: Bool = false) {
            var changelog = worker.written.filter { $0.topic == .changelog }
            if compacted {
                var last: [[UInt8]: Int] = [:]
                for (index, copy) in changelog.enumerated() {
                    last[[UInt8(copy.partition ?? 0)] + (copy.key ?? [])] = index
                }
                let kept = Set(last.values)
                changelog = changelog.indices.filter(kept.contains).map { changelog[$0] }
            }
            worker.states = replay(
                changelog, codec: worker.processor.changelog, committed: worker.committedInputs,
                partitions: 0..<Flow.partitions)
        }

        var statuses: [(token: String?, json: JSONValue)] { Flow.statuses(written) }

        /// Each device's statuses about copies (ids with a `/`), by token.
        var copyStatuses: [String: [JSONValue]] {
            Dictionary(grouping: statuses.filter { $0.json["message_id"]?.stringValue?.contains("/") == true }) {
                $0.token ?? ""
            }.mapValues { $0.map(\.json) }
        }

        var fannedOut: [(token: String?, json: JSONValue)] {
            statuses.filter { $0.json["type"] == .string("fanned_out") }
        }
    }

    static func topicSend(_ topic: String, extra: String = "") -> String {
        #"{"message":{"topic":"\#(topic)","notification":{"title":"T"}\#(extra)}}"#
    }

    static func conditionSend(_ condition: String) -> String {
        #"{"message":{"condition":"\#(condition)","data":{"k":"v"}}}"#
    }

    @Test("a topic send reaches each member once under its own id, and fanned_out counts them, keyed by the topic")
    func topicSend() throws {
        var network = Network(subscriptions: [("news", ["a", "b", "c"]), ("other", ["d"])])
        for token in ["a", "b"] { network.presence(token, "connect", at: Self.time - 1) }
        network.send(Self.topicSend("/topics/news"))
        network.run()
        let copies = network.copyStatuses
        #expect(Set(copies.keys) == ["a", "b", "c"])
        #expect(copies["a"]?.map { $0["type"] } == [.string("dispatched")])
        #expect(copies["c"]?.map { $0["type"] } == [.string("queued")])
        let ids = copies.values.compactMap { $0.first?["message_id"]?.stringValue }
        #expect(Set(ids).count == 3)
        let fannedOut = try #require(network.fannedOut.first)
        #expect(network.fannedOut.count == 1)
        #expect(fannedOut.token == "news")
        #expect(fannedOut.json["topic"] == .string("news") && fannedOut.json["count"] == .number("3"))
        #expect(fannedOut.json["token"] == nil && fannedOut.json["condition"] == nil)
        let sendID = try #require(fannedOut.json["message_id"]?.stringValue)
        #expect(ids.allSatisfy { $0.hasPrefix(sendID + "/") && MessageID.isWellFormed($0) })
        // The inbox record's payload carries the device's own id.
        let inbox = try #require(network.written.first { $0.topic == .inbox && $0.key == Array("a".utf8) })
        let json = try JSONParser.parse(try #require(inbox.value))
        let id = copies["a"]?.first?["message_id"]
        #expect(json["message_id"] == id && json["apns"]?["payload"]?["gcm.message_id"] == id)
    }

    @Test("a topic with no subscribers gives fanned_out with count 0")
    func noSubscribers() {
        var network = Network(subscriptions: [])
        network.send(Self.topicSend("empty"))
        network.run()
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("0")])
        #expect(network.worker.states.topics.fanOutsInProgress == (0, 0))
    }

    @Test("a condition reaches the devices whose topics satisfy it, each once, whichever topics they are in")
    func condition() throws {
        var network = Network(subscriptions: [
            ("a", ["both", "onlyA", "aAndC"]), ("b", ["both", "onlyB"]), ("c", ["aAndC", "onlyC"]),
        ])
        network.send(Self.conditionSend("('a' in topics || 'b' in topics) && !('c' in topics)"))
        network.run()
        let copies = network.copyStatuses
        #expect(Set(copies.keys) == ["both", "onlyA", "onlyB"])
        #expect(copies.values.allSatisfy { $0.count == 1 })
        let fannedOut = try #require(network.fannedOut.first)
        #expect(network.fannedOut.count == 1 && fannedOut.token == "a")
        #expect(fannedOut.json["count"] == .number("3") && fannedOut.json["topic"] == nil)
        #expect(
            fannedOut.json["condition"] == .string("('a' in topics || 'b' in topics) && !('c' in topics)"))
    }

    @Test("a condition that no device's topics satisfy reaches nobody, even over one topic")
    func unsatisfiable() {
        var network = Network(subscriptions: [("news", ["a", "b"])])
        network.send(Self.conditionSend("'news' in topics && !('news' in topics)"))
        network.run()
        #expect(network.copyStatuses.isEmpty)
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("0")])
    }

    @Test("under the smallest record size, every fan-out record fits, whatever the tokens' and message's size")
    func recordsFit() {
        let limits = OutputLimits(maxRecordBytes: 65_536)
        let tokens = (0..<60).map { "t\($0)-" + String(repeating: "x", count: 4000) }
        var network = Network(subscriptions: [("news", tokens)], limits: limits)
        let body = String(repeating: "y", count: 3000)
        for headerBytes in [10_000, 30_000] {
            network.send(
                #"{"message":{"condition":"'news' in topics || 'x' in topics","notification":{"title":"\#(body)"},"apns":{"headers":{"x-big":"\#(String(repeating: "z", count: headerBytes))"}}}}"#
            )
        }
        network.run()
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("60")])
        // The second send's records would not fit with the longest token: refused at the door.
        let refused = network.statuses.filter { $0.json["type"] == .string("rejected") }
        #expect(refused.map(\.token) == ["news"] && refused.first?.json["reason"] == .string("invalid_argument"))
        for record in network.written {
            let headers: Int = record.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.count }
            let size: Int = (record.key?.count ?? 0) + (record.value?.count ?? 0) + headers
            #expect(size <= limits.maxRecordBytes, "a \(record.topic) record of \(size) bytes")
        }
    }

    @Test(
        "a rejected topic or condition send is keyed by its first topic and names its target, found when decoding or translating",
        arguments: [
            (#"{"message":{"topic":"news","data":{"from":"x"}}}"#, "invalid_data_key", "topic"),
            (#"{"to":"/topics/news","time_to_live":-1}"#, "invalid_argument", "topic"),
            (
                #"{"condition":"'news' in topics || 'b' in topics","data":{"gcm.x":"1"}}"#, "invalid_data_key",
                "condition"
            ),
            (
                #"{"message":{"topic":"news","data":{"k":"\#(String(repeating: "x", count: 5000))"}}}"#,
                "payload_too_large", "topic"
            ),
        ])
    func rejected(request: String, reason: String, field: String) throws {
        var network = Network(subscriptions: [("news", ["a"])])
        network.send(request)
        network.run()
        let status = try #require(network.statuses.first)
        #expect(network.statuses.count == 1 && status.token == "news")
        #expect(status.json["type"] == .string("rejected") && status.json["reason"] == .string(reason))
        #expect(status.json[field] != nil && status.json["token"] == nil)
        #expect(status.json["message_id"]?.stringValue.map(MessageID.isWellFormed) == true)
    }

    @Test("a device that leaves one of an || condition's topics between the walks still gets one copy")
    func leavesBetweenWalks() throws {
        var network = Network(subscriptions: [("a", ["d"]), ("b", ["d"])])
        network.send(Self.conditionSend("'a' in topics || 'b' in topics"))
        for _ in 0..<3 { _ = network.step() }  // the send and both walks
        let copiedFromB = network.stepFirst("fanout-copies", topicIndex: 1)
        #expect(copiedFromB)
        network.worker.subscriptionRequest(Flow.subscribe("a", ["d"], action: "unsubscribe"))
        network.run()
        #expect(network.copyStatuses["d"]?.count == 1)
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("1")])
    }

    @Test("a device that joins another of an || condition's topics between the walks gets no second copy")
    func joinsBetweenWalks() throws {
        var network = Network(subscriptions: [("a", ["other"]), ("b", ["d"])])
        network.send(Self.conditionSend("'a' in topics || 'b' in topics"))
        _ = network.step()  // the send
        let walkedB = network.stepFirst("fanout-walk", topicIndex: 1)
        let copiedFromB = network.stepFirst("fanout-copies", topicIndex: 1)
        #expect(walkedB && copiedFromB)
        network.worker.subscriptionRequest(Flow.subscribe("a", ["d"]))
        network.run()
        #expect(network.copyStatuses["d"]?.count == 1)
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("2")])
    }

    @Test("many condition sends in flight at once to a device in two of their topics give it one copy each")
    func manyConditionSendsInFlight() throws {
        var network = Network(subscriptions: [("a", ["d"]), ("b", ["d"])])
        for _ in 0..<40 { network.send(Self.conditionSend("'a' in topics || 'b' in topics")) }
        for _ in 0..<40 { _ = network.step() }  // the sends
        // Every walk of the first topic, and its copies, before any of the second's.
        while network.stepFirst("fanout-walk", topicIndex: 0) {}
        while network.stepFirst("fanout-copies", topicIndex: 0) {}
        network.run()
        let ids = network.copyStatuses["d"]?.compactMap { $0["message_id"]?.stringValue } ?? []
        #expect(ids.count == 40 && Set(ids).count == 40)
        #expect(network.fannedOut.allSatisfy { $0.json["count"] == .number("1") } && network.fannedOut.count == 40)
    }

    @Test("a validate_only topic send is validated, keyed by the topic, and reaches nobody")
    func validateOnly() {
        var network = Network(subscriptions: [("news", ["a"])])
        network.send(#"{"validate_only":true,"message":{"topic":"news","notification":{"title":"T"}}}"#)
        network.run()
        #expect(network.statuses.map(\.token) == ["news"])
        #expect(network.statuses.first?.json["type"] == .string("validated"))
        #expect(network.statuses.first?.json["topic"] == .string("news"))
    }

    @Test("an offline member's copies wait and flow in send order when it connects")
    func offlineInOrder() {
        var network = Network(subscriptions: [("news", ["a"])])
        network.send(Self.topicSend("news"))
        network.send(Self.topicSend("news"))
        network.run()
        network.presence("a", "connect", at: Self.time + 1)
        network.run()
        let dispatched = network.written.filter { $0.topic == .inbox && $0.key == Array("a".utf8) }
        let ids = network.copyStatuses["a"]?.filter { $0["type"] == .string("queued") }.map { $0["message_id"] }
        #expect(dispatched.count == 2)
        #expect(
            dispatched.compactMap { $0.value.flatMap { try? JSONParser.parse($0)["message_id"] } } == ids)
    }

    @Test(
        "a large topic is walked in bounded chunks, other inputs flowing between them, reaching each member once",
        arguments: [999, 1000, 2500, 20_000])
    func largeTopic(members: Int) throws {
        let tokens = (0..<members).map { "m\($0)" }
        var network = Network(subscriptions: [("big", tokens)])
        network.send(Self.topicSend("big"))
        var largest = 0
        while !network.pending.isEmpty {
            let before = network.written.count
            _ = network.step()
            let copies = network.written[before...].filter { $0.topic == .repartition && $0.value?.count ?? 0 > 0 }
            largest = max(largest, copies.reduce(0) { $0 + ($1.value?.split(separator: 10).count ?? 1) - 1 })
        }
        #expect(largest <= FanOutWalk.chunkMembers)
        let copies = network.copyStatuses
        #expect(copies.count == members && copies.values.allSatisfy { $0.count == 1 })
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("\(members)")])
        #expect(network.worker.states.topics.fanOutsInProgress == (0, 0))
    }

    @Test(
        "a worker that stops after any input resumes from the changelog: each member gets one copy, counted once",
        arguments: [1, 2, 3, 5, 8, 13, 21, 34])
    func crashAnywhere(after inputs: Int) throws {
        let tokens = (0..<3000).map { "m\($0)" }
        var network = Network(subscriptions: [("big", tokens), ("small", ["m1", "x", "y"])])
        network.send(Self.conditionSend("'big' in topics || 'small' in topics"))
        for _ in 0..<inputs { _ = network.step() }
        network.crash()
        network.run()
        let copies = network.copyStatuses
        #expect(copies.count == 3002)
        #expect(copies.values.allSatisfy { $0.count == 1 })
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("3002")])
    }

    @Test(
        "a worker restored from a compacted changelog (the last record of each key) resumes as from the whole",
        arguments: [2, 5, 9, 20, 40])
    func crashCompacted(after inputs: Int) throws {
        let tokens = (0..<3000).map { "m\($0)" }
        var network = Network(subscriptions: [("big", tokens), ("small", ["m1", "x", "y"])])
        network.send(Self.conditionSend("'big' in topics || 'small' in topics"))
        for _ in 0..<inputs { _ = network.step() }
        let live = network.worker.states.topics.fanOutsInProgress
        network.crash(compacted: true)
        #expect(network.worker.states.topics.fanOutsInProgress == live)
        network.run()
        let copies = network.copyStatuses
        #expect(copies.count == 3002 && copies.values.allSatisfy { $0.count == 1 })
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("3002")])
    }

    @Test(
        "a worker that dies with its changelog ahead of its input, some outputs lost, reaches each member, counted once",
        arguments: [1, 2, 3, 4, 6, 9, 14], [0, 1, 2])
    func crashAheadOfInput(after inputs: Int, losing pattern: Int) throws {
        let tokens = (0..<3000).map { "m\($0)" }
        var network = Network(subscriptions: [("big", tokens), ("small", ["m1", "x", "y"])])
        network.send(Self.conditionSend("'big' in topics || 'small' in topics"))
        for _ in 0..<inputs { _ = network.step() }
        // Every third output lost, every other one, or all of them.
        network.stepThenDie { [$0 % 3 != 1, $0 % 2 == 0, false][pattern] }
        network.run()
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("3002")])
        // The input's changelog records are dropped with it: processed again, every copy is
        // queued again with its status, lost or not.
        #expect(network.copyStatuses.count == 3002)
        for token in tokens + ["x", "y"] { network.presence(token, "connect", at: Self.time + 1) }
        network.run()
        let inbox = Dictionary(grouping: network.written.filter { $0.topic == .inbox }) {
            String(decoding: $0.key ?? [], as: UTF8.self)
        }
        #expect(inbox.count == 3002)
        #expect(inbox.values.allSatisfy { Set($0.map(\.value)).count == 1 })
    }

    @Test("the changelog of a fan-out in progress replays to the live walks and tallies")
    func replayInProgress() throws {
        let tokens = (0..<5000).map { "m\($0)" }
        var network = Network(subscriptions: [("big", tokens)])
        network.send(Self.topicSend("big", extra: #","apns":{"headers":{"apns-collapse-id":"k"}}"#))
        for _ in 0..<4 { _ = network.step() }
        let live = network.worker.states.topics
        #expect(live.fanOutsInProgress == (1, 1))
        network.crash()
        let partition = network.worker.processor.statePartition(ofTopic: "big")
        let restored = network.worker.states.topics
        let walkKey = try #require(live.walks(in: partition).first)
        #expect(restored.walk(walkKey, in: partition) == live.walk(walkKey, in: partition))
        #expect(restored.tally(walkKey.sendID, in: partition) == live.tally(walkKey.sendID, in: partition))
    }
}
