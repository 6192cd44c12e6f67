/// How a consumer that reads each assigned partition from a queue of its own shares a poll
/// among them, as Kafka Streams' `PartitionGroup` does: every partition with records waiting gets
/// a turn in each poll, in an order that rotates, and a turn takes at most the partition's
/// budget. A partition with a backlog therefore delays another's next record by at most one
/// turn, whatever the backlog, and a poll's work is bounded by the budgets, not by what waits.
///
/// ``TurnRotation`` plans each poll by these budgets.
public struct PartitionTurns: Sendable, Hashable {
    /// Records a partition gives in one turn, unless its topic has a budget of its own.
    public var recordsPerTurn: Int
    /// Budgets of particular topics: lower for a topic whose records cost much work each.
    public var recordsPerTurnByTopic: [String: Int]

    /// Turns of `recordsPerTurn` records (at least one), with lower budgets for some topics.
    public init(recordsPerTurn: Int, recordsPerTurnByTopic: [String: Int] = [:]) {
        self.recordsPerTurn = max(1, recordsPerTurn)
        self.recordsPerTurnByTopic = recordsPerTurnByTopic.mapValues { max(1, $0) }
    }

    /// The budget of `partition`'s turn.
    public func budget(of partition: TopicPartition) -> Int {
        recordsPerTurnByTopic[partition.topic] ?? recordsPerTurn
    }
}

/// The order of the turns of a consumer's partitions, as a pure value: the consumer asks it for a
/// plan given how many records wait in each partition's queue, and takes that many.
struct TurnRotation: Sendable {
    let turns: PartitionTurns
    /// The partitions in turn order.
    private(set) var partitions: [TopicPartition] = []
    /// Where the next poll's turns begin.
    private var next = 0

    init(_ turns: PartitionTurns) {
        self.turns = turns
    }

    /// Partitions were assigned: they take their turns after the others.
    mutating func add(_ added: [TopicPartition]) {
        partitions.append(contentsOf: added.filter { !partitions.contains($0) })
    }

    /// Partitions were revoked: the turns go on with the first remaining partition at or after
    /// the one whose turn was next.
    mutating func remove(_ removed: [TopicPartition]) {
        let gone = Set(removed)
        let before = partitions.isEmpty ? 0 : next % partitions.count
        next = partitions[..<before].count { !gone.contains($0) }
        partitions.removeAll { gone.contains($0) }
    }

    /// What one poll takes of each partition, in order, given the records `waiting` in each (a
    /// partition not in it has none), and at most `maxRecords` in all. Turns go round: the poll
    /// begins after the partition that had the last turn, or with the one the last poll had no
    /// room for, so no partition gets a second turn while another with records waits for one.
    mutating func plan(waiting: (TopicPartition) -> Int, maxRecords: Int) -> [(TopicPartition, Int)] {
        guard !partitions.isEmpty else { return [] }
        var plan: [(TopicPartition, Int)] = []
        var room = max(1, maxRecords)
        let first = next % partitions.count
        for step in 0..<partitions.count {
            let index = (first + step) % partitions.count
            let partition = partitions[index]
            let count = min(max(0, waiting(partition)), turns.budget(of: partition))
            guard count > 0 else { continue }
            guard room > 0 else {
                next = index  // its turn comes first next time
                return plan
            }
            let taken = min(count, room)
            plan.append((partition, taken))
            room -= taken
            next = index + 1
        }
        return plan
    }
}
