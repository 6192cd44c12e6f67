import CRDKafka

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
