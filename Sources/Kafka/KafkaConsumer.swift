import CRDKafka
import Logging

/// Reads records from Kafka in batches, as a member of a consumer group or from partitions
/// assigned by hand.
///
/// Offsets are committed only by the caller (``commit(_:)``, or a producer's transaction).
/// Rebalances reach the caller's ``KafkaRebalanceListener`` between batches, before librdkafka
/// completes them. Call ``close()`` to leave the group cleanly.
public final class KafkaConsumer: Sendable {
    let client: KafkaClient
    private let context: ConsumerContext
    private let listener: (any KafkaRebalanceListener)?

    /// Creates a consumer. Throws for an invalid configuration, naming the property.
    public init(
        configuration: KafkaConsumerConfiguration,
        rebalanceListener: (any KafkaRebalanceListener)? = nil,
        logger: Logger
    ) throws {
        let properties = configuration.librdkafkaProperties
        let context = ConsumerContext(logger: logger, properties: properties)
        self.context = context
        self.listener = rebalanceListener
        self.client = try KafkaClient(
            type: RD_KAFKA_CONSUMER,
            properties: properties,
            context: context
        ) { conf in
            if configuration.groupID != nil {
                rd_kafka_conf_set_rebalance_cb(conf, ConsumerContext.rebalanceCallback)
            }
        }
        // Serve everything (logs, errors, rebalances) from the consumer queue.
        rd_kafka_poll_set_consumer(client.handle)
    }

    /// Joins the group and subscribes to the topics.
    public func subscribe(_ topics: [String]) throws {
        let list = NativePartitionList(topics.map { TopicPartition($0, RD_KAFKA_PARTITION_UA) })
        try KafkaError.check(rd_kafka_subscribe(client.handle, list.pointer), "subscribe to \(topics)")
    }

    /// Reads partitions by hand, outside any group rebalancing, from the given offsets
    /// (or ``KafkaOffset`` values). Replaces the current assignment.
    public func assign(_ offsets: [TopicPartitionOffset]) async throws {
        let list = NativePartitionList(offsets)
        try await client.blocking { try KafkaError.check(rd_kafka_assign($0, list.pointer), "assign") }
    }

    /// Returns up to `maxRecords` events, waiting up to `timeout` for the first.
    ///
    /// Rebalances reported since the last call are handed to the listener first, and completed.
    /// Throws the listener's error (after completing the rebalance) or a fatal consumer error;
    /// other consumer errors are logged, as librdkafka retries them.
    public func poll(maxRecords: Int = 10_000, timeout: Duration = .milliseconds(100)) async throws -> [ConsumerEvent] {
        try await handlePendingRebalances()
        let ms = Int32(timeout.milliseconds)
        let logger = client.logger
        return try await client.blocking { handle in
            let queue = rd_kafka_queue_get_consumer(handle)
            defer { rd_kafka_queue_destroy(queue) }
            let messages = UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>.allocate(capacity: maxRecords)
            defer { messages.deallocate() }
            let count = rd_kafka_consume_batch_queue(queue, ms, messages, maxRecords)
            guard count >= 0 else { throw KafkaError(rd_kafka_last_error(), message: "consume") }
            let batch = UnsafeMutableBufferPointer(start: messages, count: count)
            defer { batch.forEach { $0.map(rd_kafka_message_destroy) } }
            var converter = NativeMessageConverter(batch)
            let (events, errors) = converter.convert()
            var fatal: KafkaError?
            for error in errors {
                if error.code == RD_KAFKA_RESP_ERR__FATAL.rawValue { fatal = error } else { logger.warning("consumer: \(error)") }
            }
            if let fatal {
                let cause = KafkaClient.fatalError(of: handle)
                throw KafkaError(code: cause?.code ?? fatal.code, message: "\(fatal.message): \(cause?.message ?? "")", isFatal: true)
            }
            return events
        }
    }

    /// Hands each rebalance reported by librdkafka to the listener, then completes it.
    private func handlePendingRebalances() async throws {
        var firstError: (any Error)?
        for event in context.takePendingRebalances() {
            do {
                try await handle(event)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    private func handle(_ event: RebalanceEvent) async throws {
        let partitions = event.partitions.partitions
        var listenerError: (any Error)?
        switch event.kind {
        case .assign:
            client.logger.info("partitions assigned: \(partitions)")
            try await client.blocking { try event.apply(to: $0) }
            do { try await listener?.partitionsAssigned(partitions, consumer: self) } catch { listenerError = error }
        case .revoke:
            client.logger.info("partitions revoked\(event.lost ? " (lost)" : ""): \(partitions)")
            do { try await listener?.partitionsRevoked(partitions, lost: event.lost, consumer: self) } catch { listenerError = error }
            try await client.blocking { try event.apply(to: $0) }
        case .failure(let error):
            client.logger.warning("rebalance failed: \(error); dropping the assignment")
            let current = try assignment()
            if !current.isEmpty {
                do { try await listener?.partitionsRevoked(current, lost: true, consumer: self) } catch { listenerError = error }
            }
            try await client.blocking { try event.apply(to: $0) }
        }
        if let listenerError { throw listenerError }
    }

    /// Leaves the group: the listener gets the last revocation first, then the consumer closes.
    public func close() async throws {
        try? await handlePendingRebalances()
        let current = (try? assignment()) ?? []
        if !current.isEmpty, let listener {
            do { try await listener.partitionsRevoked(current, lost: false, consumer: self) } catch {
                client.logger.error("revoking partitions on close failed: \(error)")
            }
        }
        context.closing.store(true, ordering: .releasing)
        try await client.blocking { handle in
            try KafkaError.check(rd_kafka_consumer_close(handle), "close consumer")
        }
        await client.shutDownThreads()
    }
}
