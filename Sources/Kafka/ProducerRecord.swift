import NIOCore

/// A record to send to Kafka.
public struct ProducerRecord: Sendable, Hashable {
    /// How the record's partition is chosen.
    public enum Partition: Sendable, Hashable {
        /// By the key with `murmur2_random` (the Java default); at random for a null key.
        case byKey
        /// This partition.
        case explicit(Int32)

        /// The partition's number; -1 to let the partitioner choose.
        var number: Int32 { explicitNumber ?? -1 }

        /// The partition's number; nil to let the partitioner choose.
        var explicitNumber: Int32? {
            if case .explicit(let partition) = self { partition } else { nil }
        }
    }

    /// The topic to send to.
    public var topic: String
    /// How to choose the partition.
    public var partition: Partition
    /// The key; nil for a null key.
    public var key: ByteBuffer?
    /// The value; nil for a null value.
    public var value: ByteBuffer?
    /// Headers, in order.
    public var headers: [KafkaHeader]
    /// The record's CreateTime in milliseconds since the epoch; nil lets librdkafka use now.
    public var timestamp: Int64?

    /// Creates a record.
    public init(
        topic: String,
        partition: Partition = .byKey,
        key: ByteBuffer? = nil,
        value: ByteBuffer?,
        headers: [KafkaHeader] = [],
        timestamp: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }
}
