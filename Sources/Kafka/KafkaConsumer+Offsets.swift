/// Offsets, positions and flow control.
extension KafkaConsumer {
    /// Commits offsets for the group and waits for the broker's answer. Each offset is that of the
    /// next record to read (last processed + 1).
    public func commit(_ offsets: [TopicPartitionOffset]) async throws {
        // A listener commits what it did when the close revokes its partitions.
        try client.checkServing("commit", duringClose: true)
        guard !offsets.isEmpty else { return }
        try await client.blocking { try $0.commit(offsets) }
    }

    /// The group's committed offsets for the partitions (``KafkaOffset/committed`` where none).
    public func committed(_ partitions: [TopicPartition], timeout: Duration = .seconds(10)) async throws
        -> [TopicPartitionOffset]
    {
        try client.checkServing("committed offsets")
        return try await client.blocking { try $0.committed(partitions, timeout: timeout) }
    }

    /// Moves the read position of assigned partitions.
    public func seek(_ offsets: [TopicPartitionOffset], timeout: Duration = .seconds(10)) async throws {
        try client.checkServing("seek")
        try await client.blocking { try $0.seek(offsets, timeout: timeout) }
    }

    /// The offset of the next record this consumer will return from each partition (nil where
    /// it has none yet). Never waits.
    public func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        try client.checkServing("positions")
        return try client.native.positions(partitions)
    }

    /// The partition's high watermark as the last fetch reported it: the offset after the last
    /// record written, in a finished transaction or not (a read_committed consumer's end is the
    /// last stable offset, which can be lower). Nil before any fetch answered, and after close.
    /// Never waits.
    public func highWatermark(of partition: TopicPartition) -> Int64? {
        guard (try? client.checkServing("high watermark")) != nil else { return nil }
        return client.native.highWatermark(of: partition)
    }

    /// Stops fetching from the partitions until ``resume(_:)``; their position is kept.
    public func pause(_ partitions: [TopicPartition]) throws {
        try client.checkServing("pause")
        try client.native.pause(partitions)
    }

    /// Fetches again from paused partitions.
    public func resume(_ partitions: [TopicPartition]) throws {
        try client.checkServing("resume")
        try client.native.resume(partitions)
    }

    /// The partitions currently assigned to this consumer.
    public func assignment() throws -> [TopicPartition] {
        try client.checkServing("assignment", duringClose: true)
        return try client.native.assignment()
    }

    /// The group metadata to pass to ``KafkaProducer/sendOffsetsToTransaction(_:groupMetadata:timeout:)``.
    public func groupMetadata() throws -> ConsumerGroupMetadata {
        try client.checkServing("group metadata", duringClose: true)
        return try client.native.groupMetadata()
    }
}
