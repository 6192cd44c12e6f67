import CRDKafka

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
