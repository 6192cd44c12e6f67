/// Whose state a ``PartitionStore`` holds: a consumer group's changelog partition.
public struct StoreIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The consumer group.
    public var group: String
    /// The changelog topic.
    public var topic: String
    /// The changelog partition (the state partition).
    public var partition: Int32

    /// The state of `group`'s changelog partition `topic`[`partition`].
    public init(group: String, topic: String, partition: Int32) {
        self.group = group
        self.topic = topic
        self.partition = partition
    }

    /// `topic[partition] of group "group"`.
    public var description: String { "\(topic)[\(partition)] of group \"\(group)\"" }
}
