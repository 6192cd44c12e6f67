import NIOCore

/// A record read from Kafka.
///
/// Key and value are slices of a buffer shared by the records of one poll; a record kept for
/// long keeps that buffer alive, so copy out what you keep.
public struct ConsumerRecord: Sendable, Hashable {
    /// Where the record is.
    public var topicPartition: TopicPartition
    /// Its offset in the partition.
    public var offset: Int64
    /// The key; nil for a null key.
    public var key: ByteBuffer?
    /// The value; nil for a null value (a tombstone).
    public var value: ByteBuffer?
    /// The record's headers, in order.
    public var headers: [KafkaHeader]
    /// The timestamp, when the record has one.
    public var timestamp: KafkaTimestamp?

    /// Creates a record (for tests and for code that replays records).
    public init(
        topicPartition: TopicPartition,
        offset: Int64,
        key: ByteBuffer?,
        value: ByteBuffer?,
        headers: [KafkaHeader] = [],
        timestamp: KafkaTimestamp? = nil
    ) {
        self.topicPartition = topicPartition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// The topic's name.
    public var topic: String { topicPartition.topic }
    /// The partition's number.
    public var partition: Int32 { topicPartition.partition }
}
