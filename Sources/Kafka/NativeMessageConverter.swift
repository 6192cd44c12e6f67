import CRDKafka
import NIOCore

/// Turns one batch of librdkafka's consumed messages into ``ConsumerEvent``s.
///
/// All keys and values of a batch are copied into one buffer, and each record's key and value
/// are slices of it: a batch costs one allocation for its bytes, not two per record. A record
/// kept after the batch keeps the batch's buffer alive.
struct NativeMessageConverter {
    private let messages: UnsafeMutableBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>
    private var lastTopic: (pointer: OpaquePointer, name: String)?

    init(_ messages: UnsafeMutableBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>) {
        self.messages = messages
    }

    /// The batch's events, in order, and the errors it carried.
    mutating func convert() -> (events: [ConsumerEvent], errors: [KafkaError]) {
        var total = 0
        for case let message? in messages where message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            total += message.pointee.len + message.pointee.key_len
        }
        var buffer = ByteBufferAllocator().buffer(capacity: total)
        var starts: [(key: Int, value: Int)] = []
        starts.reserveCapacity(messages.count)
        for case let message? in messages {
            let m = message.pointee
            guard m.err == RD_KAFKA_RESP_ERR_NO_ERROR else { continue }
            let key = buffer.writerIndex
            if let pointer = m.key { buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: m.key_len)) }
            let value = buffer.writerIndex
            if let pointer = m.payload { buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: m.len)) }
            starts.append((key, value))
        }

        var events: [ConsumerEvent] = []
        events.reserveCapacity(messages.count)
        var errors: [KafkaError] = []
        var recordIndex = 0
        for case let message? in messages {
            let m = message.pointee
            let topicPartition = TopicPartition(topicName(m.rkt), m.partition)
            switch m.err {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                let start = starts[recordIndex]
                recordIndex += 1
                events.append(.record(ConsumerRecord(
                    topicPartition: topicPartition,
                    offset: m.offset,
                    key: m.key == nil ? nil : buffer.getSlice(at: start.key, length: m.key_len),
                    value: m.payload == nil ? nil : buffer.getSlice(at: start.value, length: m.len),
                    headers: Self.headers(of: message),
                    timestamp: Self.timestamp(of: message)
                )))
            case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                events.append(.endOfPartition(topicPartition, offset: m.offset))
            default:
                let text = m.payload.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
                errors.append(KafkaError(m.err, message: "\(topicPartition): \(text ?? String(cString: rd_kafka_err2str(m.err)))"))
            }
        }
        return (events, errors)
    }

    private mutating func topicName(_ topic: OpaquePointer?) -> String {
        guard let topic else { return "" }
        if let lastTopic, lastTopic.pointer == topic { return lastTopic.name }
        let name = String(cString: rd_kafka_topic_name(topic))
        lastTopic = (topic, name)
        return name
    }

    private static func timestamp(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> KafkaTimestamp? {
        var type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &type)
        return switch type {
        case RD_KAFKA_TIMESTAMP_CREATE_TIME: KafkaTimestamp(milliseconds: milliseconds, kind: .createTime)
        case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME: KafkaTimestamp(milliseconds: milliseconds, kind: .logAppendTime)
        default: nil
        }
    }

    private static func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var native: OpaquePointer?
        guard rd_kafka_message_headers(message, &native) == RD_KAFKA_RESP_ERR_NO_ERROR, let native else { return [] }
        var headers: [KafkaHeader] = []
        headers.reserveCapacity(rd_kafka_header_cnt(native))
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(native, headers.count, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
        }
        return headers
    }
}
