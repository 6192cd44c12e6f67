import PropertyBased
import Testing

@testable import Kafka

/// How a consumer that reads each partition from a queue of its own shares a poll among them.
@Suite("Partition turns")
struct TurnRotationTests {
    static let sends = (0..<4).map { TopicPartition("send", $0) }
    static let repartition = (0..<4).map { TopicPartition("repartition", $0) }

    static func rotation(_ partitions: [TopicPartition], budget: Int = 100, fanOutBudget: Int = 2) -> TurnRotation {
        var rotation = TurnRotation(
            PartitionTurns(recordsPerTurn: budget, recordsPerTurnByTopic: ["repartition": fanOutBudget]))
        rotation.add(partitions)
        return rotation
    }

    /// Plans `polls` polls of a backlog: `waiting` records in each partition at first, less what
    /// each poll took. Returns what each poll took, by partition.
    static func drain(
        _ rotation: inout TurnRotation, waiting: [TopicPartition: Int], maxRecords: Int, polls: Int
    ) -> [[TopicPartition: Int]] {
        var waiting = waiting
        return (0..<polls).map { _ in
            let plan = rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: maxRecords)
            for (partition, count) in plan { waiting[partition, default: 0] -= count }
            return Dictionary(plan) { $0 + $1 }
        }
    }

    @Test("a partition with 10,000 records waiting delays another partition's next record by no turn at all")
    func backlogDoesNotDelay() {
        var rotation = Self.rotation(Self.repartition + Self.sends)
        let waiting = [Self.repartition[0]: 10_000, Self.sends[2]: 1]
        let polls = Self.drain(&rotation, waiting: waiting, maxRecords: 1_000, polls: 2)
        #expect(polls[0] == [Self.repartition[0]: 2, Self.sends[2]: 1])
        #expect(polls[1] == [Self.repartition[0]: 2])
    }

    @Test("each turn takes at most its topic's budget; a lone partition gives its budget per poll")
    func budgets() {
        var rotation = Self.rotation(Self.repartition + Self.sends, budget: 100, fanOutBudget: 3)
        let waiting = Dictionary(uniqueKeysWithValues: (Self.repartition + Self.sends).map { ($0, 500) })
        let poll = Self.drain(&rotation, waiting: waiting, maxRecords: 10_000, polls: 1)[0]
        #expect(
            poll
                == waiting.mapValues { _ in 0 }.merging(Self.repartition.map { ($0, 3) }) { $1 }
                .merging(Self.sends.map { ($0, 100) }) { $1 })
    }

    @Test("when a poll's room runs out, the partitions left without a turn come first in the next")
    func roomRunsOut() {
        var rotation = Self.rotation(Self.sends, budget: 100)
        let waiting = Dictionary(uniqueKeysWithValues: Self.sends.map { ($0, 1_000) })
        let polls = Self.drain(&rotation, waiting: waiting, maxRecords: 150, polls: 3)
        #expect(polls[0] == [Self.sends[0]: 100, Self.sends[1]: 50])
        #expect(polls[1] == [Self.sends[2]: 100, Self.sends[3]: 50])
        #expect(polls[2] == [Self.sends[0]: 100, Self.sends[1]: 50])
    }

    @Test("revoked partitions get no turn; the rotation goes on from where it was; added ones come last")
    func assignmentChanges() {
        var rotation = Self.rotation(Self.sends, budget: 1)
        let waiting = Dictionary(uniqueKeysWithValues: (Self.sends + Self.repartition).map { ($0, 5) })
        _ = rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: 2)  // sends 0 and 1; 2 is next
        rotation.remove([Self.sends[1], Self.sends[3]])
        rotation.add([Self.repartition[0], Self.sends[0]])
        #expect(rotation.partitions == [Self.sends[0], Self.sends[2], Self.repartition[0]])
        let plan = rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: 1)
        #expect(plan.map(\.0) == [Self.sends[2]])
        rotation.remove(rotation.partitions)
        #expect(rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: 10).isEmpty)
    }

    @Test("when the partition whose turn was next is revoked, the turn goes to the one after it, not back to the first")
    func nextRevoked() {
        var rotation = Self.rotation(Self.sends, budget: 1)
        let waiting = Dictionary(uniqueKeysWithValues: Self.sends.map { ($0, 5) })
        _ = rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: 2)  // sends 0 and 1; 2 is next
        rotation.remove([Self.sends[2]])
        #expect(rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: 1).map(\.0) == [Self.sends[3]])
    }

    @Test("whatever waits, no partition gets a second turn while another with records waits for its first")
    func roundRobin() async {
        let counts = Gen.int(in: 0...20_000).array(of: 8...8)
        await propertyCheck(count: 300, input: counts, Gen.int(in: 1...1_200), Gen.int(in: 1...64)) {
            counts, maxRecords, fanOutBudget in
            let partitions = Self.repartition + Self.sends
            var rotation = Self.rotation(partitions, budget: 1_000, fanOutBudget: fanOutBudget)
            var waiting = Dictionary(uniqueKeysWithValues: zip(partitions, counts))
            // For each partition with records: the partitions served since its last turn.
            var servedMeanwhile = [TopicPartition: Set<TopicPartition>]()
            for _ in 0..<40 {
                let plan = rotation.plan(waiting: { waiting[$0] ?? 0 }, maxRecords: maxRecords)
                #expect(plan.reduce(0) { $0 + $1.1 } <= maxRecords)
                #expect(!plan.isEmpty || waiting.values.allSatisfy { $0 == 0 })
                for (partition, count) in plan {
                    #expect(count <= rotation.turns.budget(of: partition) && count <= waiting[partition] ?? 0)
                    for other in partitions where other != partition && (waiting[other] ?? 0) > 0 {
                        let inserted = servedMeanwhile[other, default: []].insert(partition).inserted
                        #expect(inserted, "\(partition) had two turns while \(other) waited for one")
                    }
                    servedMeanwhile[partition] = []
                    waiting[partition, default: 0] -= count
                }
            }
        }
    }
}
