import CRDKafka
import Logging
import Synchronization

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

    /// Gives librdkafka the partitions (assign) or takes them back (revoke, failure); with
    /// `queues`, makes the queues of assigned partitions first and destroys those of partitions
    /// taken back after.
    func apply(to native: NativeHandle, queues: PartitionQueues?) throws {
        let handle = native.pointer
        let listed = queues == nil ? [] : partitions.partitions
        switch (kind, cooperative) {
        case (.assign, true):
            queues?.open(listed, handle: handle)
            try KafkaError.check(rd_kafka_incremental_assign(handle, partitions.pointer))
        case (.assign, false):
            queues?.open(listed, handle: handle)
            try KafkaError.check(rd_kafka_assign(handle, partitions.pointer), "assign")
            if let queues { queues.close(queues.partitions.filter { !listed.contains($0) }) }
        case (.revoke, true):
            try KafkaError.check(rd_kafka_incremental_unassign(handle, partitions.pointer))
            queues?.close(listed)
        case (.revoke, false), (.failure, _):
            try KafkaError.check(rd_kafka_assign(handle, nil), "unassign")
            queues?.closeAll()
        }
    }
}

/// The consumer's callback context, which holds its rebalances (see ``ConsumerRebalances``).
final class ConsumerContext: ClientContext, @unchecked Sendable {
    let rebalances = Mutex(ConsumerRebalances())
    /// The assigned partitions' own queues, when the consumer reads them in turns.
    let partitionQueues: PartitionQueues?

    init(
        logger: Logger, properties: [String: String], statistics: (@Sendable (KafkaStatistics) -> Void)?,
        partitionQueues: PartitionQueues?
    ) {
        self.partitionQueues = partitionQueues
        super.init(logger: logger, properties: properties, statistics: statistics)
    }

    /// The `rebalance_cb`. It runs inside librdkafka's poll on the consumer's thread.
    static let rebalanceCallback:
        @convention(c) (
            OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
            UnsafeMutableRawPointer?
        ) -> Void = { handle, err, partitions, opaque in
            guard let handle, let partitions, let context = ClientContext.from(opaque) as? ConsumerContext else {
                return
            }
            let kind: RebalanceEvent.Kind =
                switch err {
                case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS: .assign
                case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS: .revoke
                default: .failure(KafkaError(err))
                }
            let event = RebalanceEvent(
                kind: kind,
                partitions: NativePartitionList.copy(of: partitions),
                lost: rd_kafka_assignment_lost(handle) != 0,
                cooperative: String(cString: rd_kafka_rebalance_protocol(handle)) == "COOPERATIVE"
            )
            switch context.rebalances.withLock({ $0.reported(event) }) {
            case .answer:
                do { try event.apply(to: NativeHandle(pointer: handle), queues: context.partitionQueues) } catch {
                    context.logger.error("rebalance while closing failed: \(error)")
                }
                return
            case .wakePoll:
                break
            }
            // Make the batch poll in progress return, so the caller sees the rebalance promptly.
            context.partitionQueues?.wake()
            let queue = rd_kafka_queue_get_consumer(handle)
            rd_kafka_queue_yield(queue)
            rd_kafka_queue_destroy(queue)
        }
}
