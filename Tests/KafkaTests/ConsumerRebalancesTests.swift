import Kafka
import Testing

@testable import Kafka

/// A consumer's rebalances between librdkafka's callback and the caller, without a broker.
@Suite("Consumer rebalances")
struct ConsumerRebalancesTests {
    static func rebalance(_ kind: RebalanceEvent.Kind, _ partition: Int32) -> RebalanceEvent {
        RebalanceEvent(
            kind: kind, partitions: NativePartitionList([TopicPartition("t", partition)]), lost: false,
            cooperative: false)
    }

    static func describe(_ action: ConsumerRebalances.NextAction) -> String {
        switch action {
        case .readRecords: "read"
        case .completeRevocation(let event): "complete \(event.partitions.partitions[0].partition)"
        case .returnEvent(let event): "return \(event.partitions.partitions[0].partition)"
        }
    }

    @Test(
        "rebalances without a listener: returned one at a time, a revocation completed only at the next poll, after the caller committed"
    )
    func rebalancesReturnedInTurn() {
        var rebalances = ConsumerRebalances()
        #expect(Self.describe(rebalances.next()) == "read")
        for (kind, partition) in [(RebalanceEvent.Kind.revoke, Int32(1)), (.assign, 2)] {
            guard case .wakePoll = rebalances.reported(Self.rebalance(kind, partition)) else {
                Issue.record("an open consumer answered a rebalance itself")
                return
            }
        }
        let turns = (0..<4).map { _ in Self.describe(rebalances.next()) }
        #expect(turns == ["return 1", "complete 1", "return 2", "read"])
    }

    @Test(
        "a revocation arriving while closing is answered at once by the callback; the close answers the ones before it, in order"
    )
    func revocationWhileClosing() {
        var rebalances = ConsumerRebalances()
        _ = rebalances.reported(Self.rebalance(.revoke, 1))
        _ = rebalances.next()  // returned: the caller commits, and the next poll would complete it
        _ = rebalances.reported(Self.rebalance(.assign, 2))
        let unanswered = rebalances.beginClose()
        #expect(unanswered.map(\.partitions.partitions[0].partition) == [1, 2])
        guard case .answer = rebalances.reported(Self.rebalance(.revoke, 3)) else {
            Issue.record("a revocation while closing was queued for a poll that never comes")
            return
        }
        #expect(Self.describe(rebalances.next()) == "read" && rebalances.takeReported().isEmpty)
        #expect(rebalances.beginClose().isEmpty, "a second close answers nothing twice")
    }

    @Test("a rebalance whose completion failed (a cancelled call) is handed out again, first")
    func notCompletedHandedOutAgain() {
        var rebalances = ConsumerRebalances()
        _ = rebalances.reported(Self.rebalance(.assign, 1))
        _ = rebalances.reported(Self.rebalance(.revoke, 2))
        guard case .returnEvent(let assignment) = rebalances.next() else {
            Issue.record("no assignment handed out")
            return
        }
        rebalances.notCompleted(assignment)
        #expect(Self.describe(rebalances.next()) == "return 1")
        #expect(Self.describe(rebalances.next()) == "return 2")
        guard case .completeRevocation(let revocation) = rebalances.next() else {
            Issue.record("the revocation was not completed at the next poll")
            return
        }
        rebalances.notCompleted(revocation)
        #expect(Self.describe(rebalances.next()) == "complete 2")
        #expect(Self.describe(rebalances.next()) == "read")
    }
}
