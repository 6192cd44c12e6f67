import BridgeConfig
import BridgeCore
import Kafka
import Logging

/// A batch being built: the input offsets it covers and what its outputs cost, from its first
/// record until it is committed.
struct OpenBatch: ~Copyable {
    /// What the batch took of one input partition.
    struct Taken {
        /// The next offset to read.
        var next: Int64 = 0
        /// Records taken.
        var records = 0
    }

    /// What the batch took of each input partition it holds records of.
    var offsets: [TopicPartition: Taken] = [:]
    /// Input records in the batch.
    var records = 0
    /// Output bytes (keys, values and header values) in the batch.
    var bytes = 0
    /// When its first record was taken.
    var started: ContinuousClock.Instant?
    /// The delivery reports of its outputs.
    var deliveries: [PendingDeliveries] = []
    /// Exactly once: its transaction has begun.
    var inTransaction = false
    /// At least once: its changelog writes, held back until the outputs they describe are
    /// acknowledged, so that a crash can never leave the changelog ahead of the outputs.
    var changelog = OutputRecords()
    /// What its outputs are, for the metrics.
    var tally = OutputTally()
    /// The CreateTime of each input that has one, for the latency metric.
    var createTimes: [Int64] = []

    /// No input record taken yet.
    var isEmpty: Bool { offsets.isEmpty }

    /// The offsets to commit: the next one to read of each partition.
    var offsetList: [TopicPartitionOffset] { offsets.map { TopicPartitionOffset($0.key, offset: $0.value.next) } }

    /// Counts an input record taken into the batch.
    mutating func take(_ record: ConsumerRecord, at now: @autoclosure () -> ContinuousClock.Instant) {
        if started == nil { started = now() }
        offsets[record.topicPartition, default: Taken()].take(record.offset)
        records += 1
        if let createTime = record.createTime { createTimes.append(createTime) }
    }
}

extension OpenBatch.Taken {
    mutating func take(_ offset: Int64) {
        next = offset &+ 1
        records += 1
    }
}

/// Makes a batch's outputs durable and commits the input offsets they cover, by the configured
/// delivery guarantee: outputs are handed to the producer as they are made, and the batch is
/// committed when its interval has passed or it is full.
struct BatchCommitter: Sendable {
    let delivery: BridgeConfiguration.Delivery
    let producer: KafkaProducer
    let outputs: OutputProducer
    let interval: Duration
    let maxRecords: Int
    let maxBytes: Int
    /// Told of every commit, to trim the repartition topic behind it.
    var trimmer: RepartitionTrimmer?
    /// Counts what each commit covers.
    var metrics = WorkerMetrics.none
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
    /// empties them for the next run.
    func send(_ records: inout OutputRecords, in batch: inout OpenBatch) async throws {
        guard records.count > 0 else { return }
        batch.bytes += records.byteCount
        if delivery == .atLeastOnce { records.move(.changelog, to: &batch.changelog) }
        do {
            switch delivery {
            case .exactlyOnce:
                try beginTransaction(of: &batch)
                try await outputs.enqueueInTransaction(records)
            case .atLeastOnce:
                if records.count > 0 { batch.deliveries.append(try await outputs.enqueue(records)) }
            }
            records.removeAll()
        } catch {
            throw await failed(&batch, cause: error)
        }
    }

    /// Exactly once: outputs, changelog writes and offsets in one transaction. At least once:
    /// the changelog writes once every other output is acknowledged, then the offsets once they
    /// are. The batch is empty afterwards.
    ///
    /// Throws ``BatchNotCommitted`` when the batch did not commit; its outputs are then aborted
    /// (exactly once) or may be repeated (at least once), and the worker must start over from
    /// the last commit.
    func commit(_ batch: inout OpenBatch, consumer: KafkaConsumer) async throws {
        guard let seal = try await seal(&batch, consumer: consumer) else { return }
        do {
            try await settle(seal)
        } catch {
            throw await failed(&batch, cause: error)
        }
        try await finish(&batch, seal, consumer: consumer)
    }

    /// The first step of a commit, once every output of the batch is with the producer: what the
    /// wait for its outcome needs (nil for an empty batch). The loop may take the next records
    /// while ``settle(_:)`` waits, as long as it hands no output to the producer until
    /// ``finish(_:_:consumer:)``.
    func seal(_ batch: inout OpenBatch, consumer: KafkaConsumer) async throws -> BatchSeal? {
        guard !batch.isEmpty else { return nil }
        do {
            let outcome: BatchSeal.Outcome
            switch delivery {
            case .exactlyOnce:
                try beginTransaction(of: &batch)
                outcome = .transaction(try consumer.groupMetadata())
            case .atLeastOnce:
                outcome = .deliveries(batch.deliveries)
            }
            return BatchSeal(offsets: batch.offsetList, outcome: outcome, sealed: .now)
        } catch {
            throw await failed(&batch, cause: error)
        }
    }

    /// The waiting part of a commit, which touches no state of the loop. Exactly once: the
    /// offsets join the transaction and it commits. At least once: every output but the
    /// changelog is acknowledged. On an error, the batch must be given to ``failed(_:cause:)``.
    func settle(_ seal: BatchSeal) async throws {
        switch seal.outcome {
        case .transaction(let groupMetadata):
            try await producer.sendOffsetsToTransaction(seal.offsets, groupMetadata: groupMetadata)
            try await commitRetrying()
        case .deliveries(let deliveries):
            for pending in deliveries { try await pending.reports().throwFirstError() }
        }
    }

    /// The last step of a commit, after ``settle(_:)``: at least once, the changelog writes and
    /// then the offsets. Counts the batch and empties it.
    func finish(_ batch: inout OpenBatch, _ seal: BatchSeal, consumer: KafkaConsumer) async throws {
        if case .deliveries = seal.outcome {
            do {
                if batch.changelog.count > 0 { try await outputs.enqueue(batch.changelog).reports().throwFirstError() }
                try await consumer.commit(seal.offsets)
            } catch {
                throw await failed(&batch, cause: error)
            }
        }
        trimmer?.committed(seal.offsets)
        let now = ContinuousClock.now
        metrics.commitDuration.recordInterval(since: seal.sealed, now: now)
        if let started = batch.started { metrics.batchDuration.recordInterval(since: started, now: now) }
        metrics.committed(batch, now: WorkerMetrics.wallClockMilliseconds)
        batch = OpenBatch()
    }

    /// Begins the batch's transaction unless it has begun.
    private func beginTransaction(of batch: inout OpenBatch) throws {
        guard !batch.inTransaction else { return }
        try producer.beginTransaction()
        batch.inTransaction = true
    }

    /// Commits, trying again while librdkafka says the error is retriable.
    private func commitRetrying(attempts: Int = 5) async throws {
        for attempt in 1... {
            do {
                return try await producer.commitTransaction()
            } catch let error as KafkaError where error.isRetriable && attempt < attempts {
                logger.warning(
                    "retrying the transaction commit", metadata: ["error": "\(error)", "attempt": "\(attempt)"])
            }
        }
    }

    /// Drops the batch without committing it: its transaction is aborted (exactly once), its
    /// outputs may be repeated after a restart (at least once).
    func abandon(_ batch: inout OpenBatch) async {
        if batch.inTransaction {
            do {
                try await producer.abortTransaction()
            } catch {
                logger.error("aborting the transaction failed", metadata: ["error": "\(error)"])
            }
        }
        batch = OpenBatch()
    }

    /// Aborts the batch's transaction where it needs it and says why the batch failed.
    func failed(_ batch: inout OpenBatch, cause: any Error) async -> BatchNotCommitted {
        let offsets = batch.offsetList
        // Abort whatever failed (a refused output too: its transaction would otherwise stay open
        // until the broker times it out, holding back read_committed readers and restores),
        // unless the producer is fenced or broken for good.
        if batch.inTransaction, !((cause as? KafkaError)?.isFatal ?? false) {
            await abandon(&batch)
        }
        batch = OpenBatch()
        metrics.failedBatches.increment()
        return BatchNotCommitted(cause: cause, offsets: offsets)
    }
}

/// What waiting for a sealed batch's commit needs, and nothing of the loop's.
struct BatchSeal: Sendable {
    /// What says whether the outputs are durable, by delivery guarantee.
    enum Outcome: Sendable {
        /// Exactly once: the transaction's commit, with the input offsets of the consumer group.
        case transaction(ConsumerGroupMetadata)
        /// At least once: the delivery reports of the outputs.
        case deliveries([PendingDeliveries])
    }

    /// The next input offsets to read, which the commit stores.
    var offsets: [TopicPartitionOffset]
    /// What says whether the batch's outputs are durable.
    var outcome: Outcome
    /// When the commit began.
    var sealed: ContinuousClock.Instant
}

/// A batch's outputs were not all made durable, so its offsets were not committed.
struct BatchNotCommitted: Error, CustomStringConvertible {
    var cause: any Error
    var offsets: [TopicPartitionOffset]
    var description: String {
        "the batch up to \(offsets) was not committed (\(cause)); a restart resumes from the last commit, with the same message ids"
    }
}
