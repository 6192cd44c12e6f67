import Kafka
import PropertyBased
import Testing

@testable import Kafka

/// A consumer's one state, without a broker or librdkafka: its life with the handle inside, its
/// rebalances between librdkafka's callback and the caller, and its partitions' queues. Handles
/// and queues are plain numbers here.
@Suite("Consumer state machine")
struct ConsumerStateMachineTests {
    typealias Machine = ConsumerStateMachine<Int, Int>

    static let turns = PartitionTurns(recordsPerTurn: 10)

    static func rebalance(_ kind: RebalanceEvent.Kind, _ partitions: Int32...) -> RebalanceEvent {
        RebalanceEvent(
            kind: kind, partitions: NativePartitionList(partitions.map { TopicPartition("t", $0) }), lost: false,
            cooperative: false)
    }

    static func describe(_ action: ConsumerRebalances.NextAction) -> String {
        switch action {
        case .readRecords: "read"
        case .completeRevocation(let event): "complete \(event.partitions.partitions[0].partition)"
        case .returnEvent(let event): "return \(event.partitions.partitions[0].partition)"
        }
    }

    static func running(turns: PartitionTurns? = turns) -> Machine {
        var machine = Machine(turns: turns)
        machine.start(7)
        return machine
    }

    @Test("the handle is served only while it runs, a close's own calls while closing, none before or after")
    func life() {
        var machine = Machine(turns: nil)
        #expect(machine.handle(duringClose: true) == nil)
        guard case .ignore = machine.reported(Self.rebalance(.assign, 1)) else {
            Issue.record("a consumer not yet made queued a rebalance")
            return
        }
        machine.start(7)
        #expect(machine.handle(duringClose: false) == 7 && !machine.isClosed)
        guard case .close(7) = machine.beginClose() else {
            Issue.record("the first close was not told to close with the handle")
            return
        }
        #expect(machine.leaveGroup().isEmpty)
        #expect(machine.handle(duringClose: false) == nil && machine.handle(duringClose: true) == 7)
        guard case .none = machine.beginClose() else {
            Issue.record("a second close closed again")
            return
        }
        machine.finishClose()
        #expect(machine.handle(duringClose: true) == nil && machine.loopHandle == nil && machine.isClosed)
        guard case .none = machine.beginClose(), case .ignore = machine.reported(Self.rebalance(.revoke, 1)) else {
            Issue.record("a closed consumer closed again, or took a rebalance")
            return
        }
    }

    @Test(
        "rebalances without a listener: returned one at a time, a revocation completed only at the next poll, after the caller committed"
    )
    func rebalancesReturnedInTurn() {
        var machine = Self.running()
        #expect(Self.describe(machine.nextRebalance()) == "read" && !machine.hasReported)
        for (kind, partition) in [(RebalanceEvent.Kind.revoke, Int32(1)), (.assign, 2)] {
            guard case .wakePoll = machine.reported(Self.rebalance(kind, partition)) else {
                Issue.record("a running consumer answered a rebalance itself")
                return
            }
        }
        #expect(machine.hasReported)
        let turns = (0..<4).map { _ in Self.describe(machine.nextRebalance()) }
        #expect(turns == ["return 1", "complete 1", "return 2", "read"])
    }

    @Test(
        "a close takes what was reported until it leaves the group; the revocation returned last comes first; later ones are answered at once by the callback"
    )
    func rebalancesWhileClosing() {
        var machine = Self.running()
        _ = machine.reported(Self.rebalance(.revoke, 1))
        _ = machine.nextRebalance()  // returned: the caller commits, and the next poll would complete it
        _ = machine.reported(Self.rebalance(.assign, 2))
        guard case .close = machine.beginClose(), case .wakePoll = machine.reported(Self.rebalance(.revoke, 3)) else {
            Issue.record("a rebalance reported before the close left the group was not kept for it")
            return
        }
        #expect(machine.leaveGroup().map(\.partitions.partitions[0].partition) == [1, 2, 3])
        guard case .answer(7) = machine.reported(Self.rebalance(.revoke, 4)) else {
            Issue.record("a revocation after leaving was queued for a poll that never comes")
            return
        }
        #expect(Self.describe(machine.nextRebalance()) == "read" && machine.takeReported().isEmpty)
        #expect(machine.leaveGroup().isEmpty, "a second leave answers nothing twice")
    }

    @Test("a rebalance taken from the state and not completed when the close begins is the close's to answer")
    func notCompletedDuringClose() {
        var machine = Self.running()
        _ = machine.reported(Self.rebalance(.revoke, 1))
        _ = machine.reported(Self.rebalance(.assign, 2))
        guard case .returnEvent = machine.nextRebalance(),
            case .completeRevocation(let revocation) = machine.nextRebalance()
        else {
            Issue.record("no revocation handed out to complete")
            return
        }
        _ = machine.beginClose()
        #expect(machine.notCompleted(revocation) == nil, "before leaving, the close still takes it")
        #expect(machine.leaveGroup().map(\.partitions.partitions[0].partition) == [1, 2])

        var leaving = Self.running()
        _ = leaving.reported(Self.rebalance(.assign, 3))
        guard case .returnEvent(let assignment) = leaving.nextRebalance() else {
            Issue.record("the assignment was not handed out")
            return
        }
        _ = leaving.beginClose()
        #expect(leaving.leaveGroup().isEmpty)
        #expect(leaving.notCompleted(assignment) == 7, "after leaving, it is answered at once")
    }

    @Test("a rebalance whose completion failed (a cancelled call) is handed out again, first")
    func notCompletedHandedOutAgain() {
        var machine = Self.running()
        _ = machine.reported(Self.rebalance(.assign, 1))
        _ = machine.reported(Self.rebalance(.revoke, 2))
        guard case .returnEvent(let assignment) = machine.nextRebalance() else {
            Issue.record("no assignment handed out")
            return
        }
        _ = machine.notCompleted(assignment)
        #expect(Self.describe(machine.nextRebalance()) == "return 1")
        #expect(Self.describe(machine.nextRebalance()) == "return 2")
        guard case .completeRevocation(let revocation) = machine.nextRebalance() else {
            Issue.record("the revocation was not completed at the next poll")
            return
        }
        _ = machine.notCompleted(revocation)
        #expect(Self.describe(machine.nextRebalance()) == "complete 2")
        #expect(Self.describe(machine.nextRebalance()) == "read")
    }

    @Test("a listener takes every rebalance reported since the last poll at once, in order")
    func listenerTakesAll() {
        var machine = Self.running()
        _ = machine.reported(Self.rebalance(.assign, 1))
        _ = machine.reported(Self.rebalance(.revoke, 1))
        #expect(machine.takeReported().map(\.partitions.partitions[0].partition) == [1, 1])
        #expect(machine.takeReported().isEmpty && !machine.hasReported)
    }

    @Test("an assignment makes its partitions' queues, which take turns; a revocation gives them back to destroy")
    func queuesFollowAssignments() {
        var machine = Self.running()
        let partitions = (0..<3).map { TopicPartition("t", $0) }
        machine.openQueues(partitions) { $0.partition == 1 ? nil : 100 + Int($0.partition) }
        #expect(
            machine.partitionsWithQueues == [partitions[0], partitions[2]], "a queue librdkafka refused is left out")
        machine.openQueues([partitions[0]]) { _ in 999 }
        let plan = machine.planTurns(waiting: { _ in 50 }, maxRecords: 1_000)
        #expect(plan.map(\.0) == [100, 102] && plan.map(\.1) == [10, 10], "one turn each, of the budget")
        #expect(machine.closeQueues([partitions[0], partitions[1]]) == [100])
        #expect(machine.planTurns(waiting: { _ in 50 }, maxRecords: 1_000).map(\.0) == [102])
    }

    @Test("a consumer that reads through librdkafka's consumer queue makes no queues")
    func noTurnsNoQueues() {
        var machine = Self.running(turns: nil)
        machine.openQueues([TopicPartition("t", 0)]) { _ in 100 }
        #expect(machine.partitionsWithQueues.isEmpty)
        #expect(machine.planTurns(waiting: { _ in 50 }, maxRecords: 10).isEmpty)
    }

    @Test(
        "while closing, the callback's answers still close queues but make none, and the close takes the rest"
    )
    func queuesAtClose() {
        var machine = Self.running()
        let partitions = (0..<3).map { TopicPartition("t", $0) }
        machine.openQueues(partitions) { 100 + Int($0.partition) }
        _ = machine.beginClose()
        _ = machine.leaveGroup()
        #expect(machine.closeQueues([partitions[1]]) == [101])
        machine.openQueues([TopicPartition("t", 5)]) { _ in 105 }
        #expect(machine.partitionsWithQueues == [partitions[0], partitions[2]], "a closing consumer makes no queue")
        #expect(machine.closeQueues(machine.partitionsWithQueues).sorted() == [100, 102])
        #expect(machine.partitionsWithQueues.isEmpty)
    }

    @Test("whatever the assignments, every queue made is given back exactly once, and only assigned ones are read")
    func everyQueueGivenBackOnce() async {
        // Each step assigns (first number below 8) or revokes a set of partitions out of eight
        // (each number modulo 8).
        let steps = Gen.int(in: 0...15).array(of: 1...4).array(of: 0...30)
        await propertyCheck(count: 300, input: steps) { steps in
            var machine = Self.running()
            var made: [Int] = []
            var destroyed: [Int] = []
            var assigned = Set<Int32>()
            for numbers in steps {
                let partitions = numbers.map { TopicPartition("t", Int32($0 % 8)) }
                if numbers[0] < 8 {
                    machine.openQueues(partitions) { _ in
                        made.append(made.count)
                        return made.count - 1
                    }
                    assigned.formUnion(partitions.map(\.partition))
                } else {
                    destroyed += machine.closeQueues(partitions)
                    assigned.subtract(partitions.map(\.partition))
                }
                #expect(Set(machine.partitionsWithQueues.map(\.partition)) == assigned)
                let read = machine.planTurns(waiting: { _ in 1 }, maxRecords: 100).map(\.0)
                #expect(Set(read).count == assigned.count && Set(read).isDisjoint(with: destroyed))
            }
            _ = machine.beginClose()
            destroyed += machine.closeQueues(machine.partitionsWithQueues)
            #expect(destroyed.sorted() == made)
        }
    }
}
