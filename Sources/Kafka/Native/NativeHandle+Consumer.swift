import CRDKafka

/// A consumer's calls.
extension NativeHandle {
    func subscribe(_ topics: [String]) throws {
        let list = NativePartitionList(topics.map { TopicPartition($0, RD_KAFKA_PARTITION_UA) })
        try KafkaError.check(rd_kafka_subscribe(pointer, list.pointer), "subscribe to \(topics)")
    }

    /// Learns the topics' leaders first (a metadata request per topic, all within
    /// `metadataTimeout`), then assigns: librdkafka resolves a logical offset of a partition
    /// whose leader it does not know yet only after a 500 ms retry. A metadata error is left to
    /// the assignment, which retries on its own. Blocks.
    func assign(_ offsets: [TopicPartitionOffset], metadataTimeout: Duration) throws {
        let list = NativePartitionList(offsets)
        let topics = Set(offsets.map(\.topicPartition.topic))
        // The topics stay known to librdkafka until the assignment holds them.
        let topicHandles = topics.compactMap { rd_kafka_topic_new(pointer, $0, nil) }
        defer { for topicHandle in topicHandles { rd_kafka_topic_destroy(topicHandle) } }
        let deadline = ContinuousClock.now + metadataTimeout
        for topicHandle in topicHandles {
            let remaining = Int32(clamping: max(0, (deadline - .now).milliseconds))
            var metadata: UnsafePointer<rd_kafka_metadata>?
            if rd_kafka_metadata(pointer, 0, topicHandle, &metadata, remaining) == RD_KAFKA_RESP_ERR_NO_ERROR,
                let metadata
            {
                rd_kafka_metadata_destroy(metadata)
            }
        }
        try KafkaError.check(rd_kafka_assign(pointer, list.pointer), "assign")
    }

    /// Commits offsets and waits for the broker's answer. Blocks.
    func commit(_ offsets: [TopicPartitionOffset]) throws {
        let list = NativePartitionList(offsets)
        try KafkaError.check(rd_kafka_commit(pointer, list.pointer, 0), "commit")
        try list.checkErrors("commit")
    }

    /// The group's committed offsets. Blocks.
    func committed(_ partitions: [TopicPartition], timeout: Duration) throws -> [TopicPartitionOffset] {
        let list = NativePartitionList(partitions)
        try KafkaError.check(
            rd_kafka_committed(pointer, list.pointer, Int32(clamping: timeout.milliseconds)), "committed offsets")
        return list.entries.map { TopicPartitionOffset($0.partition, offset: $0.offset) }
    }

    /// Moves the read position of assigned partitions. Blocks.
    func seek(_ offsets: [TopicPartitionOffset], timeout: Duration) throws {
        let list = NativePartitionList(offsets)
        try KafkaError.check(rd_kafka_seek_partitions(pointer, list.pointer, Int32(clamping: timeout.milliseconds)))
        try list.checkErrors("seek")
    }

    /// The next offset of each partition that has one.
    func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_position(pointer, list.pointer), "position")
        return Dictionary(list.entries.filter { $0.offset >= 0 }.map { ($0.partition, $0.offset) }) { $1 }
    }

    /// The high watermark the last fetch reported; nil before any.
    func highWatermark(of partition: TopicPartition) -> Int64? {
        var low: Int64 = -1
        var high: Int64 = -1
        let err = rd_kafka_get_watermark_offsets(pointer, partition.topic, partition.partition, &low, &high)
        return err == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0 ? high : nil
    }

    func pause(_ partitions: [TopicPartition]) throws {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_pause_partitions(pointer, list.pointer), "pause")
        try list.checkErrors("pause")
    }

    /// Resumes the partitions, then wakes the threads of their leaders. Blocks up to `wakeTimeout`.
    func resume(_ partitions: [TopicPartition], wakeTimeout: Duration) throws {
        let list = NativePartitionList(partitions)
        try KafkaError.check(rd_kafka_resume_partitions(pointer, list.pointer), "resume")
        try list.checkErrors("resume")
        wakeFetchers(of: partitions, timeout: wakeTimeout)
    }

    /// librdkafka (2.8) makes a resumed partition that has a position fetchable again without
    /// waking the thread of its leader, which sleeps up to a second when none of its partitions
    /// was fetchable (`rd_kafka_toppar_pause_resume`). Any request to the leader wakes that
    /// thread, which then fetches: one ListOffsets request per leader, whose answer is not
    /// needed. Without it (an error, a timeout) the fetch starts when the thread wakes anyway.
    private func wakeFetchers(of partitions: [TopicPartition], timeout: Duration) {
        guard !partitions.isEmpty else { return }
        let latest = NativePartitionList(partitions.map { ($0, Int64(RD_KAFKA_OFFSET_END)) })
        _ = rd_kafka_offsets_for_times(pointer, latest.pointer, Int32(clamping: timeout.milliseconds))
    }

    /// The partitions assigned now, in order.
    func assignment() throws -> [TopicPartition] {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        try KafkaError.check(rd_kafka_assignment(pointer, &list), "assignment")
        guard let list else { return [] }
        return NativePartitionList(owning: list).partitions.sorted()
    }

    func groupMetadata() throws -> ConsumerGroupMetadata {
        guard let metadata = rd_kafka_consumer_group_metadata(pointer) else {
            throw KafkaError.invalidArgument("the consumer has no group metadata (no group.id?)")
        }
        return ConsumerGroupMetadata(owning: metadata)
    }

    /// Has librdkafka write to `wakeUps` when the consumer queue (rebalances, errors) gets
    /// something, so that a poll waiting for its partitions' queues wakes for it too.
    func watchConsumerQueue(with wakeUps: WakeUpPipe) {
        guard let queue = rd_kafka_queue_get_consumer(pointer) else { return }
        wakeUps.watch(queue)
        rd_kafka_queue_destroy(queue)
    }

    /// Answers `unanswered` rebalances, then leaves the group. Blocks.
    func closeConsumer(answering unanswered: [RebalanceEvent], context: ConsumerContext) throws {
        for event in unanswered { try? event.apply(to: self, context: context) }
        try KafkaError.check(rd_kafka_consumer_close(pointer), "close consumer")
    }
}
