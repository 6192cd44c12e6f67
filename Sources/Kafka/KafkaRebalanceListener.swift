/// The caller's part in a consumer-group rebalance.
///
/// The consumer calls these from ``KafkaConsumer/poll(maxRecords:timeout:)``, on the caller's
/// task, between batches: every record returned before a revocation has been handed to the
/// caller, and librdkafka gives the partitions up only after ``partitionsRevoked(_:lost:consumer:)``
/// returns. So a caller can flush its outputs and commit their offsets, or drop per-partition
/// state, before another member takes over; and can restore state in
/// ``partitionsAssigned(_:consumer:)`` before any record of a new partition reaches it.
public protocol KafkaRebalanceListener: Sendable {
    /// Partitions are about to be taken away. When `lost` is true, they were taken already
    /// (the member was kicked from the group): commits for them will fail, so drop state only.
    func partitionsRevoked(_ partitions: [TopicPartition], lost: Bool, consumer: KafkaConsumer) async throws

    /// Partitions were assigned to this member; none of their records has been returned yet.
    func partitionsAssigned(_ partitions: [TopicPartition], consumer: KafkaConsumer) async throws
}
