import BridgeConfig
import BridgeCore
import BridgeStore
import Kafka
import Logging

/// Makes a batch's outputs durable and commits the input offsets they cover, by the configured
/// delivery guarantee: outputs are handed to the producer as they are made, and the batch is
/// committed when its interval has passed or it is full.
///
/// A commit is three steps, whose order the types keep: ``seal(_:states:consumer:)`` turns the open
/// batch into a ``SealedBatch``; ``settle(_:)`` waits for its outputs (and may run while the
/// loop takes the next records); ``finish(_:consumer:stores:)`` or, on any error,
/// ``failed(_:cause:)`` consumes the sealed batch.
struct BatchCommitter: Sendable {
    let delivery: BridgeConfiguration.Delivery
    let outputs: any OutputSink
    let interval: Duration
    let maxRecords: Int
    let maxBytes: Int
    /// Told of every commit, to trim the repartition topic behind it.
    let trimmer: RepartitionTrimmer?
    /// Whether the changelog records go to the local stores once committed, at the offsets
    /// their delivery reports give (``StoreWrites``).
    var keepsStores = false
    /// Whether the stores have device rows beside them, which take the devices each batch
    /// changed as they were at its seal (``ChangedRows``).
    var keepsDeviceRows = false
    /// Counts what each commit covers.
    let metrics: WorkerMetrics
    let logger: Logger

    /// How long the loop may wait for more records before the batch is due.
    func timeUntilDue(_ batch: borrowing OpenBatch, now: ContinuousClock.Instant) -> Duration? {
        guard let started = batch.started else { return nil }
        return max(.zero, started + interval - now)
    }

    /// Whether the batch must be committed now: its interval has passed, or it is full.
    func isDue(_ batch: borrowing OpenBatch, now: ContinuousClock.Instant) -> Bool {
        guard let started = batch.started else { return false }
        return now - started >= interval || isFull(batch)
    }

    /// Whether the batch holds as many input records or output bytes as one may.
    func isFull(_ batch: borrowing OpenBatch) -> Bool {
        batch.records >= maxRecords || batch.bytes >= maxBytes
    }

    /// Hands outputs to the producer, inside the batch's transaction (exactly once), and
    /// empties them for the next run. On an error the batch is failed: it is empty afterwards.
    func send(_ records: inout OutputRecords, in batch: inout OpenBatch) async throws {
        guard records.count > 0 else { return }
        batch.bytes += records.byteCount
        if keepsDeviceRows { batch.changedRows.add(changelogOf: records) }
        if delivery == .atLeastOnce { records.move(.changelog, to: &batch.changelog) }
        do {
            switch delivery {
            case .exactlyOnce where keepsStores:
                try beginTransaction(of: &batch)
                let deliveries = try await outputs.enqueueInTransaction(records, reportingOn: .changelog)
                batch.storeWrites.add(changelogOf: records, deliveries: deliveries)
            case .exactlyOnce:
                try beginTransaction(of: &batch)
                try await outputs.enqueueInTransaction(records)
            case .atLeastOnce:
                if records.count > 0 { batch.delivering(try await outputs.enqueue(records)) }
            }
            records.removeAll()
        } catch {
            throw await failed(taking: &batch, cause: error)
        }
    }

    /// Exactly once: outputs, changelog writes and offsets in one transaction. At least once:
    /// the changelog writes once every other output is acknowledged, then the offsets once they
    /// are. The batch is empty afterwards.
    ///
    /// Throws ``BatchNotCommitted`` when the batch did not commit; its outputs are then aborted
    /// (exactly once) or may be repeated (at least once), and the worker must start over from
    /// the last commit. A committed batch's changelog records are held in `stores`, for the
    /// loop to write; returns the partitions whose stores are to be deleted
    /// (``finish(_:consumer:stores:)``).
    func commit(
        _ batch: inout OpenBatch, states: inout DeviceStates, consumer: any InputConsumer,
        stores: inout StateDirectory?
    ) async throws -> Set<Int32> {
        guard let sealed = try await seal(&batch, states: &states, consumer: consumer) else { return [] }
        do {
            try await settle(sealed.seal)
        } catch {
            throw await failed(sealed, cause: error)
        }
        return try await finish(sealed, consumer: consumer, stores: &stores)
    }

    /// The first step of a commit, once every output of the batch is with the producer: takes
    /// the batch, leaving an empty one, and seals it (nil for an empty batch). The loop may take
    /// the next records while ``settle(_:)`` waits, as long as it hands no output to the
    /// producer until ``finish(_:consumer:stores:)``. The devices the batch changed are copied
    /// from `states` for the device rows, and `states` seals its batch (``DeviceStates/seal()``),
    /// whose number the rows carry.
    func seal(_ batch: inout OpenBatch, states: inout DeviceStates, consumer: any InputConsumer) async throws
        -> SealedBatch?
    {
        guard !batch.isEmpty else { return nil }
        let number = states.seal()
        if keepsDeviceRows {
            batch.storeWrites.rows = batch.changedRows.rows(in: states)
            batch.storeWrites.rowsThrough = number
        }
        do {
            let outcome: BatchSeal.Outcome
            switch delivery {
            case .exactlyOnce:
                try beginTransaction(of: &batch)
                outcome = .transaction(try consumer.groupMetadata())
            case .atLeastOnce:
                if case .delivering(let deliveries) = batch.outputs {
                    outcome = .deliveries(deliveries)
                } else {
                    outcome = .deliveries([])
                }
            }
            let seal = BatchSeal(offsets: batch.offsetList, outcome: outcome, sealed: .now)
            var taken = OpenBatch()
            swap(&taken, &batch)
            return SealedBatch(taken, seal: seal)
        } catch {
            throw await failed(taking: &batch, cause: error)
        }
    }

    /// The waiting part of a commit, which touches no state of the loop. Exactly once: the
    /// offsets join the transaction and it commits. At least once: every output but the
    /// changelog is acknowledged.
    func settle(_ seal: BatchSeal) async throws {
        switch seal.outcome {
        case .transaction(let groupMetadata):
            try await outputs.sendOffsetsToTransaction(seal.offsets, groupMetadata: groupMetadata)
            try await commitRetrying()
        case .deliveries(let deliveries):
            for pending in deliveries { try await pending.reports().throwFirstError() }
        }
    }

    /// The last step of a commit, after ``settle(_:)``: at least once, the changelog writes and
    /// then the offsets. Then the committed changelog records are held for the local stores
    /// (``StateDirectory/hold(_:now:)``), to be written once they are due. Counts the batch.
    /// Returns the partitions whose stores a delivery report left without a checkpoint, to be
    /// deleted (``StoreWrites/hold(in:)``).
    func finish(_ sealed: consuming SealedBatch, consumer: any InputConsumer, stores: inout StateDirectory?)
        async throws -> Set<Int32>
    {
        var storeWrites = sealed.batch.storeWrites
        if case .deliveries = sealed.seal.outcome {
            do {
                if sealed.batch.changelog.count > 0 {
                    let deliveries = try await outputs.enqueue(sealed.batch.changelog)
                    try await deliveries.reports().throwFirstError()
                    if keepsStores { storeWrites.add(changelogOf: sealed.batch.changelog, deliveries: deliveries) }
                }
                try await consumer.commit(sealed.seal.offsets)
            } catch {
                throw await failed(sealed, cause: error)
            }
        }
        let unchecked = await storeWrites.hold(in: &stores)
        trimmer?.committed(sealed.seal.offsets)
        let now = ContinuousClock.now
        metrics.commitDuration.recordInterval(since: sealed.seal.sealed, now: now)
        if let started = sealed.batch.started { metrics.batchDuration.recordInterval(since: started, now: now) }
        metrics.committed(sealed.batch, now: WorkerMetrics.wallClockMilliseconds)
        return unchecked
    }

    /// Begins the batch's transaction unless it has begun.
    private func beginTransaction(of batch: inout OpenBatch) throws {
        guard !batch.inTransaction else { return }
        try outputs.beginTransaction()
        batch.outputs = .inTransaction
    }

    /// Commits, trying again while librdkafka says the error is retriable.
    private func commitRetrying(attempts: Int = 5) async throws {
        for attempt in 1... {
            do {
                return try await outputs.commitTransaction()
            } catch let error as KafkaError where error.isRetriable && attempt < attempts {
                logger.warning(
                    "retrying the transaction commit", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
            }
        }
    }

    /// Drops the batch without committing it: its transaction is aborted (exactly once), its
    /// outputs may be repeated after a restart (at least once). The batch is empty afterwards.
    func abandon(_ batch: inout OpenBatch) async {
        if batch.inTransaction { await abortTransaction() }
        batch = OpenBatch()
    }

    /// A sealed batch that did not commit: aborts its transaction where it needs it and says why.
    func failed(_ sealed: consuming SealedBatch, cause: any Error) async -> BatchNotCommitted {
        await failed(offsets: sealed.seal.offsets, inTransaction: sealed.batch.inTransaction, cause: cause)
    }

    /// An open batch that cannot commit: as ``failed(_:cause:)``, leaving the batch empty.
    private func failed(taking batch: inout OpenBatch, cause: any Error) async -> BatchNotCommitted {
        defer { batch = OpenBatch() }
        return await failed(offsets: batch.offsetList, inTransaction: batch.inTransaction, cause: cause)
    }

    private func failed(offsets: [TopicPartitionOffset], inTransaction: Bool, cause: any Error) async
        -> BatchNotCommitted
    {
        // Abort whatever failed (a refused output too: its transaction would otherwise stay open
        // until the broker times it out, holding back read_committed readers and restores),
        // unless the producer is fenced or broken for good.
        if inTransaction, !((cause as? KafkaError)?.isFatal ?? false) { await abortTransaction() }
        metrics.failedBatches.increment()
        return BatchNotCommitted(cause: cause, offsets: offsets)
    }

    private func abortTransaction() async {
        do {
            try await outputs.abortTransaction()
        } catch {
            logger.error("aborting the transaction failed", metadata: ["error": "\(error)"])
        }
    }
}
