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
        try await enqueue(outputs, deliveries: deliveries)
        return deliveries
    }

    /// Hands every record to librdkafka inside the producer's open transaction, with no delivery
    /// report per record: the transaction's commit fails if any of them was not delivered. A
    /// record librdkafka refuses is thrown at once, as ``enqueue(_:)`` does.
    func enqueueInTransaction(_ outputs: borrowing OutputRecords) async throws {
        try await enqueue(outputs, deliveries: nil)
    }

    func beginTransaction() throws { try producer.beginTransaction() }

    func sendOffsetsToTransaction(_ offsets: [TopicPartitionOffset], groupMetadata: ConsumerGroupMetadata)
        async throws
    {
        try await producer.sendOffsetsToTransaction(offsets, groupMetadata: groupMetadata)
    }

    func commitTransaction() async throws { try await producer.commitTransaction() }

    func abortTransaction() async throws { try await producer.abortTransaction() }

    private func enqueue(_ outputs: borrowing OutputRecords, deliveries: PendingDeliveries?) async throws {
        var next = 0
        while next < outputs.count {
            next = try enqueue(outputs, from: next, deliveries: deliveries)
            if next < outputs.count { await producer.waitForRoom() }
        }
    }

    /// Hands records to librdkafka from `start` on; returns where it stopped for a full queue.
    private func enqueue(_ outputs: borrowing OutputRecords, from start: Int, deliveries: PendingDeliveries?)
        throws(KafkaError) -> Int
    {
        try outputs.withUnsafeBytes { (bytes) throws(KafkaError) -> Int in
            for index in start..<outputs.count {
                let record = outputs.records[index]
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
                        if let deliveries {
                            try producer.produce(
                                view, to: handles[record.topic.rawValue], deliveries: deliveries, index: index)
                        } else {
                            try producer.produceInTransaction(view, to: handles[record.topic.rawValue])
                        }
                    } catch  where error.isQueueFull {
                        return index
                    } catch {
                        // An output refused (too large, a fatal error) must not be committed past:
                        // the rest get the same error, and it ends the batch.
                        for rest in index..<outputs.count {
                            deliveries?.complete(rest, partition: -1, offset: -1, error: error)
                        }
                        throw error
                    }
                    return nil
                }
                if let stopped { return stopped }
            }
            return outputs.count
        }
    }
}
