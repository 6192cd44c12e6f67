import CRDKafka

/// A rebalance as librdkafka's callback reported it, waiting for the caller's listener.
struct RebalanceEvent: Sendable {
    enum Kind: Sendable {
        case assign, revoke
        case failure(KafkaError)
    }

    let kind: Kind
    let partitions: NativePartitionList
    let lost: Bool
    let cooperative: Bool

    /// Gives librdkafka the partitions (assign) or takes them back (revoke, failure); for a
    /// consumer that reads partitions in turns, makes the queues of assigned partitions first and
    /// destroys those of partitions taken back after, in `context`'s state.
    func apply(to native: NativeHandle, context: ConsumerContext) throws {
        let handle = native.pointer
        let listed = context.readsInTurns ? partitions.partitions : []
        switch (kind, cooperative) {
        case (.assign, true):
            context.openQueues(listed, handle: handle)
            try KafkaError.check(rd_kafka_incremental_assign(handle, partitions.pointer))
        case (.assign, false):
            context.openQueues(listed, handle: handle)
            try KafkaError.check(rd_kafka_assign(handle, partitions.pointer), "assign")
            context.closeQueues { !listed.contains($0) }
        case (.revoke, true):
            try KafkaError.check(rd_kafka_incremental_unassign(handle, partitions.pointer))
            context.closeQueues { listed.contains($0) }
        case (.revoke, false), (.failure, _):
            try KafkaError.check(rd_kafka_assign(handle, nil), "unassign")
            context.closeQueues { _ in true }
        }
    }
}
