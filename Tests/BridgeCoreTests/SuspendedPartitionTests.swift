import DeviceQueues
import Testing

@testable import BridgeCore

/// A revoked partition's state is set aside with the changelog offset it covers, and resumed
/// only by an assignment that finds its store at that offset.
@Suite("Suspended partitions")
struct SuspendedPartitionTests {
    static let t0: Int64 = 1_700_000_000_000

    /// Partitions 0 and 1, each with devices, a waiting message, topics in devices' own sets and
    /// topic members; partition 1's topics are also partition 0's, so that names are shared.
    static func states() -> DeviceStates {
        var states = DeviceStates()
        let rules = QueueRules()
        for partition: Int32 in [0, 1] {
            states.adopt(partition)
            for index in 0..<3 {
                let token = "device-\(partition)-\(index)"
                _ = states.handle(
                    RoutedInput(token: token, input: .presence(.connect), time: t0), in: partition, rules: rules)
                for topic in ["news", "sport-\(partition)"] {
                    states.apply(.deviceTopic(token: token, topic: topic, isSubscribed: true), in: partition)
                    states.apply(.member(topic: topic, token: token, isMember: true), in: partition)
                }
            }
            let message = QueuedMessage(
                id: "0:\(partition):0", collapseKey: nil, sentAt: t0, expiresAt: t0 + 60_000, apns: [])
            _ = states.handle(
                RoutedInput(token: "offline-\(partition)", input: .send(message), time: t0), in: partition, rules: rules
            )
        }
        return states
    }

    /// `states` with `partition` dropped and adopted again: what a restore begins from.
    static func emptied(_ partition: Int32, of states: DeviceStates) -> DeviceStates {
        var states = states
        states.drop(partition)
        states.adopt(partition)
        return states
    }

    @Test("a partition resumed at the offset it was set aside at is what it was")
    func resumed() {
        let before = Self.states()
        var states = before
        states.suspend(1, coveredTo: 42)
        #expect(states.partitionCount == 1 && states.suspendedPartitions == [1])
        #expect(states.topics.topics(of: "device-1-0", in: 1).isEmpty)
        states.adopt(1)
        let resumed = states.resume(1, coveredTo: 42)
        #expect(resumed)
        #expect(states == before)
        #expect(states.topics.topicNameCount == before.topics.topicNameCount)
        #expect(states.suspendedPartitions.isEmpty)
    }

    @Test("a store that moved since (another offset) lets the state go: the partition is restored as if never held")
    func storeMoved() {
        let before = Self.states()
        var states = before
        states.suspend(1, coveredTo: 42)
        states.adopt(1)
        let moved = states.resume(1, coveredTo: 43)
        #expect(!moved)
        let emptied = Self.emptied(1, of: before)
        #expect(states == emptied, "nothing of it is held")
        #expect(states.topics.topicNameCount == emptied.topics.topicNameCount, "its topic names released")
        let again = states.resume(1, coveredTo: 42)
        #expect(!again, "let go for good")
    }

    @Test("an assignment that does not give the partition back lets its state go")
    func notGivenBack() {
        let before = Self.states()
        var states = before
        states.suspend(0, coveredTo: 7)
        states.suspend(1, coveredTo: 9)
        states.discardSuspended(keeping: [1])
        #expect(states.suspendedPartitions == [1])
        states.adopt(1)
        let resumed = states.resume(1, coveredTo: 9)
        #expect(resumed)
        var expected = before
        expected.drop(0)
        #expect(states == expected)
        #expect(states.topics.topicNameCount == expected.topics.topicNameCount)
    }

    @Test("suspending a partition not held only drops what is left of it")
    func notHeld() {
        var states = Self.states()
        states.drop(1)
        let before = states
        states.suspend(1, coveredTo: 5)
        #expect(states == before && states.suspendedPartitions.isEmpty)
    }
}
