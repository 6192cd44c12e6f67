/// Offsets, positions and flow control.
extension KafkaConsumer {
    /// Commits offsets for the group and waits for the broker's answer. Each offset is that of the
    /// next record to read (last processed + 1).
    public func commit(_ offsets: [TopicPartitionOffset]) async throws {
        // A listener commits what it did when the close revokes its partitions.
        guard !offsets.isEmpty else { return }
        try await client.blocking("commit", duringClose: true) { try $0.commit(offsets) }
    }

    /// The group's committed offsets for the partitions (``KafkaOffset/committed`` where none).
    public func committed(_ partitions: [TopicPartition], timeout: Duration = .seconds(10)) async throws
        -> [TopicPartitionOffset]
    {
        try await client.blocking("committed offsets") { try $0.committed(partitions, timeout: timeout) }
    }

    /// Moves the read position of assigned partitions.
    public func seek(_ offsets: [TopicPartitionOffset], timeout: Duration = .seconds(10)) async throws {
        try await client.blocking("seek") { try $0.seek(offsets, timeout: timeout) }
    }

    /// The offset of the next record this consumer will return from each partition (nil where
    /// it has none yet). Never waits.
    public func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        try client.handle(for: "positions").positions(partitions)
    }

    /// The partition's high watermark as the last fetch reported it: the offset after the last
    /// record written, in a finished transaction or not (a read_committed consumer's end is the
    /// last stable offset, which can be lower). Nil before any fetch answered, and after close.
    /// Never waits.
    public func highWatermark(of partition: TopicPartition) -> Int64? {
        (try? client.handle(for: "high watermark"))?.highWatermark(of: partition)
    }

    /// Stops fetching from the partitions until ``resume(_:)``; their position is kept.
    public func pause(_ partitions: [TopicPartition]) throws {
        try client.handle(for: "pause").pause(partitions)
    }

    /// Fetches again from paused partitions, at once: waits up to a second for their leaders to
    /// answer a request that wakes librdkafka's fetchers (a second is what librdkafka's fetcher
    /// would sleep without it), finding leaders it does not know included. Throws
    /// `CancellationError`, resuming nothing, when the task is cancelled.
    public func resume(_ partitions: [TopicPartition]) async throws {
        try await client.blocking("resume") { try $0.resume(partitions, wakeTimeout: .seconds(1)) }
    }

    /// The partitions currently assigned to this consumer.
    public func assignment() throws -> [TopicPartition] {
        try client.handle(for: "assignment", duringClose: true).assignment()
    }

    /// The group metadata to pass to ``KafkaProducer/sendOffsetsToTransaction(_:groupMetadata:timeout:)``.
    public func groupMetadata() throws -> ConsumerGroupMetadata {
        try client.handle(for: "group metadata", duringClose: true).groupMetadata()
    }
}
