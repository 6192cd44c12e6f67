import CRDKafka

/// A group consumer's own queue of one assigned partition (`rd_kafka_queue_get_partition`), not
/// forwarded to the consumer queue: what ``AssignedQueues`` holds in the consumer.
struct PartitionQueue: @unchecked Sendable {
    // Unchecked: used only inside the consumer state's lock, or after being taken out of it to be
    // destroyed.
    let pointer: OpaquePointer

    /// The queue of `partition`, made before its assignment starts fetching, so that librdkafka
    /// never forwards its records to the consumer queue; `wakeUps` is written to when it gets
    /// something. Nil when librdkafka has no such partition.
    init?(of partition: TopicPartition, handle: OpaquePointer, wakeUps: WakeUpPipe) {
        guard let queue = rd_kafka_queue_get_partition(handle, partition.topic, partition.partition) else {
            return nil
        }
        rd_kafka_queue_forward(queue, nil)
        wakeUps.watch(queue)
        pointer = queue
    }

    /// Messages waiting in it.
    var length: Int { Int(rd_kafka_queue_length(pointer)) }

    /// Takes up to `count` messages into `storage` without waiting; returns how many.
    func take(_ count: Int, into storage: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>) -> Int {
        max(0, rd_kafka_consume_batch_queue(pointer, 0, storage, count))
    }

    /// Releases the queue; it is not used after.
    func destroy(wakeUps: WakeUpPipe) {
        wakeUps.unwatch(pointer)
        rd_kafka_queue_destroy(pointer)
    }
}
