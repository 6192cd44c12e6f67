/// Producing records given in place.
extension KafkaProducer {
    /// The handle to produce to `name` with ``produce(_:to:deliveries:index:)``.
    public func topic(_ name: String) throws -> TopicHandle {
        try topics.handle(for: name, producer: client.handle(for: "topic"))
    }

    /// Hands one record to librdkafka, which copies it; its report becomes record `index` of
    /// `deliveries`. Throws librdkafka's error, `RD_KAFKA_RESP_ERR__QUEUE_FULL` (see
    /// ``KafkaError/isQueueFull``) when its queue has no room: call again after a while.
    public func produce(_ record: ProducerRecordView, to topic: TopicHandle, deliveries: PendingDeliveries, index: Int)
        throws(KafkaError)
    {
        try client.handle(for: "produce").produce(record, to: topic, opaque: deliveries.opaque(for: index))
    }

    /// Hands one record to librdkafka, which copies it, with no delivery report to wait for: for
    /// a transaction, whose commit fails when any of its records was not delivered. Throws as
    /// ``produce(_:to:deliveries:index:)`` does.
    public func produceInTransaction(_ record: ProducerRecordView, to topic: TopicHandle) throws(KafkaError) {
        try client.handle(for: "produce").produce(record, to: topic, opaque: nil)
    }
}
