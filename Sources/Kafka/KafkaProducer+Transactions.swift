import CRDKafka

/// Kafka transactions: records and consumer offsets committed together, or not at all.
///
/// The producer needs a ``KafkaProducerConfiguration/transactionalID``. Call
/// ``initTransactions(timeout:)`` once, then for each batch: ``beginTransaction()``, send records,
/// ``sendOffsetsToTransaction(_:groupMetadata:timeout:)``, ``commitTransaction(timeout:)``.
/// An error with ``KafkaError/transactionRequiresAbort`` calls for ``abortTransaction(timeout:)``;
/// a fatal one (such as a fenced producer) for a new producer.
extension KafkaProducer {
    /// Registers the transactional id with the cluster and fences older producers with the same id.
    public func initTransactions(timeout: Duration = .seconds(60)) async throws {
        try client.checkServing("init transactions")
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { try KafkaError.check(rd_kafka_init_transactions($0, ms)) }
    }

    /// Starts a transaction; records sent from now on belong to it.
    public func beginTransaction() throws {
        try client.checkServing("begin transaction")
        try KafkaError.check(rd_kafka_begin_transaction(client.handle))
    }

    /// Adds consumer offsets to the transaction, so that they commit with its records.
    /// `offsets` are the offsets of the next records to read.
    public func sendOffsetsToTransaction(
        _ offsets: [TopicPartitionOffset],
        groupMetadata: ConsumerGroupMetadata,
        timeout: Duration = .seconds(60)
    ) async throws {
        let list = NativePartitionList(offsets)
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { handle in
            try KafkaError.check(rd_kafka_send_offsets_to_transaction(handle, list.pointer, groupMetadata.pointer, ms))
        }
    }

    /// Delivers the transaction's records and commits it.
    public func commitTransaction(timeout: Duration = .seconds(60)) async throws {
        try client.checkServing("commit transaction")
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { try KafkaError.check(rd_kafka_commit_transaction($0, ms)) }
    }

    /// Aborts the transaction: consumers reading committed data never see its records.
    public func abortTransaction(timeout: Duration = .seconds(60)) async throws {
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { try KafkaError.check(rd_kafka_abort_transaction($0, ms)) }
    }
}

/// A consumer's group metadata (`rd_kafka_consumer_group_metadata_t`), which ties offsets sent to a
/// transaction to the consumer's group generation. Get it from ``KafkaConsumer/groupMetadata()``.
public final class ConsumerGroupMetadata: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// The metadata of `groupID` with no consumer behind it, of no generation: for a producer
    /// that commits offsets of a group whose records it read some other way.
    public convenience init(groupID: String) {
        self.init(owning: rd_kafka_consumer_group_metadata_new(groupID))
    }

    deinit { rd_kafka_consumer_group_metadata_destroy(pointer) }
}
