import NIOCore
import PropertyBased
import Testing

@testable import BridgeCore

/// A restore keeps a changelog record only when the group committed its input: fed the whole
/// changelog of a run, with the committed offsets of any point of it, it rebuilds exactly the
/// state of the inputs before that point, for device queues, memberships and fan-outs alike.
@Suite("Restores keep what the group committed")
struct CommittedRestoreTests {
    typealias Network = FanOutFlowTests.Network
    static let tokens = (0..<24).map { "d\($0)" }
    static let topics = ["news", "sport", "weather"]

    /// An input, by a number: each kind of record the processor takes from outside.
    static func input(_ choice: Int, index: Int, to network: inout Network) {
        let token = tokens[choice % tokens.count]
        let topic = topics[choice % topics.count]
        let time = FanOutFlowTests.time + Int64(index)
        switch choice % 7 {
        case 0, 1:
            let members = tokens.indices.filter { $0 % 3 != choice % 3 }.map { tokens[$0] } + [token]
            network.subscription(SubscriptionFlowTests.subscribe(topic, members), at: time)
        case 2: network.subscription(SubscriptionFlowTests.subscribe(topic, [token], action: "unsubscribe"), at: time)
        case 3: network.send(#"{"message":{"token":"\#(token)","notification":{"title":"\#(index)"}}}"#)
        case 4: network.send(FanOutFlowTests.topicSend(topic))
        case 5: network.send(FanOutFlowTests.conditionSend("'\(topic)' in topics || 'news' in topics"))
        default: network.presence(token, index % 2 == 0 ? "connect" : "disconnect", at: time)
        }
    }

    @Test(
        "the whole changelog, with the offsets committed at any point, restores the state of that point",
        arguments: [false, true])
    func restoreAtAnyCut(colocated: Bool) async {
        let inputs = Gen.int(in: 0...999).array(of: 1...20)
        await propertyCheck(count: 60, input: inputs, inputs, Gen.int(in: 0...1000)) {
            first, second, cutPerMille in
            // Colocated: sends and presence of partition 0's devices change state where they land.
            var network = Network(subscriptions: [], colocated: colocated)
            var points: [(committed: CommittedInputs, changelog: Int)] = []
            // Two rounds, each run to its end: the second's sends reach the first's subscribers.
            for (round, choices) in [first, second].enumerated() {
                for (index, choice) in choices.enumerated() {
                    Self.input(choice, index: round * first.count + index, to: &network)
                }
                while network.step() {
                    points.append((network.worker.committedInputs, network.written.count { $0.topic == .changelog }))
                }
            }
            let cut = points[min(points.count - 1, points.count * cutPerMille / 1000)]
            let changelog = network.written.filter { $0.topic == .changelog }
            let committed = cut.committed
            let codec = network.worker.processor.changelog
            let restored = replay(
                changelog, codec: codec, committed: committed, partitions: 0..<SubscriptionFlowTests.partitions)
            let prefix = replay(
                Array(changelog.prefix(cut.changelog)), codec: codec, committed: nil,
                partitions: 0..<SubscriptionFlowTests.partitions)
            #expect(restored == prefix)
            let kept = changelog.count { copy in
                copy.header(ChangelogInput.headerNameText)?.withUnsafeBytes { committed.verdict(header: $0) }
                    == .committed
            }
            #expect(kept == cut.changelog)
        }
    }

    @Test(
        "live topic state equals a replay of its whole changelog: memberships, device sets, walks, tallies, copies",
        arguments: [false, true])
    func liveEqualsReplay(colocated: Bool) async {
        let inputs = Gen.int(in: 0...999).array(of: 1...20)
        await propertyCheck(count: 60, input: inputs, inputs, Gen.int(in: 0...60)) {
            first, second, steps in
            var network = Network(subscriptions: [], colocated: colocated)
            // The first round run to its end, so that the second's sends reach its subscribers.
            for (index, choice) in first.enumerated() { Self.input(choice, index: index, to: &network) }
            network.run()
            for (index, choice) in second.enumerated() {
                Self.input(choice, index: first.count + index, to: &network)
            }
            // Stopped anywhere, fan-outs in the middle of their walks included.
            var taken = 0
            while taken < steps, network.step() { taken += 1 }
            let restored = replay(
                network.written.filter { $0.topic == .changelog }, codec: network.worker.processor.changelog,
                committed: nil, partitions: 0..<SubscriptionFlowTests.partitions)
            #expect(restored.topics == network.worker.states.topics)
        }
    }
}

extension FanOutFlowTests.Network {
    /// Queues a subscription request.
    mutating func subscription(_ json: String, at time: Int64) {
        pending.append(
            InMemoryRecord(
                topic: worker.processor.topics.subscriptions, partition: 0, offset: worker.next(),
                value: ByteBuffer(string: json), createTime: time))
    }
}
