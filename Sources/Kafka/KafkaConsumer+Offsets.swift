import CRDKafka

/// Offsets, positions and flow control.
extension KafkaConsumer {
    /// Commits offsets for the group and waits for the broker's answer. Each offset is that of the
    /// next record to read (last processed + 1).
    public func commit(_ offsets: [TopicPartitionOffset]) async throws {
        // A listener commits what it did when the close revokes its partitions.
        try client.checkServing("commit", duringClose: true)
        guard !offsets.isEmpty else { return }
        let list = NativePartitionList(offsets)
        try await client.blocking { handle in
            try KafkaError.check(rd_kafka_commit(handle, list.pointer, 0), "commit")
            try list.checkErrors("commit")
        }
    }

    /// The group's committed offsets for the partitions (``KafkaOffset/committed`` where none).
    public func committed(_ partitions: [TopicPartition], timeout: Duration = .seconds(10)) async throws
        -> [TopicPartitionOffset]
    {
        let list = NativePartitionList(partitions)
        let ms = Int32(timeout.milliseconds)
        return try await client.blocking { handle in
            try KafkaError.check(rd_kafka_committed(handle, list.pointer, ms), "committed offsets")
            return list.entries.map { TopicPartitionOffset($0.partition, offset: $0.offset) }
        }
    }

    /// Moves the read position of assigned partitions.
    public func seek(_ offsets: [TopicPartitionOffset], timeout: Duration = .seconds(10)) async throws {
        let list = NativePartitionList(offsets)
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { handle in
            try KafkaError.check(rd_kafka_seek_partitions(handle, list.pointer, ms))
            try list.checkErrors("seek")
        }
    }

    /// The offset of the next record this consumer will return from each partition (nil where
    /// it has none yet). Never waits.
    public func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_position(client.handle, list.pointer), "position")
        return Dictionary(list.entries.filter { $0.offset >= 0 }.map { ($0.partition, $0.offset) }) { $1 }
    }

    /// The partition's high watermark as the last fetch reported it: the offset after the last
    /// record written, in a finished transaction or not (a read_committed consumer's end is the
    /// last stable offset, which can be lower). Nil before any fetch answered. Never waits.
    public func highWatermark(of partition: TopicPartition) -> Int64? {
        var low: Int64 = -1
        var high: Int64 = -1
        let err = rd_kafka_get_watermark_offsets(client.handle, partition.topic, partition.partition, &low, &high)
        return err == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0 ? high : nil
    }

    /// Stops fetching from the partitions until ``resume(_:)``; their position is kept.
    public func pause(_ partitions: [TopicPartition]) throws {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_pause_partitions(client.handle, list.pointer), "pause")
        try list.checkErrors("pause")
    }

    /// Fetches again from paused partitions.
    public func resume(_ partitions: [TopicPartition]) throws {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_resume_partitions(client.handle, list.pointer), "resume")
        try list.checkErrors("resume")
    }

    /// The partitions currently assigned to this consumer.
    public func assignment() throws -> [TopicPartition] {
        var pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        try KafkaError.check(rd_kafka_assignment(client.handle, &pointer), "assignment")
        guard let pointer else { return [] }
        return NativePartitionList(owning: pointer).partitions.sorted()
    }

    /// The group metadata to pass to ``KafkaProducer/sendOffsetsToTransaction(_:groupMetadata:timeout:)``.
    public func groupMetadata() throws -> ConsumerGroupMetadata {
        guard let pointer = rd_kafka_consumer_group_metadata(client.handle) else {
            throw KafkaError.invalidArgument("the consumer has no group metadata (no group.id?)")
        }
        return ConsumerGroupMetadata(owning: pointer)
    }
}
