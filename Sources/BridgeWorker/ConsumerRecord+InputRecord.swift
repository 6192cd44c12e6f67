import BridgeCore
import Kafka

/// The worker's Kafka records are what the pure half reads.
extension ConsumerRecord: InputRecord {
    /// The record's CreateTime; nil for a record stamped with LogAppendTime, whose time is the
    /// broker's clock, not the event's.
    public var createTime: Int64? {
        guard let timestamp, timestamp.kind == .createTime else { return nil }
        return timestamp.milliseconds
    }

    public func header(_ name: String) -> String? { headers.string(for: name) }
}
