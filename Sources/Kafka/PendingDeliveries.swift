import CRDKafka
import Synchronization

/// The delivery reports of records handed to ``KafkaProducer/enqueue(_:)``, which arrive one by one
/// from librdkafka's delivery callback.
public final class PendingDeliveries: Sendable {
    private struct State {
        var reports: [DeliveryReport?]
        var remaining: Int
        var waiter: CheckedContinuation<[DeliveryReport], Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(reports: Array(repeating: nil, count: count), remaining: count, waiter: nil))
    }

    /// Waits until every record has its report; the reports are in the order the records were given.
    public func reports() async -> [DeliveryReport] {
        await withCheckedContinuation { continuation in
            let ready: [DeliveryReport]? = state.withLock { state in
                if state.remaining == 0 { return state.reports.compactMap { $0 } }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Records the report of record `index`.
    func complete(_ index: Int, with report: DeliveryReport) {
        let finished: (CheckedContinuation<[DeliveryReport], Never>, [DeliveryReport])? = state.withLock { state in
            state.reports[index] = report
            state.remaining -= 1
            guard state.remaining == 0, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.reports.compactMap { $0 })
        }
        if let (waiter, reports) = finished { waiter.resume(returning: reports) }
    }
}

/// What a record carries through librdkafka as its opaque pointer: where its report goes.
struct DeliverySlot {
    let pending: PendingDeliveries
    let index: Int

    /// A slot on the heap, to pass as the message opaque; ``complete(_:message:)`` frees it.
    static func allocate(_ pending: PendingDeliveries, _ index: Int) -> UnsafeMutableRawPointer {
        let slot = UnsafeMutablePointer<DeliverySlot>.allocate(capacity: 1)
        slot.initialize(to: DeliverySlot(pending: pending, index: index))
        return UnsafeMutableRawPointer(slot)
    }

    /// Frees a slot whose record never reached librdkafka.
    static func release(_ opaque: UnsafeMutableRawPointer) {
        let slot = opaque.assumingMemoryBound(to: DeliverySlot.self)
        slot.deinitialize(count: 1)
        slot.deallocate()
    }

    /// Completes the slot's record from librdkafka's delivery report and frees the slot.
    static func complete(_ opaque: UnsafeMutableRawPointer, message: UnsafePointer<rd_kafka_message_t>) {
        let slot = opaque.assumingMemoryBound(to: DeliverySlot.self)
        let (pending, index) = (slot.pointee.pending, slot.pointee.index)
        release(opaque)
        let m = message.pointee
        let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let error = m.err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(m.err)
        pending.complete(index, with: DeliveryReport(topic: topic, partition: m.partition, offset: m.offset, error: error))
    }
}
