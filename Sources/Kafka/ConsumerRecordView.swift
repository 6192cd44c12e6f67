import CRDKafka

/// A record read in place from librdkafka's memory, as ``ConsumedBatch/readRecords(_:)``
/// passes it: its key, value and headers are valid only during that call, so copy out what
/// you keep. The in-place counterpart of ``ConsumerRecord``.
public struct ConsumerRecordView {
    private let message: UnsafeMutablePointer<rd_kafka_message_t>
    /// The topic's name.
    public let topic: String

    init(message: UnsafeMutablePointer<rd_kafka_message_t>, topic: String) {
        self.message = message
        self.topic = topic
    }

    /// The partition's number.
    public var partition: Int32 { message.pointee.partition }
    /// Its offset in the partition.
    public var offset: Int64 { message.pointee.offset }

    /// The key; nil for a null key.
    public var key: UnsafeRawBufferPointer? {
        message.pointee.key.map { UnsafeRawBufferPointer(start: $0, count: message.pointee.key_len) }
    }

    /// The value; nil for a null value (a tombstone).
    public var value: UnsafeRawBufferPointer? {
        message.pointee.payload.map { UnsafeRawBufferPointer(start: $0, count: message.pointee.len) }
    }

    /// The timestamp, when the record has one.
    public var timestamp: KafkaTimestamp? { KafkaTimestamp(of: message) }

    /// The value of the first header named `name`; nil when there is none or it has no value.
    /// `name` is a literal of two or more characters (stored NUL-terminated).
    public func header(_ name: StaticString) -> UnsafeRawBufferPointer? {
        var headers: OpaquePointer?
        guard rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers else { return nil }
        var value: UnsafeRawPointer?
        var size = 0
        let cName = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        guard rd_kafka_header_get(headers, 0, cName, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR, let value else { return nil }
        return UnsafeRawBufferPointer(start: value, count: size)
    }
}

extension KafkaTimestamp {
    /// The timestamp of a librdkafka message, when it has one.
    init?(of message: UnsafeMutablePointer<rd_kafka_message_t>) {
        var type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &type)
        switch type {
        case RD_KAFKA_TIMESTAMP_CREATE_TIME: self.init(milliseconds: milliseconds, kind: .createTime)
        case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME: self.init(milliseconds: milliseconds, kind: .logAppendTime)
        default: return nil
        }
    }
}
