import CRDKafka

/// A record read in place from librdkafka's memory, as ``ConsumedBatch/readRecords(_:)``
/// lends it: its key, value and headers are valid only during that call, so copy out what you
/// keep. Non-copyable, so that the view itself cannot be kept. The in-place counterpart of
/// ``ConsumerRecord``.
public struct ConsumerRecordView: ~Copyable {
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
    public func header(_ name: String) -> UnsafeRawBufferPointer? {
        var headers: OpaquePointer?
        guard rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers else { return nil }
        var value: UnsafeRawPointer?
        var size = 0
        guard rd_kafka_header_get(headers, 0, name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR, let value else {
            return nil
        }
        return UnsafeRawBufferPointer(start: value, count: size)
    }
}
