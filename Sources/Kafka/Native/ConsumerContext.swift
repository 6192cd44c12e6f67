import CRDKafka
import Logging
import NIOConcurrencyHelpers

/// A consumer's state with librdkafka's handle and partition queues inside.
typealias NativeConsumerState = ConsumerStateMachine<NativeHandle, PartitionQueue>

/// The consumer's callback context, which holds its state (see ``ConsumerStateMachine``): the
/// rebalance callback reports into it, and the consumer's client keeps its handle in it.
final class ConsumerContext: ClientContext, @unchecked Sendable {
    /// The consumer's one state, behind one lock, shared with its ``KafkaClient``.
    let state: NIOLockedValueBox<NativeConsumerState>
    /// What a poll that finds nothing waits on, when the consumer reads partitions in turns.
    let wakeUps: WakeUpPipe?

    init(
        logger: Logger, properties: [String: String], statistics: (@Sendable (KafkaStatistics) -> Void)?,
        turns: PartitionTurns?
    ) throws(KafkaError) {
        state = NIOLockedValueBox(ConsumerStateMachine(turns: turns))
        wakeUps = try turns.map { _ throws(KafkaError) in try WakeUpPipe() }
        super.init(logger: logger, properties: properties, statistics: statistics)
    }

    /// Whether the consumer reads each assigned partition from a queue of its own.
    var readsInTurns: Bool { wakeUps != nil }

    /// Makes the queues of `partitions` about to be assigned; call it before the assignment.
    func openQueues(_ partitions: [TopicPartition], handle: OpaquePointer) {
        guard let wakeUps, !partitions.isEmpty else { return }
        state.withLockedValue { state in
            state.openQueues(partitions) { PartitionQueue(of: $0, handle: handle, wakeUps: wakeUps) }
        }
    }

    /// Destroys the queues of the partitions that are `taken back`; call it after the unassignment.
    func closeQueues(_ takenBack: (TopicPartition) -> Bool) {
        guard let wakeUps else { return }
        let queues = state.withLockedValue { state in
            state.closeQueues(state.partitionsWithQueues.filter(takenBack))
        }
        for queue in queues { queue.destroy(wakeUps: wakeUps) }
    }

    /// Takes, without waiting, each partition's turn into `storage` (at most `capacity` messages)
    /// and returns how many it took. Reading happens inside the state's lock, so that no queue is
    /// destroyed while it is read.
    func takeTurns(into storage: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>, capacity: Int)
        -> Int
    {
        guard capacity > 0 else { return 0 }
        return state.withLockedValue { state in
            var count = 0
            for (queue, planned) in state.planTurns(waiting: \.length, maxRecords: capacity) {
                count += queue.take(planned, into: storage + count)
            }
            return count
        }
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
            switch context.state.withLockedValue({ $0.reported(event) }) {
            case .answer(let native):
                do { try event.apply(to: native, context: context) } catch {
                    context.logger.error("rebalance while closing failed: \(error)")
                }
            case .ignore:
                context.logger.debug("rebalance reported outside the consumer's life: ignored")
            case .wakePoll:
                // Make the batch poll in progress return, so the caller sees the rebalance promptly.
                context.wakeUps?.wake()
                let queue = rd_kafka_queue_get_consumer(handle)
                rd_kafka_queue_yield(queue)
                rd_kafka_queue_destroy(queue)
            }
        }
}
