import BridgeCore
import Kafka

/// The worker's Kafka records are what the pure half reads.
extension ConsumerRecord: InputRecord {
    public var createTime: Int64? { timestamp?.milliseconds }

    public func header(_ name: String) -> String? { headers.string(for: name) }
}
