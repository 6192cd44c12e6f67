import CRDKafka

/// One partition of one topic.
public struct TopicPartition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The topic's name.
    public var topic: String
    /// The partition's number.
    public var partition: Int32

    /// Names a partition.
    public init(_ topic: String, _ partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }

    public static func < (lhs: TopicPartition, rhs: TopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }
}

/// An offset within a partition: a position to commit, seek to or start from.
public struct TopicPartitionOffset: Sendable, Hashable, CustomStringConvertible {
    /// The partition.
    public var topicPartition: TopicPartition
    /// The offset. For a commit: the offset of the next record to read.
    public var offset: Int64

    /// Names an offset in a partition.
    public init(_ topicPartition: TopicPartition, offset: Int64) {
        self.topicPartition = topicPartition
        self.offset = offset
    }

    public var description: String { "\(topicPartition)@\(offset)" }
}

/// An owned `rd_kafka_topic_partition_list_t`.
final class NativePartitionList: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// Takes ownership of `pointer`.
    init(owning pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) {
        self.pointer = pointer
    }

    /// A list of partitions with the given offsets (`RD_KAFKA_OFFSET_INVALID` where nil).
    convenience init(_ entries: [(TopicPartition, Int64?)]) {
        // librdkafka's allocators abort rather than return NULL, so these unwraps cannot fail.
        let list = rd_kafka_topic_partition_list_new(Int32(entries.count))!
        for (topicPartition, offset) in entries {
            let element = rd_kafka_topic_partition_list_add(list, topicPartition.topic, topicPartition.partition)!
            element.pointee.offset = offset ?? Int64(RD_KAFKA_OFFSET_INVALID)
        }
        self.init(owning: list)
    }

    convenience init(_ partitions: [TopicPartition]) {
        self.init(partitions.map { ($0, nil) })
    }

    convenience init(_ offsets: [TopicPartitionOffset]) {
        self.init(offsets.map { ($0.topicPartition, $0.offset) })
    }

    /// A copy of a list librdkafka owns.
    static func copy(of list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> NativePartitionList {
        NativePartitionList(owning: rd_kafka_topic_partition_list_copy(list))
    }

    /// Each entry's partition, offset and error.
    var entries: [(partition: TopicPartition, offset: Int64, error: rd_kafka_resp_err_t)] {
        let list = pointer.pointee
        return (0..<Int(list.cnt)).map { index in
            let element = list.elems[index]
            return (TopicPartition(String(cString: element.topic), element.partition), element.offset, element.err)
        }
    }

    var partitions: [TopicPartition] { entries.map(\.partition) }

    /// Throws the first per-partition error, if any.
    func checkErrors(_ context: String) throws {
        for entry in entries where entry.error != RD_KAFKA_RESP_ERR_NO_ERROR {
            try KafkaError.check(entry.error, "\(context) \(entry.partition)")
        }
    }

    deinit { rd_kafka_topic_partition_list_destroy(pointer) }
}
