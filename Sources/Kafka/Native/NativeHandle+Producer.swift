import CRDKafka

/// A producer's calls.
extension NativeHandle {
    /// Serves delivery reports for up to `timeout`. Blocks.
    func serveDeliveryReports(timeout: Duration) {
        _ = rd_kafka_poll(pointer, Int32(clamping: timeout.milliseconds))
    }

    /// Waits until every record in flight is delivered or failed, within `timeout`. Blocks.
    func flush(timeout: Duration) throws {
        try KafkaError.check(rd_kafka_flush(pointer, Int32(clamping: timeout.milliseconds)), "flush")
    }

    /// Gives up every record in flight: their reports say so (`_PURGE_QUEUE`, `_PURGE_INFLIGHT`)
    /// and are served within `timeout`. Blocks.
    func purgeInFlight(timeout: Duration) {
        _ = rd_kafka_purge(pointer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
        _ = rd_kafka_flush(pointer, Int32(clamping: timeout.milliseconds))
    }

    /// Blocks.
    func initTransactions(timeout: Duration) throws {
        try KafkaError.check(rd_kafka_init_transactions(pointer, Int32(clamping: timeout.milliseconds)))
    }

    func beginTransaction() throws {
        try KafkaError.check(rd_kafka_begin_transaction(pointer))
    }

    /// Blocks.
    func sendOffsetsToTransaction(
        _ offsets: [TopicPartitionOffset], groupMetadata: ConsumerGroupMetadata, timeout: Duration
    ) throws {
        let list = NativePartitionList(offsets)
        try KafkaError.check(
            rd_kafka_send_offsets_to_transaction(
                pointer, list.pointer, groupMetadata.pointer, Int32(clamping: timeout.milliseconds)))
    }

    /// Blocks.
    func commitTransaction(timeout: Duration) throws {
        try KafkaError.check(rd_kafka_commit_transaction(pointer, Int32(clamping: timeout.milliseconds)))
    }

    /// Blocks.
    func abortTransaction(timeout: Duration) throws {
        try KafkaError.check(rd_kafka_abort_transaction(pointer, Int32(clamping: timeout.milliseconds)))
    }
}
