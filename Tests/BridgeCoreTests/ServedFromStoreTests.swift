import DeviceQueues
import PropertyBased
import Testing

@testable import BridgeCore

/// A worker whose partitions are served from a store holds only a few devices: before each
/// batch it reads the devices the batch names that it must (``DeviceStates/devicesToRead(_:in:)``),
/// after it writes the devices the batch changed to the store some batches later, and lets go of
/// those written, down to a limit. Run against a worker that holds every device, it must write
/// the same records, and its store end up holding the same devices.
@Suite("Partitions served from a store")
struct ServedFromStoreTests {
    typealias Network = FanOutFlowTests.Network

    /// Devices and topics' members by partition, as a store of rows holds them, and the batches'
    /// changes it does not hold yet, oldest first: each changed device as the batch's seal left
    /// it (nil: removed), and the joins and leaves in order.
    struct Store {
        typealias Batch = (
            batch: UInt64, changes: [(partition: Int32, key: DeviceKey, device: DeviceQueue?)],
            members: [(partition: Int32, change: MemberChange)]
        )
        typealias MemberChange = (topic: String, token: String, isMember: Bool)

        var devices: [Int32: [DeviceKey: DeviceQueue]] = [:]
        var members: [Int32: [String: TopicMembers]] = [:]
        var unwritten: [Batch] = []

        /// Writes the oldest batch not written; returns its number.
        mutating func writeOldest() -> UInt64? {
            guard !unwritten.isEmpty else { return nil }
            let (batch, changes, joins) = unwritten.removeFirst()
            for (partition, key, device) in changes { devices[partition, default: [:]][key] = device }
            for (partition, change) in joins {
                if change.isMember {
                    members[partition, default: [:]][change.topic, default: TopicMembers()].insert(change.token)
                } else {
                    members[partition]?[change.topic]?.remove(change.token)
                    if members[partition]?[change.topic]?.count == 0 { members[partition]?[change.topic] = nil }
                }
            }
            return batch
        }

        /// Reads what `toRead` asks of `partition`'s member rows, as the rows answer.
        func read(_ toRead: MemberRowsToRead, in partition: Int32) -> ([Bool], [(tokens: [String], toEnd: Bool)]) {
            let topics = members[partition] ?? [:]
            let areMembers = toRead.memberships.map { topics[$0.topic]?.contains($0.token) == true }
            let walked = toRead.walks.map { walk in
                let chunk = topics[walk.topic]?.chunk(from: walk.cursor, limit: walk.rows) ?? (members: [], next: nil)
                return (tokens: chunk.members, toEnd: chunk.next == nil)
            }
            return (areMembers, walked)
        }
    }

    @Test(
        "a worker served from a store, a few devices held, writes what a worker holding every device writes",
        arguments: [false, true])
    func servedLikeHeld(colocated: Bool) async {
        let inputs = Gen.int(in: 0...999).array(of: 1...30)
        await propertyCheck(
            count: 60, input: inputs, inputs, Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 1...4)
        ) {
            first, second, limit, lag, batchSize in
            var held = Network(subscriptions: [], colocated: colocated)
            var served = Network(subscriptions: [], colocated: colocated)
            for partition in 0..<SubscriptionFlowTests.partitions { served.worker.states.serve(partition) }
            var store = Store()
            // Two rounds, each run to its end: the second's sends reach the first's subscribers.
            var index = 0
            for round in [first, second] {
                for choice in round {
                    CommittedRestoreTests.input(choice, index: index, to: &held)
                    CommittedRestoreTests.input(choice, index: index, to: &served)
                    index += 1
                }
                Self.run(&served, like: &held, store: &store, records: batchSize, lag: lag, limit: limit)
            }
            #expect(served.worker.states.deviceCount == held.worker.states.deviceCount)
            #expect(served.worker.states.waitingMessageCount == held.worker.states.waitingMessageCount)
            // A month and more later, inputs to every partition: the idle sweeps forget the idle
            // devices, the served worker's from its store too. The two run apart from here (they
            // forget at different inputs) and are compared once both have ended.
            // Three rounds of an input a partition, each run to its end: the first scans, the
            // second forgets what the store held.
            let heldBefore = held.written.count
            var servedLater: [OutputRecords.Copy] = []
            for round in Self.laterTokens {
                for token in round {
                    held.presence(token, "connect", at: Self.later)
                    served.presence(token, "connect", at: Self.later)
                }
                held.run()
                while !served.pending.isEmpty {
                    let batch = Self.step(&served, records: batchSize, store: &store, lag: lag, limit: limit)
                    servedLater += batch.flatMap(\.outputs)
                }
            }
            // The same records, each once, at inputs of their own: the input each names aside.
            #expect(
                servedLater.map(Self.recordOnly).sorted() == held.written[heldBefore...].map(Self.recordOnly).sorted())
            while let written = store.writeOldest() { served.worker.states.written(through: written) }
            for partition in 0..<SubscriptionFlowTests.partitions {
                #expect(store.devices[partition] ?? [:] == held.worker.states.devices(in: partition), "\(partition)")
            }
            Self.expectTopics(of: served.worker.states, in: store, like: held.worker.states)
            #expect(served.worker.states.deviceCount == held.worker.states.deviceCount)
            #expect(served.worker.states.waitingMessageCount == held.worker.states.waitingMessageCount)
        }
    }

    @Test("a device let go that leaves its last topic and subscribes to another in one batch is read, not made anew")
    func leavesLastTopicThenSubscribes() {
        let subscribe = { (action: String, topic: String) in
            { (network: inout Network) in
                network.subscription(
                    SubscriptionFlowTests.subscribe(topic, ["a"], action: action), at: FanOutFlowTests.time)
            }
        }
        // Two requests, then their two devices' hops, each pair in one batch.
        Self.expectServedLikeHeld(
            rounds: [
                [subscribe("subscribe", "news")], [subscribe("unsubscribe", "news"), subscribe("subscribe", "sport")],
            ],
            device: "a")
    }

    @Test(
        "a device let go that is in a topic and subscribes to another keeps what it held: it is not read, nor made anew"
    )
    func inTopicSubscribes() {
        let subscribe = { (topic: String) in
            { (network: inout Network) in
                network.subscription(SubscriptionFlowTests.subscribe(topic, ["a"]), at: FanOutFlowTests.time)
            }
        }
        let send = { (network: inout Network) in
            network.send(#"{"message":{"token":"a","notification":{"title":"waiting"}}}"#)
        }
        Self.expectServedLikeHeld(rounds: [[subscribe("news"), send], [subscribe("sport")]], device: "a")
    }

    /// Feeds each of `rounds`' inputs to a worker holding every device and to one served from a
    /// store that holds none (batches of two, written at once), round by round, each run to its
    /// end; expects the same records of each input, and the store to hold `device` as the first
    /// worker does.
    static func expectServedLikeHeld(rounds: [[(inout Network) -> Void]], device: String) {
        var held = Network(subscriptions: [], colocated: false)
        var served = Network(subscriptions: [], colocated: false)
        for partition in 0..<SubscriptionFlowTests.partitions { served.worker.states.serve(partition) }
        var store = Store()
        for round in rounds {
            for input in round {
                input(&held)
                input(&served)
            }
            Self.run(&served, like: &held, store: &store, records: 2, lag: 0, limit: 0)
        }
        let partition = served.worker.processor.statePartition(of: device)
        #expect(store.devices[partition] == held.worker.states.devices(in: partition))
    }

    /// Expects the topic state of `served`, with the members `store` holds, to be `held`'s.
    static func expectTopics(of served: DeviceStates, in store: Store, like held: DeviceStates) {
        var topics = served.topics
        for partition in 0..<SubscriptionFlowTests.partitions {
            #expect(topics.partitions[partition]?.served?.holdsMembers == false, "\(partition)")
            #expect(topics.partitions[partition]?.members.isEmpty == true, "\(partition)")
            topics.partitions[partition]?.members = store.members[partition] ?? [:]
            topics.partitions[partition]?.served = nil
        }
        #expect(served.topics.membershipCount == held.topics.membershipCount)
        #expect(topics == held.topics)
    }

    /// Processes `served`'s records to their end in batches of `records` (``step(_:records:store:lag:limit:)``),
    /// and `held`'s one by one beside them; expects each input to write the same records in both.
    static func run(
        _ served: inout Network, like held: inout Network, store: inout Store, records: Int, lag: Int, limit: Int
    ) {
        while !served.pending.isEmpty {
            for (input, outputs) in Self.step(&served, records: records, store: &store, lag: lag, limit: limit) {
                let expected = held.written.count
                _ = held.step()
                // In any order: two holders of equal state iterate their dictionaries apart.
                #expect(
                    outputs.map(NamedDevicesTests.fields).sorted()
                        == held.written[expected...].map(NamedDevicesTests.fields).sorted(),
                    "\(input.position)")
            }
        }
    }

    /// A record's topic, partition, key and value, as text: not the input its headers name.
    static func recordOnly(_ copy: OutputRecords.Copy) -> String {
        let text = { (bytes: [UInt8]?) in bytes.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
        return "\(copy.topic) \(copy.partition.map(String.init) ?? "-") \(text(copy.key)) \(text(copy.value))"
    }

    /// An event time past the inactivity limit of every device the inputs make.
    static let later = FanOutFlowTests.time + QueueRules().inactiveAfter + 3_600_000

    /// Three rounds of tokens, each of a device of every partition.
    static let laterTokens: [[String]] = (0..<3).map { round in
        (0..<SubscriptionFlowTests.partitions).map { partition in
            (0...).lazy.map { "later-\(round)-\($0)" }.first {
                Murmur2Partitioner.partition(of: $0.utf8, partitions: SubscriptionFlowTests.partitions) == partition
            } ?? ""
        }
    }

    /// Processes `network`'s next `records` records as a batch, as a worker served from `store`
    /// does: the devices they name read first; the devices their changelog records name written
    /// to the store `lag` batches later; then devices let go down to `limit` a partition (all of
    /// the excess, when every batch is written). Returns each record and what it wrote.
    static func step(
        _ network: inout Network, records: Int, store: inout Store, lag: Int, limit: Int
    ) -> [(input: InMemoryRecord, outputs: [OutputRecords.Copy])] {
        let batch = Array(network.pending.prefix(records))
        let processor = network.worker.processor
        var named: [Int32: [String]] = [:]
        var members: [Int32: MemberReads] = [:]
        var inputs: [Int32: Int] = [:]
        for input in batch {
            let decoded = processor.decode(input)
            named[input.partition, default: []] += processor.devices(
                namedBy: decoded, topics: network.worker.states.topics)
            processor.members(
                namedBy: decoded, topics: network.worker.states.topics,
                into: &members[input.partition, default: .init()])
            inputs[input.partition, default: 0] += 1
        }
        for (partition, reads) in members {
            guard let toRead = network.worker.states.topics.membersToRead(reads, in: partition) else { continue }
            let (areMembers, walked) = store.read(toRead, in: partition)
            network.worker.states.admit(toRead, areMembers: areMembers, walked: walked, in: partition)
        }
        for (partition, count) in inputs {
            named[partition, default: []] += network.worker.states.sweepCandidatesToRead(in: partition, inputs: count)
        }
        for (partition, tokens) in named {
            let toRead = network.worker.states.devicesToRead(tokens, in: partition)
            var found: [String: DeviceQueue] = [:]
            for token in toRead { found[token] = store.devices[partition]?[DeviceKey(token: token)] }
            network.worker.states.admit(found, read: toRead, in: partition)
        }
        var processed: [(input: InMemoryRecord, outputs: [OutputRecords.Copy])] = []
        var changed: [(partition: Int32, key: DeviceKey, device: DeviceQueue?)] = []
        var joins: [(partition: Int32, change: Store.MemberChange)] = []
        for input in batch {
            let start = network.written.count
            _ = network.step()
            let outputs = Array(network.written[start...])
            processed.append((input, outputs))
            for copy in outputs where copy.topic == .changelog {
                if let partition = copy.partition,
                    let (topic, token) = copy.key?.withUnsafeBytes({ ChangelogCodec.member(ofKey: $0) })
                {
                    joins.append((partition, (topic, token, copy.value != nil)))
                }
                guard let partition = copy.partition,
                    let (token, _) = copy.key?.withUnsafeBytes({ ChangelogCodec.deviceRow(ofKey: $0) })
                else { continue }
                changed.append((partition, DeviceKey(token: token), nil))
            }
        }
        // Each device as the seal leaves it.
        for index in changed.indices {
            changed[index].device = network.worker.states.devices(in: changed[index].partition)?[changed[index].key]
        }
        store.unwritten.append((network.worker.states.seal(), changed, joins))
        // The store's idle devices, for the sweeps that scanned the devices held.
        for (partition, time) in network.worker.states.takeStoreScans() {
            let idle = (store.devices[partition] ?? [:]).filter { $0.value.isIdle(at: time, rules: QueueRules()) }
            network.worker.states.addIdle(idle.keys.map(\.token), in: partition)
        }
        while store.unwritten.count > lag, let written = store.writeOldest() {
            network.worker.states.written(through: written)
        }
        for partition in 0..<SubscriptionFlowTests.partitions {
            network.worker.states.evict(in: partition, keeping: limit)
            if lag == 0 { #expect((network.worker.states.devices(in: partition)?.count ?? 0) <= limit) }
        }
        return processed
    }
}
