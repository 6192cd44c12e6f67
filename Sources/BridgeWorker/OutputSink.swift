import BridgeCore
import Kafka

/// What the committer needs of the producer of its outputs: the committer is written against
/// this, not against ``KafkaProducer``, so that its logic is tested without a broker.
protocol OutputSink: Sendable {
    /// Hands every output to the producer; their delivery reports follow.
    func enqueue(_ outputs: borrowing OutputRecords) async throws -> PendingDeliveries
    /// Hands every output to the producer inside the open transaction.
    func enqueueInTransaction(_ outputs: borrowing OutputRecords) async throws
    /// Hands every output to the producer inside the open transaction; returns the delivery
    /// reports of the outputs of `topic`, the n-th for the n-th of them.
    func enqueueInTransaction(_ outputs: borrowing OutputRecords, reportingOn topic: OutputTopic) async throws
        -> PendingDeliveries
    /// Starts a transaction.
    func beginTransaction() throws
    /// Adds consumer offsets to the open transaction.
    func sendOffsetsToTransaction(_ offsets: [TopicPartitionOffset], groupMetadata: ConsumerGroupMetadata)
        async throws
    /// Commits the open transaction.
    func commitTransaction() async throws
    /// Aborts the open transaction.
    func abortTransaction() async throws
}
