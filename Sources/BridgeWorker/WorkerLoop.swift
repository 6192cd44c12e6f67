import BridgeCore
import Kafka
import Logging

/// The worker's loop and everything it owns: the device state of its partitions, the open
/// batch, and the outputs not yet handed to the producer. Rebalances arrive as events of the
/// poll, so the state needs no lock: a revocation commits the batch at hand before the
/// partitions go, an assignment restores their state before any of their records.
struct WorkerLoop: ~Copyable {
    let consumer: KafkaConsumer
    let processor: RecordProcessor
    let committer: BatchCommitter
    let restorer: ChangelogRestorer
    /// The repartition topic, whose partitions are the state partitions.
    let stateTopic: String
    let maxBatchRecords: Int
    /// Told of every turn and of each step to readiness.
    let health: WorkerHealth
    let logger: Logger

    private var states = DeviceStates()
    private var batch = OpenBatch()
    private var produced = OutputRecords()
    private var progress: ProgressLog
    private var rejections: RejectionLog
    private var stateGauges: StateGauges

    init(consumer: KafkaConsumer, processor: RecordProcessor, committer: BatchCommitter, restorer: ChangelogRestorer,
         stateTopic: String, maxBatchRecords: Int, health: WorkerHealth, logger: Logger) {
        self.consumer = consumer
        self.processor = processor
        self.committer = committer
        self.restorer = restorer
        self.stateTopic = stateTopic
        self.maxBatchRecords = maxBatchRecords
        self.health = health
        self.logger = logger
        self.progress = ProgressLog(logger: logger)
        self.rejections = RejectionLog(logger: logger)
        self.stateGauges = StateGauges(metrics: committer.metrics)
    }

    /// Takes what has arrived, handles it, hands the outputs to the producer, and commits each
    /// batch when it is due, until graceful shutdown; then commits the last batch.
    ///
    /// While one poll's records are handled, the next poll already runs on the consumer's own
    /// thread. Only after records: a poll that returned a rebalance is handled before the next
    /// begins, because the next poll is what completes a revocation.
    mutating func run() async throws {
        do {
            let consumer = self.consumer
            var events = try await poll()
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                health.turned()
                if events.allSatisfy(\.isRecord) {
                    let (maxRecords, timeout) = pollLimits(after: events.count)
                    async let next = consumer.poll(maxRecords: maxRecords, timeout: timeout)
                    try await handle(events)
                    events = try await next
                } else {
                    try await handle(events)
                    events = try await poll()
                }
            }
            health.set(.stopping)
            try await handle(events)
            try await committer.commit(&batch, consumer: consumer)
        } catch {
            await committer.abandon(&batch)
            throw error
        }
    }

    /// A poll waits for records until the open batch is due, and takes no more than there is
    /// room for in it, once `pending` records not yet in the batch are.
    private func pollLimits(after pending: Int = 0) -> (maxRecords: Int, timeout: Duration) {
        let room = max(1, maxBatchRecords - batch.records - pending)
        let timeout = committer.timeUntilDue(batch, now: .now) ?? (pending > 0 ? committer.interval : .milliseconds(100))
        return (min(room, 1_000), timeout)
    }

    private func poll() async throws -> [ConsumerEvent] {
        let (maxRecords, timeout) = pollLimits()
        return try await consumer.poll(maxRecords: maxRecords, timeout: timeout)
    }

    private mutating func handle(_ events: [ConsumerEvent]) async throws {
        for event in events {
            switch event {
            case .record(let record):
                processor.process(record, states: &states, outputs: &produced)
                batch.take(record, at: .now)
                // Outputs go to the producer in bounded runs, and a full batch commits at once,
                // even in the middle of a poll: one poll cannot outgrow a batch.
                if produced.count >= Self.outputRun || committer.isFull(batch) {
                    try await sendProduced()
                }
                if committer.isFull(batch) {
                    try await committer.commit(&batch, consumer: consumer)
                }
            case .partitionsAssigned(let partitions):
                let owned = partitions.filter { $0.topic == stateTopic }
                health.set(.restoring)
                let forwards = owned.isEmpty ? [] : try await consumer.committed(owned)
                try await restorer.restore(owned.map(\.partition), forwards: forwards, into: &states)
                health.set(owned.isEmpty ? .idle : .ready)
                stateGauges.refresh(states, now: .now, force: true)
            case .partitionsRevoked(let partitions, lost: false):
                try await sendProduced()
                try await committer.commit(&batch, consumer: consumer)
                for partition in partitions where partition.topic == stateTopic {
                    states.drop(partition.partition)
                }
                health.set(.idle)
            case .partitionsRevoked(let partitions, lost: true):
                // Taken already: the batch cannot commit. Its changes to any partition's state
                // are undone with it, so all state goes; an assignment restores it.
                logger.warning("partitions lost; dropping the open batch and the device state", metadata: ["partitions": "\(partitions)"])
                produced.removeAll()
                await committer.abandon(&batch)
                states = DeviceStates()
                health.set(.idle)
            case .endOfPartition:
                break
            }
        }
        try await sendProduced()
        progress.record(inputs: events.count)
        let now = ContinuousClock.now
        rejections.endWindowIfDue(now: now)
        stateGauges.refresh(states, now: now)
        if committer.isDue(batch, now: now) {
            try await committer.commit(&batch, consumer: consumer)
        }
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

    /// Outputs handed to the producer at a time.
    private static let outputRun = 2_000
}

extension ConsumerEvent {
    var isRecord: Bool {
        if case .record = self { true } else { false }
    }
}
