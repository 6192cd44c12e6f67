import Kafka

/// What the loop asks of an event: its kind, and the partition it is about.
extension ConsumerEvent {
    /// Whether it is a record.
    var isRecord: Bool {
        if case .record = self { true } else { false }
    }

    /// The record, when it is one.
    var record: ConsumerRecord? {
        if case .record(let record) = self { record } else { nil }
    }

    /// The partition of a record or an end of partition.
    var topicPartition: TopicPartition? {
        switch self {
        case .record(let record): record.topicPartition
        case .endOfPartition(let partition, _): partition
        case .partitionsAssigned, .partitionsRevoked: nil
        }
    }

    /// Whether it is an assignment or a revocation.
    var isRebalance: Bool {
        switch self {
        case .partitionsAssigned, .partitionsRevoked: true
        case .record, .endOfPartition: false
        }
    }
}
