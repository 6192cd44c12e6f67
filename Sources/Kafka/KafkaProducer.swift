import Logging
import NIOCore

/// Sends records to Kafka. Sending is asynchronous: records are handed to librdkafka at once,
/// many are in flight together, and each completes with librdkafka's delivery report.
///
/// Call ``close(timeout:)`` when done: it delivers what is still in flight, and any call after it
/// fails at once with ``KafkaError/Code/closed``.
public final class KafkaProducer: Sendable {
    let client: KafkaClient<ClientLifecycle<NativeHandle>>
    let topics = TopicHandles()

    /// Creates a producer. Throws for an invalid configuration, naming the property.
    /// `statistics` is told of librdkafka's statistics every `statistics.interval.ms`.
    public init(
        configuration: KafkaProducerConfiguration, statistics: (@Sendable (KafkaStatistics) -> Void)? = nil,
        logger: Logger
    ) throws {
        let properties = configuration.librdkafkaProperties
        client = try KafkaClient(
            role: .producer, properties: properties,
            context: ClientContext(logger: logger, properties: properties, statistics: statistics), threadCount: 2)
        // Serves delivery reports; one thread of the client's own.
        client.startLoop { $0.serveDeliveryReports(timeout: .milliseconds(100)) }
    }

    /// The largest record, key, value and headers together, that the producer accepts
    /// (`message.max.bytes`): it refuses a larger one when it is handed over.
    public var maximumRecordBytes: Int {
        client.configurationValue("message.max.bytes").flatMap { Int($0) } ?? 1_000_000
    }

    /// Sends one record and waits for its delivery report. Throws when it was not delivered.
    @discardableResult
    public func send(_ record: ProducerRecord) async throws -> DeliveryReport {
        let reports = try await send([record])
        try reports.throwFirstError()
        return reports[0]
    }

    /// Sends records and waits until each is delivered or failed; reports are in record order.
    public func send(_ records: [ProducerRecord]) async throws -> [DeliveryReport] {
        try await enqueue(records).reports()
    }

    /// Hands records to librdkafka and returns without waiting for delivery, so that many
    /// batches can be in flight. Waits only while librdkafka's local queue is full.
    /// A record that cannot be sent gets an error report. After a fatal producer error, every
    /// record not yet sent gets that error too, and the error is thrown.
    public func enqueue(_ records: [ProducerRecord]) async throws -> PendingDeliveries {
        let native = try client.handle(for: "send")
        let pending = PendingDeliveries(topics: records.map(\.topic))
        var lastTopic: TopicHandle?
        var fatal: KafkaError?
        // Records are read in place (`records[index]`), not copied out one by one.
        for index in records.indices {
            let partition = records[index].partition.number
            if let fatal {
                pending.complete(index, partition: partition, offset: -1, error: fatal)
                continue
            }
            do {
                let topic =
                    try lastTopic.flatMap { $0.name == records[index].topic ? $0 : nil }
                    ?? topics.handle(for: records[index].topic, producer: native)
                lastTopic = topic
                while let error = produce(records[index], topic: topic, opaque: pending.opaque(for: index), on: native)
                {
                    guard error.isQueueFull else { throw error }
                    try await makeRoom()
                }
            } catch let error as KafkaError {
                pending.complete(index, partition: partition, offset: -1, error: error)
                if error.isFatal { fatal = error }
            }
        }
        if let fatal { throw fatal }
        return pending
    }

    /// Waits a moment for librdkafka's local queue to make room (after `isQueueFull`), on the
    /// producer's own thread: delivery frees room, cancellation does not, so this waits even for
    /// a cancelled task rather than spin.
    public func waitForRoom() async {
        try? await makeRoom()
    }

    /// Waits as ``waitForRoom()`` does; throws ``KafkaError/Code/closed`` at once once the
    /// producer is closing, since room made then goes to nobody.
    func makeRoom() async throws {
        try await client.blocking("wait for room") { try? $0.flush(timeout: .milliseconds(1)) }
    }

    /// Waits until every record in flight is delivered or failed.
    public func flush(timeout: Duration) async throws {
        try await flushInFlight(timeout: timeout, duringClose: false)
    }

    /// Delivers what is in flight, within `timeout`, then stops the producer's thread. Records
    /// still in flight then are given up: their reports say so (`_PURGE_QUEUE`,
    /// `_PURGE_INFLIGHT`), so nobody waits for them, and the flush's error is thrown. A second
    /// close does nothing.
    public func close(timeout: Duration = .seconds(30)) async throws {
        guard client.beginClose() else { return }
        var failure: (any Error)?
        do {
            try await flushInFlight(timeout: timeout, duringClose: true)
        } catch {
            failure = error
            // The poll loop still runs: it hands the purged records' reports to their waiters.
            try? await client.blockingEvenIfCancelled("purge") { $0.purgeInFlight(timeout: .seconds(5)) }
        }
        await client.finishClose()
        if let failure { throw failure }
    }

    private func flushInFlight(timeout: Duration, duringClose: Bool) async throws {
        try await client.blockingEvenIfCancelled("flush", duringClose: duringClose) { try $0.flush(timeout: timeout) }
    }

    /// Frees the topic handles. A producer released without ``close(timeout:)`` keeps its client,
    /// whose loop still serves delivery reports, for the rest of the process: that is logged.
    deinit {
        if !client.isClosed { client.logger.error("a Kafka producer was released without close()") }
        topics.destroyAll()
    }

    /// Hands one record to librdkafka as a ``ProducerRecordView``; returns the error when it fails.
    /// Header names are made NUL-terminated, next to their values, in one scratch buffer.
    private func produce(
        _ record: ProducerRecord, topic: TopicHandle, opaque: UnsafeMutableRawPointer, on native: NativeHandle
    ) -> KafkaError? {
        var scratch: [UInt8] = []
        for header in record.headers {
            scratch.append(contentsOf: header.key.utf8)
            scratch.append(0)
            if let value = header.value { scratch.append(contentsOf: value.readableBytesView) }
        }
        return withOptionalBytes(record.key) { key in
            withOptionalBytes(record.value) { value in
                scratch.withUnsafeBytes { scratch in
                    withUnsafeTemporaryAllocation(of: ProducerRecordView.Header.self, capacity: record.headers.count) {
                        headers -> KafkaError? in
                        var offset = 0
                        for (index, header) in record.headers.enumerated() {
                            let name = scratch.baseAddress.unsafelyUnwrapped + offset
                            offset += header.key.utf8.count + 1
                            let count = header.value?.readableBytes ?? 0
                            headers.initializeElement(
                                at: index,
                                to: ProducerRecordView.Header(
                                    name: name.assumingMemoryBound(to: CChar.self),
                                    value: header.value.map { _ in
                                        UnsafeRawBufferPointer(rebasing: scratch[offset..<offset + count])
                                    }
                                ))
                            offset += count
                        }
                        let view = ProducerRecordView(
                            partition: record.partition.explicitNumber,
                            key: key, value: value, headers: UnsafeBufferPointer(headers), timestamp: record.timestamp
                        )
                        do throws(KafkaError) {
                            try native.produce(view, to: topic, opaque: opaque)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
            }
        }
    }
}

/// Runs `body` with the bytes' readable buffer, or with nil for nil bytes. An empty buffer still
/// yields a non-nil (empty) buffer, so that an empty value stays distinct from a null one.
func withOptionalBytes<R>(_ bytes: ByteBuffer?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeReadableBytes { buffer in
        if buffer.baseAddress != nil { return body(buffer) }
        return withUnsafeBytes(of: UInt8(0)) { body(UnsafeRawBufferPointer(rebasing: $0[0..<0])) }
    }
}
