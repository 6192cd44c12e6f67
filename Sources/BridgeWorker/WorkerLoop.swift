import BridgeCore
import BridgeHealth
import BridgeStore
import Kafka
import Logging

/// The worker's loop and everything it owns: the device state of its partitions, the open
/// batch, and the outputs not yet handed to the producer. Rebalances arrive as events of the
/// poll, so the state needs no lock: a revocation commits the batch at hand before the
/// partitions go, an assignment restores their state before any of their records.
struct WorkerLoop: ~Copyable {
    let consumer: any InputConsumer
    let processor: RecordProcessor
    let committer: BatchCommitter
    let restorer: ChangelogRestorer
    /// The repartition topic, whose partitions are the state partitions.
    let stateTopic: String
    let maxBatchRecords: Int
    /// Told of every turn and of each step to readiness.
    let health: WorkerHealth
    /// Questions about the state held, answered at each turn.
    let queries: StateQueries
    let logger: Logger

    private var states = DeviceStates()
    /// The local stores of the state partitions held; nil keeps state in memory only.
    private var stores: StateDirectory?
    /// The write to `stores` under way, if any (``writeDueRecords(now:)``).
    private var storeWrite: StoreWriteInFlight?
    /// How the state partitions are served from their device rows; nil holds every device.
    private let served: ServedDevices?
    /// The idle sweeps' scan of the rows under way, if any (``scanIdleDevices()``).
    private var idleScan: IdleScanInFlight?
    private var batch = OpenBatch()
    private var produced = OutputRecords()
    private var progress: ProgressLog
    private var rejections: RejectionLog
    private var stateGauges: StateGauges

    init(
        consumer: any InputConsumer, processor: RecordProcessor, committer: BatchCommitter,
        restorer: ChangelogRestorer, stores: StateDirectory? = nil, served: ServedDevices? = nil, stateTopic: String,
        maxBatchRecords: Int, health: WorkerHealth, queries: StateQueries = StateQueries(), logger: Logger
    ) {
        self.stores = stores
        self.served = stores?.keepsDeviceRows == true ? served : nil
        var restorer = restorer
        restorer.served = self.served
        self.consumer = consumer
        self.processor = processor
        self.committer = committer
        self.restorer = restorer
        self.stateTopic = stateTopic
        self.maxBatchRecords = maxBatchRecords
        self.health = health
        self.queries = queries
        self.logger = logger
        self.progress = ProgressLog(logger: logger)
        self.rejections = RejectionLog(logger: logger)
        self.stateGauges = StateGauges(metrics: committer.metrics)
    }

    /// Takes what has arrived, handles it, hands the outputs to the producer, and commits each
    /// batch when it is due, until graceful shutdown; then commits the last batch.
    ///
    /// While one poll's records are handled, the next poll already runs on the consumer's own
    /// thread, and while a batch commits, the records that arrive meanwhile are processed (see
    /// ``commitTaking(_:)``). Only after records: a poll that returned a rebalance is handled
    /// before the next begins, because the next poll is what completes a revocation.
    mutating func run() async throws {
        do {
            let consumer = self.consumer
            var events = try await poll()
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                health.turned()
                answerQueries()
                if events.allSatisfy(\.isRecord) {
                    let (maxRecords, timeout) = pollLimits(after: events.count)
                    async let next = consumer.poll(maxRecords: maxRecords, timeout: timeout)
                    try await handle(events)
                    let polled = try await next
                    events = committer.isDue(batch, now: .now) ? try await commitTaking(polled) : polled
                } else {
                    try await handle(events)
                    if committer.isDue(batch, now: .now) {
                        try await commit()
                    }
                    events = try await poll()
                }
            }
            health.set(.stopping)
            try await handle(events)
            try await commit()
            try await settleIdleScan()
            try await writeHeldRecords()
            flushRows()
        } catch {
            await committer.abandon(&batch)
            do {
                // Awaited, so that no write or scan outlives the loop; their errors are not the one thrown.
                _ = try? await idleScan?.found.value()
                try await settleStoreWrite()
            } catch let failure {
                logger.error(
                    "the local store write under way failed too; the worker ends with another error",
                    metadata: ["error": "\(failure)"])
            }
            throw error
        }
    }

    /// Answers the endpoints' questions about devices from the state held now.
    private func answerQueries() {
        queries.answerWaiting { [states, processor] token in
            let (partition, partitions) = processor.statePartition(ofDevice: token)
            guard let topics = states.subscriptions(of: token, in: partition) else {
                return .elsewhere(partition: partition, partitions: partitions)
            }
            return .topics(topics, partition: partition, partitions: partitions)
        }
    }

    /// Commits the batch at hand and, while the commit is under way, processes the records
    /// `polled` and those that arrive meanwhile into the next batch, up to its size, as
    /// ``CommitOverlap`` decides. Their outputs stay with the loop until the commit is done (one
    /// transaction at a time), and the loop's state is the loop's alone: the commit task touches
    /// none of it. A commit that fails ends the worker, so state built past it is never used.
    /// The records earlier commits held for the local stores are written once they are due,
    /// beside this commit and the ones after it (``writeDueRecords(now:)``).
    /// Returns the events to handle next: what arrived as the commit ended, or a rebalance.
    private mutating func commitTaking(_ polled: [ConsumerEvent]) async throws -> [ConsumerEvent] {
        let committing = inputMix
        // Before the seal: a failed store write then ends the worker with its batch open, which
        // the loop abandons, never a sealed one neither committed nor failed.
        try await writeDueRecords(now: .now)
        guard let sealed = try await committer.seal(&batch, states: &states, consumer: consumer) else { return polled }
        let (committer, consumer, seal) = (self.committer, self.consumer, sealed.seal)
        let pollTimeout = min(committer.interval, Self.pollDuringCommit)
        var overlap = CommitOverlap()
        await withTaskGroup(of: CommitStep.self) { group in
            group.addTask {
                do {
                    try await committer.settle(seal)
                    return .settled(.success(()))
                } catch { return .settled(.failure(error)) }
            }
            var arrived: [ConsumerEvent]? = polled
            while true {
                if let events = arrived,
                    overlap.polled(events, hasRoom: hasRoomDuringCommit(committing: committing)) == .take
                {
                    do {
                        var records = try await prepare(events.compactMap(\.record))
                        while let record = records.popLast() { try take(record) }
                    } catch {
                        overlap.failed(error)
                    }
                    progress.record(inputs: events.count)
                    if overlap.pollsAgain(hasRoom: hasRoomDuringCommit(committing: committing)) {
                        let maxRecords = pollLimits().maxRecords
                        group.addTask {
                            do {
                                return .polled(
                                    .success(try await consumer.poll(maxRecords: maxRecords, timeout: pollTimeout)))
                            } catch { return .polled(.failure(error)) }
                        }
                    }
                }
                arrived = nil
                guard let step = await group.next() else { break }
                switch step {
                case .settled(let outcome): overlap.settled(outcome)
                case .polled(.success(let events)): arrived = events
                case .polled(.failure(let error)): overlap.failed(error)
                }
            }
        }
        switch overlap.ending() {
        case .commitFailed(let error, let pollFailure):
            logNotThrown(pollFailure.map { [$0] } ?? [])
            throw await committer.failed(sealed, cause: error)
        case .finish(let failure, let held):
            let unchecked: Set<Int32>
            do {
                unchecked = try await committer.finish(sealed, consumer: consumer, stores: &stores)
            } catch {
                logNotThrown(failure.map { [$0] } ?? [])
                throw error
            }
            // A poll's failure ends the worker first: the stores to delete then hold nothing past
            // their checkpoints, and a restore finds them valid.
            if let failure { throw failure }
            try await discardStores(unchecked)
            return held
        }
    }

    /// Logs the failures beside a commit that end the worker without being its error.
    private func logNotThrown(_ failures: [any Error]) {
        for failure in failures {
            logger.error(
                "also failed while the batch committed; the worker ends with another error",
                metadata: ["error": "\(failure)"])
        }
    }

    /// Whether the next batch may take more records while the one before commits: its outputs
    /// stay under their share of a batch, by what the two batches mix (``InputMix/overlapShare(committing:open:)``).
    private func hasRoomDuringCommit(committing: InputMix) -> Bool {
        let share = InputMix.overlapShare(committing: committing, open: inputMix)
        return batch.records < maxBatchRecords && produced.byteCount < committer.maxBytes / share
    }

    private var inputMix: InputMix { batch.inputMix(stateTopic: stateTopic) }

    /// A poll waits for records until the open batch is due, and takes no more than there is
    /// room for in it, once `pending` records not yet in the batch are.
    private func pollLimits(after pending: Int = 0) -> (maxRecords: Int, timeout: Duration) {
        let room = max(1, maxBatchRecords - batch.records - pending)
        let timeout =
            committer.timeUntilDue(batch, now: .now) ?? (pending > 0 ? committer.interval : .milliseconds(100))
        return (min(room, 1_000), timeout)
    }

    private func poll() async throws -> [ConsumerEvent] {
        let (maxRecords, timeout) = pollLimits()
        return try await consumer.poll(maxRecords: maxRecords, timeout: timeout)
    }

    private mutating func handle(_ events: [ConsumerEvent]) async throws {
        var records: [DecodedRecord<ConsumerRecord>] = []
        for (index, event) in zip(events.indices, events) {
            // A rebalance may release or replace the rows the idle scan reads.
            if event.isRebalance { try await settleIdleScan() }
            switch event {
            case .record(let record):
                if records.isEmpty {
                    records = try await prepare(events[index...].prefix { !$0.isRebalance }.compactMap(\.record))
                }
                try take(records.popLast() ?? processor.decode(record))
                // Outputs go to the producer in bounded runs, and a full batch commits at once,
                // even in the middle of a poll: one poll cannot outgrow a batch.
                if produced.count >= Self.outputRun || committer.isFull(batch) {
                    try await sendProduced()
                }
                if committer.isFull(batch) {
                    try await commit()
                    // The seal let go of what the batch read of topics' members: the rest of
                    // the poll is prepared again.
                    records.removeAll()
                }
            case .partitionsAssigned(let partitions):
                try await restore(assigned: partitions)
            case .partitionsRevoked(let partitions, lost: false):
                try await sendProduced()
                try await commit()
                try await writeHeldRecords()
                for partition in partitions where partition.topic == stateTopic {
                    suspendOrDrop(partition.partition)
                }
                health.set(.idle)
            case .partitionsRevoked(let partitions, lost: true):
                // Taken already: the batch cannot commit. Its changes to any partition's state
                // are undone with it, so all state goes; an assignment restores it.
                logger.warning(
                    "partitions lost; dropping the open batch and the device state",
                    metadata: ["partitions": "\(partitions)"])
                produced.removeAll()
                await committer.abandon(&batch)
                states.dropAll()
                stores?.releaseAll()
                health.set(.idle)
            case .endOfPartition:
                break
            }
        }
        try await sendProduced()
        try await scanIdleDevices()
        progress.record(inputs: events.count)
        let now = ContinuousClock.now
        rejections.endWindowIfDue(now: now)
        stateGauges.refresh(states, now: now)
        try removeExpiredStores(now: now)
        try await writeDueRecords(now: now)
        if let served, let rows = stores?.rows { served.evict(states: &states, rows: rows) }
    }

    /// Restores the state partitions among `assigned`, however long it takes. The batch at hand
    /// commits first (a restore may outlast a transaction's timeout). The whole assignment is
    /// paused meanwhile and the consumer polled every second, which keeps this worker in its
    /// group (`max.poll.interval.ms`). A rebalance that arrives stops the restore: a revocation
    /// is handled and its partitions leave the restore, an assignment joins it, and the
    /// restore starts again with what is still to restore. The assignment resumes once none is.
    private mutating func restore(assigned: [TopicPartition]) async throws {
        try await sendProduced()
        try await commit()
        // The stores hold everything before the restore reads them.
        try await writeHeldRecords()
        var paused = assigned + (try consumer.assignment()).filter { !assigned.contains($0) }
        try consumer.pause(paused)
        states.discardSuspended(keeping: Set(assigned.filter { $0.topic == stateTopic }.map(\.partition)))
        var pending = assigned
        var arrived: [ConsumerEvent] = []
        while !pending.isEmpty {
            health.set(.restoring)
            let owned = pending.filter { $0.topic == stateTopic }.map(\.partition)
            let (committed, forwards) = try await committedInputs(feeding: owned)
            var rebalances: [ConsumerEvent] = []
            do {
                let tailMembers = try await restorer.restore(
                    owned, committed: committed, forwards: forwards, into: &states, stores: &stores
                ) {
                    [consumer] in
                    for event in try await consumer.poll(maxRecords: Self.pollDuringRestore, timeout: .zero) {
                        if event.isRebalance { rebalances.append(event) } else { arrived.append(event) }
                    }
                    if !rebalances.isEmpty { throw RestoreInterrupted() }
                }
                pending = []
                let rebuilt = owned.filter { !states.isServed($0) }
                for partition in rebuilt {
                    guard let devices = states.devices(in: partition) else { continue }
                    stores?.holdRows(
                        replacing: partition, with: devices, members: states.topics.members(in: partition))
                }
                served?.serve(owned, states: &states, stores: &stores, members: tailMembers)
            } catch is RestoreInterrupted {
                logger.notice("a rebalance stopped the restore; it starts again", metadata: ["partitions": "\(owned)"])
            }
            for event in rebalances {
                switch event {
                case .partitionsAssigned(let added):
                    try consumer.pause(added)
                    paused += added
                    pending += added
                case .partitionsRevoked(let revoked, _):
                    // A partition still restoring holds part of its state: never set aside (the
                    // restore has dropped it already; this keeps it so whatever the restore does).
                    for partition in revoked where partition.topic == stateTopic && pending.contains(partition) {
                        states.drop(partition.partition)
                    }
                    try await handle([event])
                    paused.removeAll { revoked.contains($0) }
                    pending.removeAll { revoked.contains($0) }
                    arrived.removeAll { $0.topicPartition.map { revoked.contains($0) } ?? false }
                case .record, .endOfPartition:
                    break
                }
            }
        }
        health.set(states.partitionCount == 0 ? .idle : .ready)
        stateGauges.refresh(states, now: .now, force: true)
        try await consumer.resume(paused)
        try await handle(arrived)
    }

    /// Starts writing the records held for the local stores once they are due, on NIO's thread
    /// pool, to run on beside the loop's commits, once the write before has ended; throws that
    /// write's error (a full disk ends the worker: the changelog has every record it held, and
    /// each store's checkpoint stays where its records end).
    private mutating func writeDueRecords(now: ContinuousClock.Instant) async throws {
        if let write = storeWrite {
            guard write.hasEnded || storeBacklogIsFull else { return }
            try await settleStoreWrite()
        }
        guard let due = stores?.takeUnwrittenIfDue(now: now) else { return }
        storeWrite = StoreWriteInFlight(due)
    }

    /// Whether the records held for the stores reach twice what makes a write due: the loop then
    /// waits for the write under way rather than hold more, and the disk sets the pace.
    private var storeBacklogIsFull: Bool {
        guard let stores else { return false }
        return stores.writePacing.isBacklogFull(holding: stores.unwritten.count)
    }

    /// Commits the batch at hand, then deletes the stores it could not checkpoint, and starts
    /// or waits for a store write as ``writeDueRecords(now:)`` says: a poll may fill and commit
    /// many batches.
    private mutating func commit() async throws {
        try await discardStores(
            try await committer.commit(&batch, states: &states, consumer: consumer, stores: &stores))
        try await writeDueRecords(now: .now)
    }

    /// Deletes the stores of `partitions`, which a commit could not checkpoint (a delivery report
    /// of a changelog record without an offset), after the write under way, which may be
    /// writing them.
    private mutating func discardStores(_ partitions: Set<Int32>) async throws {
        guard !partitions.isEmpty else { return }
        try await settleStoreWrite()
        // Devices held nowhere but in those rows would be lost: the worker ends, and its next
        // start restores them from the changelog.
        if let stores, partitions.contains(where: states.isServed) {
            throw StateDirectoryError(
                path: stores.path,
                "lost its checkpoint for partitions \(partitions.sorted()), whose devices are served from their rows (a changelog record's delivery report had no offset): the worker stops, and the next start restores them from the changelog"
            )
        }
        for partition in partitions.sorted() { try stores?.discard(partition) }
        logger.warning(
            "a changelog record's delivery report had no offset: the partitions' local stores are deleted, and rebuilt from the changelog when next assigned",
            metadata: ["partitions": "\(partitions.sorted())"])
    }

    /// Adds what the idle scan under way found to the sweeps once it has ended, and starts the
    /// scans the sweeps ask for once none runs (``ServedDevices/startIdleScans(states:rows:)``).
    private mutating func scanIdleDevices() async throws {
        guard let served, let rows = stores?.rows else { return }
        if let scan = idleScan {
            guard scan.found.hasEnded else { return }
            try await settleIdleScan()
        }
        idleScan = try served.startIdleScans(states: &states, rows: rows)
    }

    /// Waits for the idle scan under way, if any, and adds what it found to the sweeps; throws
    /// its error. Before a rebalance releases or replaces the rows it reads.
    private mutating func settleIdleScan() async throws {
        guard let scan = idleScan, let served else { return }
        idleScan = nil
        try await served.addIdle(from: scan, to: &states)
    }

    /// Waits for the store write under way, if any; throws its error.
    private mutating func settleStoreWrite() async throws {
        guard let write = storeWrite else { return }
        storeWrite = nil
        try await write.wait()
        if let batch = write.rowsThrough { states.written(through: batch) }
    }

    /// Writes every committed record held for the local stores, due or not, after the write
    /// under way: a store then covers all that committed, as a partition let go (its state kept
    /// to the store's checkpoint) or the next start needs (a restore writes what is held before
    /// it reads the stores). On the loop's thread, which has nothing else to do meanwhile, and
    /// so also when the worker's task is cancelled (a shutdown's deadline).
    private mutating func writeHeldRecords() async throws {
        try await settleStoreWrite()
        guard let write = stores?.takeUnwritten() else { return }
        try write.run()
        if let batch = write.records.rowsThrough { states.written(through: batch) }
    }

    /// Writes the device rows' memtables to disk once every change is written, so that the next
    /// start opens them with no log to replay.
    private func flushRows() {
        for (partition, reason) in stores?.flushRows() ?? [:] {
            logger.notice(
                "device rows not flushed: the next start replays their log",
                metadata: ["partition": "\(partition)", "reason": "\(reason)"])
        }
    }

    /// Lets a revoked state partition go, its batch committed. With a local store, its state is
    /// set aside with the store's checkpoint, which it covers (every change to it committed and
    /// was stored): an assignment that gives the partition back resumes it while the store has
    /// not moved, instead of replaying the store.
    private mutating func suspendOrDrop(_ partition: Int32) {
        if let checkpoint = try? stores?[partition]?.checkpoint(), checkpoint > 0 {
            states.suspend(partition, coveredTo: checkpoint)
        } else {
            states.drop(partition)
        }
        stores?.release(partition)
    }

    /// Deletes the local stores of partitions released longer ago than the cleanup delay, but
    /// those the store write under way writes.
    private mutating func removeExpiredStores(now: ContinuousClock.Instant) throws {
        guard let removed = try stores?.removeExpired(now: now, sparing: storeWrite?.partitions ?? []),
            !removed.isEmpty
        else { return }
        logger.info(
            "deleted the local stores of partitions not owned for the cleanup delay",
            metadata: ["partitions": "\(removed)"])
    }

    /// The group's committed offsets of every input that feeds `partitions` (``CommittedInputs/read(feeding:inputs:stateTopic:from:timeout:)``).
    private func committedInputs(feeding partitions: [Int32]) async throws -> (
        CommittedInputs, forwards: [TopicPartitionOffset]
    ) {
        try await CommittedInputs.read(
            feeding: partitions, inputs: processor.stateInputs, stateTopic: stateTopic, from: consumer,
            timeout: Self.offsetsTimeout)
    }

    /// `records` decoded, last first, with the devices they name read from the rows when
    /// partitions are served from them (``ServedDevices/prepare(_:processor:states:rows:)``): to be
    /// processed in turn, before any device is let go (``ServedDevices/evict(states:rows:)``).
    private mutating func prepare(_ records: [ConsumerRecord]) async throws -> [DecodedRecord<ConsumerRecord>] {
        var decoded =
            if let served, let rows = stores?.rows {
                try await served.prepare(records, processor: processor, states: &states, rows: rows)
            } else {
                records.map { processor.decode($0) }
            }
        decoded.reverseByMoving()
        return decoded
    }

    /// Processes one input record into the open batch.
    private mutating func take(_ record: DecodedRecord<ConsumerRecord>) throws(UnknownRecordKind) {
        try processor.process(record, states: &states, outputs: &produced)
        batch.take(record.record, at: .now)
    }

    private mutating func sendProduced() async throws {
        progress.record(outputs: produced.count)
        var tally = produced.tally
        if !tally.notes.isEmpty {
            rejections.log(tally, now: .now)
            tally.removeNotes()
        }
        batch.tally.add(tally)
        try await committer.send(&produced, in: &batch)
    }

    /// How long reading the group's committed offsets may take.
    private static let offsetsTimeout = Duration.seconds(10)
    /// Outputs handed to the producer at a time.
    private static let outputRun = 2_000
    /// Events a poll during a restore takes: the assignment is paused, so records are few.
    private static let pollDuringRestore = 100
    /// How long a poll during a commit waits for records: the commit may end meanwhile.
    private static let pollDuringCommit = Duration.milliseconds(10)
}

/// What a commit taking records meanwhile waits for: its commit, or a poll.
private enum CommitStep: Sendable {
    case settled(Result<Void, any Error>)
    case polled(Result<[ConsumerEvent], any Error>)
}

/// A rebalance arrived while partitions were restored.
private struct RestoreInterrupted: Error {}
