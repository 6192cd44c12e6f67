/// The queue of each assigned partition of a consumer that reads them in turns, with the order
/// of the turns: part of its ``ConsumerStateMachine``, so that queues are made and destroyed with
/// the assignments, in the state every poll reads them from.
///
/// `Queue` is librdkafka's partition queue in the consumer; the tests use any value.
struct AssignedQueues<Queue: Sendable>: Sendable {
    private var queues: [TopicPartition: Queue] = [:]
    private var rotation: TurnRotation

    init(_ turns: PartitionTurns) {
        rotation = TurnRotation(turns)
    }

    /// The partitions with a queue, in turn order.
    var partitions: [TopicPartition] { rotation.partitions }

    /// Makes the queue of each of `partitions` that has none (`make` returns nil when it cannot):
    /// they take their turns after the others.
    mutating func open(_ partitions: [TopicPartition], making make: (TopicPartition) -> Queue?) {
        var opened: [TopicPartition] = []
        for partition in partitions where queues[partition] == nil {
            guard let queue = make(partition) else { continue }
            queues[partition] = queue
            opened.append(partition)
        }
        rotation.add(opened)
    }

    /// Forgets the queues of `partitions`, taken back, and returns them for the caller to destroy.
    mutating func close(_ partitions: [TopicPartition]) -> [Queue] {
        rotation.remove(partitions)
        return partitions.compactMap { queues.removeValue(forKey: $0) }
    }

    /// What one poll takes of each queue, in turn order, given the records `waiting` in each and
    /// at most `maxRecords` in all (see ``TurnRotation/plan(waiting:maxRecords:)``).
    mutating func planTurns(waiting: (Queue) -> Int, maxRecords: Int) -> [(Queue, Int)] {
        let queues = self.queues
        return rotation.plan(waiting: { queues[$0].map(waiting) ?? 0 }, maxRecords: maxRecords).compactMap {
            partition, count in queues[partition].map { ($0, count) }
        }
    }
}
