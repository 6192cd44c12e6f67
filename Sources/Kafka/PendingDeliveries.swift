import Synchronization

/// The delivery reports of records handed to ``KafkaProducer/enqueue(_:)``, which arrive one by one
/// from librdkafka's delivery callback.
///
/// Each record's opaque pointer is a slot in one array per batch that points back here, so a
/// record costs no allocation of its own: its index is its slot's place in the array.
public final class PendingDeliveries: Sendable {
    private struct State {
        var reports: [DeliveryReport]
        var remaining: Int
        var waiter: CheckedContinuation<[DeliveryReport], Never>?
    }

    private let state: Mutex<State>
    private let topic: @Sendable (Int) -> String
    let slots: SlotArray

    /// Reports for `count` records, the topic of record `index` being `topic(index)`.
    public init(count: Int, topic: @escaping @Sendable (Int) -> String) {
        self.topic = topic
        let placeholder = DeliveryReport(topic: "", partition: -1, offset: -1, error: nil)
        state = Mutex(State(reports: Array(repeating: placeholder, count: count), remaining: count, waiter: nil))
        slots = SlotArray(count: count)
        // Kept alive by librdkafka's references until the last report arrives.
        if count > 0 { slots.fill(with: Unmanaged.passRetained(self).toOpaque()) }
    }

    /// - Parameter topics: each record's topic, in order.
    convenience init(topics: [String]) {
        self.init(count: topics.count) { topics[$0] }
    }

    /// Waits until every record has its report; the reports are in the order the records were given.
    public func reports() async -> [DeliveryReport] {
        await withCheckedContinuation { continuation in
            let ready: [DeliveryReport]? = state.withLock { state in
                if state.remaining == 0 { return state.reports }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The opaque pointer for record `index`.
    func opaque(for index: Int) -> UnsafeMutableRawPointer { slots.slot(index) }

    /// Records the outcome of record `index`: for a record librdkafka refused, which gets no
    /// report from it.
    public func complete(_ index: Int, partition: Int32, offset: Int64, error: KafkaError?) {
        let report = DeliveryReport(topic: topic(index), partition: partition, offset: offset, error: error)
        let finished: (CheckedContinuation<[DeliveryReport], Never>?, [DeliveryReport])? = state.withLock { state in
            state.reports[index] = report
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return (state.waiter, state.reports)
        }
        guard let (waiter, reports) = finished else { return }
        Unmanaged.passUnretained(self).release()  // the last report: librdkafka is done with us
        waiter?.resume(returning: reports)
    }
}

/// One pointer-sized slot per record, each holding its batch's address.
final class SlotArray: @unchecked Sendable {
    private let base: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
    }

    func fill(with owner: UnsafeMutableRawPointer) { base.initialize(repeating: owner, count: count) }
    func slot(_ index: Int) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(base + index) }
    func index(of slot: UnsafeMutableRawPointer) -> Int {
        slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) - base
    }

    deinit { base.deallocate() }
}
