import BridgeCore
import Kafka

/// Hands ``OutputRecords`` to the producer in place: each record is read from the run's
/// buffer by librdkafka, which copies it, with no record value of its own in between.
struct OutputProducer: OutputSink {
    let producer: KafkaProducer
    /// The topic of each ``OutputTopic``, by its raw value.
    private let names: [String]
    private let handles: [TopicHandle]

    init(producer: KafkaProducer, topicNames: [String]) throws {
        self.producer = producer
        self.names = topicNames
        self.handles = try topicNames.map(producer.topic)
    }

    /// Hands every record to librdkafka, waiting while its queue is full. A record it refuses
    /// ends the batch: its error is thrown, and it and the records after it get it as their report.
    func enqueue(_ outputs: borrowing OutputRecords) async throws -> PendingDeliveries {
        let names = self.names
        let topics = outputs.records.map { UInt8($0.topic.rawValue) }
        let deliveries = PendingDeliveries(count: outputs.count) { names[Int(topics[$0])] }
        try await enqueue(outputs, reports: Reports(deliveries: deliveries, topic: nil))
        return deliveries
    }

    /// Hands every record to librdkafka inside the producer's open transaction, with no delivery
    /// report per record: the transaction's commit fails if any of them was not delivered. A
    /// record librdkafka refuses is thrown at once, as ``enqueue(_:)`` does.
    func enqueueInTransaction(_ outputs: borrowing OutputRecords) async throws {
        try await enqueue(outputs, reports: nil)
    }

    /// Hands every record to librdkafka inside the producer's open transaction, as
    /// ``enqueueInTransaction(_:)`` does, with a delivery report for each record of `topic`:
    /// the reports are theirs, in order.
    func enqueueInTransaction(_ outputs: borrowing OutputRecords, reportingOn topic: OutputTopic) async throws
        -> PendingDeliveries
    {
        let name = names[topic.rawValue]
        let count = outputs.records.lazy.filter { $0.topic == topic }.count
        let deliveries = PendingDeliveries(count: count) { _ in name }
        try await enqueue(outputs, reports: Reports(deliveries: deliveries, topic: topic))
        return deliveries
    }

    func beginTransaction() throws { try producer.beginTransaction() }

    func sendOffsetsToTransaction(_ offsets: [TopicPartitionOffset], groupMetadata: ConsumerGroupMetadata)
        async throws
    {
        try await producer.sendOffsetsToTransaction(offsets, groupMetadata: groupMetadata)
    }

    func commitTransaction() async throws { try await producer.commitTransaction() }

    func abortTransaction() async throws { try await producer.abortTransaction() }

    /// Which records of a run get a delivery report, and each one's place among the reports.
    private struct Reports {
        let deliveries: PendingDeliveries
        /// Only the records of this topic, numbered among themselves; nil for every record, by
        /// its index.
        let topic: OutputTopic?

        /// The place of the report of record `index`, of `recordTopic`, when `given` records
        /// before it got one; nil when it gets none.
        func place(of recordTopic: OutputTopic, index: Int, given: Int) -> Int? {
            guard let topic else { return index }
            return recordTopic == topic ? given : nil
        }
    }

    private func enqueue(_ outputs: borrowing OutputRecords, reports: Reports?) async throws {
        var next = 0
        var given = 0
        while next < outputs.count {
            next = try enqueue(outputs, from: next, reports: reports, given: &given)
            if next < outputs.count { await producer.waitForRoom() }
        }
    }

    /// Hands records to librdkafka from `start` on, `given` the reports asked for so far;
    /// returns where it stopped for a full queue.
    private func enqueue(_ outputs: borrowing OutputRecords, from start: Int, reports: Reports?, given: inout Int)
        throws(KafkaError) -> Int
    {
        try outputs.withUnsafeBytes { (bytes) throws(KafkaError) -> Int in
            for index in start..<outputs.count {
                let record = outputs.records[index]
                let place = reports?.place(of: record.topic, index: index, given: given)
                let stopped = try withUnsafeTemporaryAllocation(
                    of: ProducerRecordView.Header.self, capacity: record.headers.count
                ) {
                    (headerViews) throws(KafkaError) -> Int? in
                    for (slot, header) in outputs.headers[record.headers].enumerated() {
                        headerViews.initializeElement(
                            at: slot,
                            to: .init(name: header.name, value: UnsafeRawBufferPointer(rebasing: bytes[header.value])))
                    }
                    let view = ProducerRecordView(
                        partition: record.partition,
                        key: record.key.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
                        value: record.value.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
                        headers: UnsafeBufferPointer(headerViews),
                        timestamp: record.timestamp
                    )
                    do throws(KafkaError) {
                        if let reports, let place {
                            try producer.produce(
                                view, to: handles[record.topic.rawValue], deliveries: reports.deliveries, index: place)
                        } else {
                            try producer.produceInTransaction(view, to: handles[record.topic.rawValue])
                        }
                    } catch  where error.isQueueFull {
                        return index
                    } catch {
                        // An output refused (too large, a fatal error) must not be committed past:
                        // the rest get the same error, and it ends the batch.
                        guard let reports else { throw error }
                        for rest in index..<outputs.count {
                            guard let place = reports.place(of: outputs.records[rest].topic, index: rest, given: given)
                            else { continue }
                            reports.deliveries.complete(place, partition: -1, offset: -1, error: error)
                            given += 1
                        }
                        throw error
                    }
                    if place != nil { given += 1 }
                    return nil
                }
                if let stopped { return stopped }
            }
            return outputs.count
        }
    }
}
