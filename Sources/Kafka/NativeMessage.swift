import CRDKafka

/// Turns librdkafka's consumed messages into ``ConsumerEvent``s. One converter serves one batch;
/// it remembers topic names so a batch makes one `String` per topic, not per record.
struct NativeMessageConverter {
    private var topicNames: [OpaquePointer: String] = [:]

    /// The event for a message, or the error it carries.
    mutating func event(for message: UnsafeMutablePointer<rd_kafka_message_t>) -> Result<ConsumerEvent, KafkaError> {
        let m = message.pointee
        let topicPartition = TopicPartition(topicName(m.rkt), m.partition)
        switch m.err {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
            return .success(.record(record(message, topicPartition)))
        case RD_KAFKA_RESP_ERR__PARTITION_EOF:
            return .success(.endOfPartition(topicPartition, offset: m.offset))
        default:
            let text = m.payload.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            return .failure(KafkaError(m.err, message: "\(topicPartition): \(text ?? String(cString: rd_kafka_err2str(m.err)))"))
        }
    }

    private mutating func topicName(_ topic: OpaquePointer?) -> String {
        guard let topic else { return "" }
        if let name = topicNames[topic] { return name }
        let name = String(cString: rd_kafka_topic_name(topic))
        topicNames[topic] = name
        return name
    }

    private func record(_ message: UnsafeMutablePointer<rd_kafka_message_t>, _ topicPartition: TopicPartition) -> ConsumerRecord {
        let m = message.pointee
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &timestampType)
        let timestamp: KafkaTimestamp? = switch timestampType {
        case RD_KAFKA_TIMESTAMP_CREATE_TIME: KafkaTimestamp(milliseconds: milliseconds, kind: .createTime)
        case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME: KafkaTimestamp(milliseconds: milliseconds, kind: .logAppendTime)
        default: nil
        }
        return ConsumerRecord(
            topicPartition: topicPartition,
            offset: m.offset,
            key: Self.bytes(m.key, m.key_len),
            value: Self.bytes(m.payload, m.len),
            headers: Self.headers(of: message),
            timestamp: timestamp
        )
    }

    private static func bytes(_ pointer: UnsafeMutableRawPointer?, _ count: Int) -> [UInt8]? {
        guard let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var native: OpaquePointer?
        guard rd_kafka_message_headers(message, &native) == RD_KAFKA_RESP_ERR_NO_ERROR, let native else { return [] }
        var headers: [KafkaHeader] = []
        headers.reserveCapacity(rd_kafka_header_cnt(native))
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(native, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
            index += 1
        }
        return headers
    }
}
