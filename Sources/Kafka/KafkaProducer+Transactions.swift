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
        try await client.blocking("init transactions") { try $0.initTransactions(timeout: timeout) }
    }

    /// Starts a transaction; records sent from now on belong to it.
    public func beginTransaction() throws {
        try client.handle(for: "begin transaction").beginTransaction()
    }

    /// Adds consumer offsets to the transaction, so that they commit with its records.
    /// `offsets` are the offsets of the next records to read.
    public func sendOffsetsToTransaction(
        _ offsets: [TopicPartitionOffset],
        groupMetadata: ConsumerGroupMetadata,
        timeout: Duration = .seconds(60)
    ) async throws {
        try await client.blocking("send offsets to transaction") {
            try $0.sendOffsetsToTransaction(offsets, groupMetadata: groupMetadata, timeout: timeout)
        }
    }

    /// Delivers the transaction's records and commits it.
    public func commitTransaction(timeout: Duration = .seconds(60)) async throws {
        try await client.blocking("commit transaction") { try $0.commitTransaction(timeout: timeout) }
    }

    /// Aborts the transaction: consumers reading committed data never see its records.
    public func abortTransaction(timeout: Duration = .seconds(60)) async throws {
        try await client.blocking("abort transaction") { try $0.abortTransaction(timeout: timeout) }
    }
}
