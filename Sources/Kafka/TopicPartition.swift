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
