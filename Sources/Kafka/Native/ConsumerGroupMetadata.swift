import CRDKafka

/// A consumer's group metadata (`rd_kafka_consumer_group_metadata_t`), which ties offsets sent to a
/// transaction to the consumer's group generation: a consumer's comes from
/// ``KafkaConsumer/groupMetadata()``.
public final class ConsumerGroupMetadata: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// The metadata of `groupID` with no consumer behind it, of no generation: for a producer
    /// that commits offsets of a group whose records it read some other way.
    public convenience init?(groupID: String) {
        guard let pointer = rd_kafka_consumer_group_metadata_new(groupID) else { return nil }
        self.init(owning: pointer)
    }

    deinit { rd_kafka_consumer_group_metadata_destroy(pointer) }
}
