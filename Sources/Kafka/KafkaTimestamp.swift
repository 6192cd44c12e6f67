import CRDKafka

/// A record's timestamp and what it means.
public struct KafkaTimestamp: Sendable, Hashable {
    /// Who set the timestamp.
    public enum Kind: Sendable, Hashable {
        /// The producer set it (`CreateTime`).
        case createTime
        /// The broker set it when it appended the record (`LogAppendTime`).
        case logAppendTime
    }

    /// Milliseconds since the Unix epoch.
    public var milliseconds: Int64
    /// Who set it.
    public var kind: Kind

    /// Creates a timestamp.
    public init(milliseconds: Int64, kind: Kind) {
        self.milliseconds = milliseconds
        self.kind = kind
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
