import Logging

/// Reads records from Kafka in batches, as a member of a consumer group or from partitions
/// assigned by hand.
///
/// Offsets are committed only by the caller (``commit(_:)``, or a producer's transaction).
/// Rebalances reach the caller before librdkafka completes them: as ``ConsumerEvent`` values of
/// ``poll(maxRecords:timeout:)``, or through a ``KafkaRebalanceListener`` given at creation.
/// Call ``close()`` to leave the group cleanly.
public final class KafkaConsumer: Sendable {
    let client: KafkaClient<NativeConsumerState>
    private let context: ConsumerContext
    private let listener: (any KafkaRebalanceListener)?

    /// Creates a consumer. Throws for an invalid configuration, naming the property.
    /// `statistics` is told of librdkafka's statistics every `statistics.interval.ms`.
    public init(
        configuration: KafkaConsumerConfiguration,
        rebalanceListener: (any KafkaRebalanceListener)? = nil,
        statistics: (@Sendable (KafkaStatistics) -> Void)? = nil,
        logger: Logger
    ) throws {
        let properties = configuration.librdkafkaProperties
        let context = try ConsumerContext(
            logger: logger, properties: properties, statistics: statistics, turns: configuration.partitionTurns)
        self.context = context
        self.listener = rebalanceListener
        self.client = try KafkaClient(
            role: .consumer(inGroup: configuration.groupID != nil), properties: properties, context: context,
            state: context.state,
            // One for polls, one for commits and other calls, so that a commit need not wait for
            // a poll in flight.
            threadCount: 2)
        if let wakeUps = context.wakeUps {
            try client.handle(for: "consumer queue").watchConsumerQueue(with: wakeUps)
        }
    }

    /// A consumer released without a close gives up its partitions' queues, so that its client
    /// can be destroyed.
    deinit {
        context.closeQueues { _ in true }
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
            try await handle(context.state.withLockedValue { $0.takeReported() })
        } else if let rebalance = try await nextRebalanceEvent() {
            return read(ConsumedBatch(rebalance: rebalance))
        }
        let ms = Int32(clamping: timeout.milliseconds)
        let (client, context, logger) = (self.client, self.context, client.logger)
        return try await client.blocking("poll") { native in
            let batch = try ConsumedBatch(
                consumingFrom: client, context: context, native: native, maxRecords: maxRecords,
                timeoutMilliseconds: ms, logger: logger)
            if let fatal = batch.fatalError { throw fatal }
            return read(batch)
        }
    }

    /// The next rebalance as an event, after completing a revocation returned before.
    private func nextRebalanceEvent() async throws -> ConsumerEvent? {
        while true {
            switch context.state.withLockedValue({ $0.nextRebalance() }) {
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

    /// Completes a rebalance ``ConsumerStateMachine/nextRebalance()`` handed out; one whose call
    /// failed is handed out again, or answered at once if the consumer left its group meanwhile.
    private func complete(_ event: RebalanceEvent) async throws {
        do {
            try await apply(event)
        } catch {
            if let native = context.state.withLockedValue({ $0.notCompleted(event) }) {
                try? event.apply(to: native, context: context)
            }
            throw error
        }
    }

    /// Gives librdkafka `event`'s answer, on a client thread. A rebalance taken from the state is
    /// answered during a close too: librdkafka cannot leave the group while one waits.
    private func apply(_ event: RebalanceEvent) async throws {
        try await client.blocking("rebalance", duringClose: true) { [context] in
            try event.apply(to: $0, context: context)
        }
    }

    /// Hands each of `events`, reported by librdkafka, to the listener, then completes it.
    private func handle(_ events: [RebalanceEvent]) async throws {
        var firstError: (any Error)?
        for event in events {
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
            try await apply(event)
            do { try await listener?.partitionsAssigned(partitions, consumer: self) } catch { listenerError = error }
        case .revoke:
            client.logger.info("partitions revoked\(event.lost ? " (lost)" : ""): \(partitions)")
            do { try await listener?.partitionsRevoked(partitions, lost: event.lost, consumer: self) } catch {
                listenerError = error
            }
            try await apply(event)
        case .failure(let error):
            client.logger.warning("rebalance failed: \(error); dropping the assignment")
            let current = try assignment()
            if !current.isEmpty {
                do { try await listener?.partitionsRevoked(current, lost: true, consumer: self) } catch {
                    listenerError = error
                }
            }
            try await apply(event)
        }
        if let listenerError { throw listenerError }
    }

    /// Leaves the group: the listener gets the last revocation first, then the consumer closes.
    /// Without a listener, the caller is expected to have committed what it did before closing.
    /// Any call after it fails at once with ``KafkaError/Code/closed``; a second close does nothing.
    public func close() async throws {
        guard case .close = context.state.withLockedValue({ $0.beginClose() }) else { return }
        if let listener {
            try? await handle(context.state.withLockedValue { $0.takeReported() })
            let current = (try? assignment()) ?? []
            if !current.isEmpty {
                do { try await listener.partitionsRevoked(current, lost: false, consumer: self) } catch {
                    client.logger.error("revoking partitions on close failed: \(error)")
                }
            }
        }
        // What is still unanswered is answered here and, from now on, in the callback.
        let unanswered = context.state.withLockedValue { $0.leaveGroup() }
        do {
            try await client.blockingEvenIfCancelled("close") { [context] in
                try $0.closeConsumer(answering: unanswered, context: context)
            }
        } catch {
            await finishClose()
            throw error
        }
        await finishClose()
    }

    /// Ends the close, whether leaving the group succeeded or not: its partitions' queues are
    /// destroyed (none is read or made any more), then the client's threads stop.
    private func finishClose() async {
        context.closeQueues { _ in true }
        await client.finishClose()
    }
}
