import Logging

/// Reads records from Kafka in batches, as a member of a consumer group or from partitions
/// assigned by hand.
///
/// Offsets are committed only by the caller (``commit(_:)``, or a producer's transaction).
/// Rebalances reach the caller before librdkafka completes them: as ``ConsumerEvent`` values of
/// ``poll(maxRecords:timeout:)``, or through a ``KafkaRebalanceListener`` given at creation.
/// Call ``close()`` to leave the group cleanly.
public final class KafkaConsumer: Sendable {
    let client: KafkaClient
    private let context: ConsumerContext
    private let listener: (any KafkaRebalanceListener)?
    /// The partitions' own queues, when it reads them in turns.
    private var queues: PartitionQueues? { context.partitionQueues }

    /// Creates a consumer. Throws for an invalid configuration, naming the property.
    /// `statistics` is told of librdkafka's statistics every `statistics.interval.ms`.
    public init(
        configuration: KafkaConsumerConfiguration,
        rebalanceListener: (any KafkaRebalanceListener)? = nil,
        statistics: (@Sendable (KafkaStatistics) -> Void)? = nil,
        logger: Logger
    ) throws {
        let properties = configuration.librdkafkaProperties
        let queues = try configuration.partitionTurns.map { turns throws(KafkaError) in
            try PartitionQueues(turns: turns)
        }
        let context = ConsumerContext(
            logger: logger, properties: properties, statistics: statistics, partitionQueues: queues)
        self.context = context
        self.listener = rebalanceListener
        self.client = try KafkaClient(
            role: .consumer(inGroup: configuration.groupID != nil), properties: properties, context: context,
            // One for polls, one for commits and other calls, so that a commit need not wait for
            // a poll in flight.
            threadCount: 2)
        try queues?.watchConsumerQueue(of: client.handle(for: "consumer queue").pointer)
    }

    /// Joins the group and subscribes to the topics.
    public func subscribe(_ topics: [String]) throws {
        try client.handle(for: "subscribe").subscribe(topics)
    }

    /// Reads partitions by hand, outside any group rebalancing, from the given offsets
    /// (or ``KafkaOffset`` values). Replaces the current assignment.
    ///
    /// Learns the topics' leaders first (a metadata request per topic, all of them within
    /// `metadataTimeout`): librdkafka resolves a logical offset such as ``KafkaOffset/beginning``
    /// of a partition whose leader it does not know yet only after a 500 ms retry. A metadata
    /// error is left to the assignment, which retries on its own.
    public func assign(_ offsets: [TopicPartitionOffset], metadataTimeout: Duration = .seconds(5)) async throws {
        try await client.blocking("assign") { try $0.assign(offsets, metadataTimeout: metadataTimeout) }
    }

    /// Returns what has arrived, up to `maxRecords` events, waiting up to `timeout` for the
    /// first: it returns as soon as there is something, never waiting to fill a batch.
    ///
    /// Rebalances come first. With a listener, those reported since the last call are handed to
    /// it and completed, and the listener's error is thrown (after completing the rebalance).
    /// Without one, a rebalance is returned alone as a ``ConsumerEvent`` and completed as the
    /// event says. Throws a fatal consumer error; other consumer errors are logged, as
    /// librdkafka retries them.
    public func poll(maxRecords: Int = 10_000, timeout: Duration = .milliseconds(100)) async throws -> [ConsumerEvent] {
        try await poll(maxRecords: maxRecords, timeout: timeout) { NativeMessageConverter.events(of: $0) }
    }

    /// Returns what has arrived as ``poll(maxRecords:timeout:)`` does, but in librdkafka's memory:
    /// records are read in place (``ConsumedBatch/readRecords(_:)``), with no copy of their
    /// bytes and no value per record. A rebalance is returned alone, as the batch's
    /// ``ConsumedBatch/rebalance``.
    public func pollInPlace(maxRecords: Int = 10_000, timeout: Duration = .milliseconds(100)) async throws
        -> ConsumedBatch
    {
        try await poll(maxRecords: maxRecords, timeout: timeout) { $0 }
    }

    /// Takes what has arrived as ``pollInPlace(maxRecords:timeout:)`` does and hands it to `read`
    /// on the consumer's own thread (a rebalance, on the caller's); returns what `read` returns.
    /// For a reader that decodes records where they are while its caller works on the ones before.
    public func poll<Output: Sendable>(
        maxRecords: Int = 10_000, timeout: Duration = .milliseconds(100),
        reading read: @escaping @Sendable (ConsumedBatch) -> Output
    ) async throws -> Output {
        if listener != nil {
            try await handlePendingRebalances(duringClose: false)
        } else if let rebalance = try await nextRebalanceEvent() {
            return read(ConsumedBatch(rebalance: rebalance))
        }
        let ms = Int32(clamping: timeout.milliseconds)
        let (client, logger) = (self.client, client.logger)
        return try await client.blocking("poll") { native in
            let batch = try ConsumedBatch(
                consumingFrom: client, native: native, maxRecords: maxRecords, timeoutMilliseconds: ms,
                logger: logger)
            if let fatal = batch.fatalError { throw fatal }
            return read(batch)
        }
    }

    /// The next rebalance as an event, after completing a revocation returned before.
    private func nextRebalanceEvent() async throws -> ConsumerEvent? {
        while true {
            switch context.rebalances.withLock({ $0.next() }) {
            case .readRecords:
                return nil
            case .completeRevocation(let revocation):
                try await complete(revocation)
            case .returnEvent(let event):
                let partitions = event.partitions.partitions
                switch event.kind {
                case .assign:
                    client.logger.info("partitions assigned: \(partitions)")
                    try await complete(event)
                    return .partitionsAssigned(partitions)
                case .revoke:
                    client.logger.info("partitions revoked\(event.lost ? " (lost)" : ""): \(partitions)")
                    return .partitionsRevoked(partitions, lost: event.lost)
                case .failure(let error):
                    client.logger.warning("rebalance failed: \(error); dropping the assignment")
                    return .partitionsRevoked(try assignment(), lost: true)
                }
            }
        }
    }

    /// Completes a rebalance ``ConsumerRebalances/next()`` handed out; one whose call failed is
    /// handed out again.
    private func complete(_ event: RebalanceEvent) async throws {
        do {
            try await client.blocking("rebalance") { try event.apply(to: $0, queues: self.queues) }
        } catch {
            context.rebalances.withLock { $0.notCompleted(event) }
            throw error
        }
    }

    /// Hands each rebalance reported by librdkafka to the listener, then completes it.
    private func handlePendingRebalances(duringClose: Bool) async throws {
        var firstError: (any Error)?
        for event in context.rebalances.withLock({ $0.takeReported() }) {
            do {
                try await handle(event, duringClose: duringClose)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    private func handle(_ event: RebalanceEvent, duringClose: Bool) async throws {
        let partitions = event.partitions.partitions
        var listenerError: (any Error)?
        switch event.kind {
        case .assign:
            client.logger.info("partitions assigned: \(partitions)")
            try await client.blocking("rebalance", duringClose: duringClose) {
                try event.apply(to: $0, queues: self.queues)
            }
            do { try await listener?.partitionsAssigned(partitions, consumer: self) } catch { listenerError = error }
        case .revoke:
            client.logger.info("partitions revoked\(event.lost ? " (lost)" : ""): \(partitions)")
            do { try await listener?.partitionsRevoked(partitions, lost: event.lost, consumer: self) } catch {
                listenerError = error
            }
            try await client.blocking("rebalance", duringClose: duringClose) {
                try event.apply(to: $0, queues: self.queues)
            }
        case .failure(let error):
            client.logger.warning("rebalance failed: \(error); dropping the assignment")
            let current = try assignment()
            if !current.isEmpty {
                do { try await listener?.partitionsRevoked(current, lost: true, consumer: self) } catch {
                    listenerError = error
                }
            }
            try await client.blocking("rebalance", duringClose: duringClose) {
                try event.apply(to: $0, queues: self.queues)
            }
        }
        if let listenerError { throw listenerError }
    }

    /// Leaves the group: the listener gets the last revocation first, then the consumer closes.
    /// Without a listener, the caller is expected to have committed what it did before closing.
    /// Any call after it fails at once with ``KafkaError/Code/closed``; a second close does nothing.
    public func close() async throws {
        guard client.beginClose() else { return }
        if let listener {
            try? await handlePendingRebalances(duringClose: true)
            let current = (try? assignment()) ?? []
            if !current.isEmpty {
                do { try await listener.partitionsRevoked(current, lost: false, consumer: self) } catch {
                    client.logger.error("revoking partitions on close failed: \(error)")
                }
            }
        }
        // What is still unanswered is answered here and, from now on, in the callback.
        let unanswered = context.rebalances.withLock { $0.beginClose() }
        do {
            try await client.blockingEvenIfCancelled("close") {
                try $0.closeConsumer(answering: unanswered, queues: self.queues)
            }
        } catch {
            await client.finishClose()
            throw error
        }
        await client.finishClose()
    }
}
