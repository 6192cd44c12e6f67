import CRDKafka

extension PendingDeliveries {
    /// Completes a record from librdkafka's delivery report.
    static func complete(opaque: UnsafeMutableRawPointer, message: UnsafePointer<rd_kafka_message_t>) {
        let owner = Unmanaged<PendingDeliveries>.fromOpaque(opaque.load(as: UnsafeMutableRawPointer.self))
            .takeUnretainedValue()
        let m = message.pointee
        owner.complete(
            owner.slots.index(of: opaque),
            partition: m.partition,
            offset: m.offset,
            error: m.err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(m.err)
        )
    }
}
