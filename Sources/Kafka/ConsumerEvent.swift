/// What a ``KafkaConsumer/poll(maxRecords:timeout:)`` returns, in the order it happened.
public enum ConsumerEvent: Sendable, Hashable {
    /// A record.
    case record(ConsumerRecord)
    /// The consumer has read everything in the partition so far; `offset` is the next offset
    /// (the partition's end). Only with ``KafkaConsumerConfiguration/reportsEndOfPartition``.
    case endOfPartition(TopicPartition, offset: Int64)
    /// Partitions were assigned to this member; none of their records has been returned yet.
    /// Only for a group consumer created without a ``KafkaRebalanceListener``, and always alone.
    case partitionsAssigned([TopicPartition])
    /// Partitions are about to be taken away: librdkafka gives them up at the next
    /// ``KafkaConsumer/poll(maxRecords:timeout:)`` (or ``KafkaConsumer/close()``), so the caller
    /// commits what it did with their records, or drops their state, first. When `lost` is true
    /// they were taken already (the member was kicked from the group) and commits will fail.
    /// Only for a group consumer created without a ``KafkaRebalanceListener``, and always alone.
    case partitionsRevoked([TopicPartition], lost: Bool)
}

/// Special offsets for ``KafkaConsumer/assign(_:)`` and ``KafkaConsumer/seek(_:timeout:)``.
public enum KafkaOffset {
    /// The partition's first record.
    public static let beginning: Int64 = -2
    /// The partition's end: only records written from now on.
    public static let end: Int64 = -1
    /// The group's committed offset (else `auto.offset.reset`).
    public static let committed: Int64 = -1000
}
