import BridgeCore
import Kafka

/// The worker's Kafka records are what the pure half reads.
extension ConsumerRecord: InputRecord {
    /// The record's CreateTime; nil for a record stamped with LogAppendTime, whose time is the
    /// broker's clock, not the event's.
    public var createTime: Int64? { timestamp?.createTime }

    public func header(_ name: String) -> String? { headers.string(for: name) }
}

extension ConsumerRecordView {
    /// The record's CreateTime, as ``ConsumerRecord/createTime`` reads it.
    var createTime: Int64? { timestamp?.createTime }
}

extension KafkaTimestamp {
    /// The milliseconds of a CreateTime; nil for LogAppendTime.
    var createTime: Int64? { kind == .createTime ? milliseconds : nil }
}
