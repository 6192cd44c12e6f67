import CRDKafka
import Glibc
import Synchronization

/// A group consumer's own queue for each assigned partition, read in turns (``PartitionTurns``)
/// instead of through librdkafka's one consumer queue, where a partition's backlog is fetched
/// ahead of every other partition's next record.
///
/// A queue is made, and its forwarding to the consumer queue turned off, before its partition's
/// assignment starts fetching, and it is destroyed once the partition is taken back. librdkafka
/// prefetches up to `queued.max.messages.kbytes` into each. A poll that finds nothing waits on
/// one pipe, which librdkafka writes to when any of the queues, or the consumer queue, gets
/// something while empty.
final class PartitionQueues: @unchecked Sendable {
    // Unchecked: the queues and the turns are behind `state`'s lock; the pipe is fixed.
    private struct State: @unchecked Sendable {
        var queues: [TopicPartition: OpaquePointer] = [:]
        var turns: TurnRotation
    }

    private let state: Mutex<State>
    /// The pipe a poll that finds nothing waits on (both ends non-blocking): read end, write end.
    private let wakeUps: (read: Int32, write: Int32)

    init(turns: PartitionTurns) throws(KafkaError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw KafkaError(
                RD_KAFKA_RESP_ERR__FAIL, message: "cannot make the consumer's wake-up pipe: errno \(errno)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.wakeUps = (ends[0], ends[1])
        self.state = Mutex(State(turns: TurnRotation(turns)))
    }

    deinit {
        Glibc.close(wakeUps.read)
        Glibc.close(wakeUps.write)
    }

    /// Has librdkafka wake a waiting poll when the consumer queue (rebalances, errors) gets
    /// something.
    func watchConsumerQueue(of handle: OpaquePointer) {
        guard let queue = rd_kafka_queue_get_consumer(handle) else { return }
        enableWakeUp(queue)
        rd_kafka_queue_destroy(queue)
    }

    /// Makes the queues of `partitions` about to be assigned; call it before the assignment.
    func open(_ partitions: [TopicPartition], handle: OpaquePointer) {
        state.withLock { state in
            var opened: [TopicPartition] = []
            for partition in partitions where state.queues[partition] == nil {
                guard let queue = rd_kafka_queue_get_partition(handle, partition.topic, partition.partition) else {
                    continue
                }
                rd_kafka_queue_forward(queue, nil)
                enableWakeUp(queue)
                state.queues[partition] = queue
                opened.append(partition)
            }
            state.turns.add(opened)
        }
    }

    /// Destroys the queues of `partitions`, taken back; call it after the unassignment.
    func close(_ partitions: [TopicPartition]) {
        state.withLock { state in
            for partition in partitions {
                guard let queue = state.queues.removeValue(forKey: partition) else { continue }
                rd_kafka_queue_io_event_enable(queue, -1, nil, 0)
                rd_kafka_queue_destroy(queue)
            }
            state.turns.remove(partitions)
        }
    }

    /// Destroys every queue: the consumer closed, or is about to be destroyed.
    func closeAll() {
        close(state.withLock { Array($0.queues.keys) })
    }

    /// The partitions with a queue, in turn order.
    var partitions: [TopicPartition] { state.withLock { $0.turns.partitions } }

    /// Takes, without waiting, each partition's turn into `storage` (at most `capacity` messages)
    /// and returns how many it took.
    func takeTurns(into storage: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>, capacity: Int)
        -> Int
    {
        guard capacity > 0 else { return 0 }
        return state.withLock { state in
            let queues = state.queues
            let plan = state.turns.plan(
                waiting: { queues[$0].map { Int(rd_kafka_queue_length($0)) } ?? 0 }, maxRecords: capacity)
            var count = 0
            for (partition, planned) in plan {
                guard let queue = queues[partition] else { continue }
                count += max(0, rd_kafka_consume_batch_queue(queue, 0, storage + count, planned))
            }
            return count
        }
    }

    /// Forgets earlier wake-ups: call it before looking at the queues, so that anything arriving
    /// after the look wakes the next ``wait(milliseconds:)``.
    func clearWakeUps() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(wakeUps.read, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
    }

    /// Waits until a queue gets something, ``wake()`` is called, or `milliseconds` pass.
    func wait(milliseconds: Int32) {
        var descriptor = pollfd(fd: wakeUps.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, max(0, milliseconds))
    }

    /// Ends a ``wait(milliseconds:)`` in progress, or the next one.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeUps.write, &byte, 1)
    }

    private func enableWakeUp(_ queue: OpaquePointer) {
        withUnsafeBytes(of: UInt8(1)) { one in
            rd_kafka_queue_io_event_enable(queue, wakeUps.write, one.baseAddress, one.count)
        }
    }
}
