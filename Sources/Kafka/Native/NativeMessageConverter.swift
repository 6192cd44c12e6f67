import CRDKafka
import NIOCore

/// Turns one batch of librdkafka's consumed messages into ``ConsumerEvent``s.
///
/// All keys and values of a batch are copied into one buffer, and each record's key and value
/// are slices of it: a batch costs one allocation for its bytes, not two per record. A record
/// kept after the batch keeps the batch's buffer alive.
enum NativeMessageConverter {
    /// The batch's records and ends of partitions, in order (its errors were dealt with when it
    /// was made).
    static func events(of batch: ConsumedBatch) -> [ConsumerEvent] {
        if let rebalance = batch.rebalance { return [rebalance] }
        var total = 0
        batch.forEachMessage { message, _ in
            if message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                total += message.pointee.key_len + message.pointee.len
            }
        }
        // Every byte is written before the first slice is taken: a write to a shared buffer copies it.
        var buffer = ByteBufferAllocator().buffer(capacity: total)
        var starts: [(key: Int, value: Int)] = []
        starts.reserveCapacity(batch.recordCount)
        batch.forEachMessage { message, _ in
            let m = message.pointee
            guard m.err == RD_KAFKA_RESP_ERR_NO_ERROR else { return }
            let key = buffer.writerIndex
            if let pointer = m.key { buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: m.key_len)) }
            starts.append((key, buffer.writerIndex))
            if let pointer = m.payload { buffer.writeBytes(UnsafeRawBufferPointer(start: pointer, count: m.len)) }
        }
        var events: [ConsumerEvent] = []
        events.reserveCapacity(batch.recordCount + batch.endsOfPartition.count)
        var recordIndex = 0
        batch.forEachMessage { message, topic in
            let m = message.pointee
            switch m.err {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                let start = starts[recordIndex]
                recordIndex += 1
                events.append(
                    .record(
                        ConsumerRecord(
                            topicPartition: TopicPartition(topic, m.partition),
                            offset: m.offset,
                            key: m.key == nil ? nil : buffer.getSlice(at: start.key, length: m.key_len),
                            value: m.payload == nil ? nil : buffer.getSlice(at: start.value, length: m.len),
                            headers: headers(of: message),
                            timestamp: KafkaTimestamp(of: message)
                        )))
            case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                events.append(.endOfPartition(TopicPartition(topic, m.partition), offset: m.offset))
            default:
                break
            }
        }
        return events
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
            let bytes = value.map { ByteBuffer(bytes: UnsafeRawBufferPointer(start: $0, count: size)) }
            headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
        }
        return headers
    }
}
