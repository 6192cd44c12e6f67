import BridgeCore
import BridgeHealth
import BridgeStore
import DeviceQueues
import DeviceStore
import Kafka
import Logging
import NIOCore

/// Rebuilds the device state of partitions from their changelog: reads each changelog partition
/// from the beginning to its high watermark and replays every change whose input the group has
/// committed (``CommittedInputs``): never one of a transaction that did not commit, even where
/// the broker shows aborted records, nor one of work the group will do again. Reads the
/// repartition partitions too, from the group's committed offsets to their high watermark, to
/// learn which devices have inputs on their way (``DeviceStates/restoreForward(_:)``). Says how
/// far it is every few seconds, and calls its caller back every second (a group member keeps
/// its place meanwhile). A restore making progress runs as long as it must: one that reads
/// nothing and reaches no end for a while (a broker that lost track of a fetch) starts over
/// with a new consumer, and after ``stallLimit`` such attempts in a row throws, naming what
/// each partition's fetches reported.
@_spi(Benchmarks) public struct ChangelogRestorer: Sendable {
    let consumerConfiguration: KafkaConsumerConfiguration
    let codec: ChangelogCodec
    /// The repartition topic, whose partitions are the state partitions.
    let repartitionTopic: String
    /// How long an attempt may go without reading a record or reaching an end before the restore
    /// starts over.
    var stallTimeout: Duration = .seconds(60)
    /// How many attempts in a row may stall before the restore fails.
    var stallLimit = 3
    /// How often a restore calls its caller back.
    var keepAliveInterval = Duration.seconds(1)
    /// Records of a local store read and decoded at a time.
    var storePart = 4_096
    /// How the state partitions are served from their device rows; nil holds every device.
    var served: ServedDevices?
    /// Told that the restore turns, so that a long restore does not count as a stuck worker.
    let health: WorkerHealth?
    /// Counts restores and what they replayed.
    let metrics: WorkerMetrics
    let logger: Logger

    /// A restorer reading `changelogTopic` with consumers configured like `consumerConfiguration`.
    public init(
        consumerConfiguration: KafkaConsumerConfiguration, changelogTopic: String, repartitionTopic: String,
        health: WorkerHealth? = nil, metrics: WorkerMetrics = .none, logger: Logger
    ) {
        self.consumerConfiguration = consumerConfiguration
        self.codec = ChangelogCodec(topic: changelogTopic)
        self.repartitionTopic = repartitionTopic
        self.health = health
        self.metrics = metrics
        self.logger = logger
    }

    /// Restores `partitions` into `states`, keeping the changes of the inputs `committed`
    /// covers; `forwards` are the repartition partitions' committed offsets (none: nothing is on
    /// its way). Calls `keepAlive` about every second between reads: an error it throws stops
    /// the restore and is thrown. A restore that throws leaves none of `partitions` in `states`.
    public func restore(
        _ partitions: [Int32], committed: CommittedInputs, forwards: [TopicPartitionOffset] = [],
        into states: inout DeviceStates, keepAlive: () async throws -> Void = {}
    ) async throws {
        var stores: StateDirectory? = nil
        _ = try await restore(
            partitions, committed: committed, forwards: forwards, into: &states, stores: &stores, keepAlive: keepAlive)
    }

    /// ``restore(_:committed:forwards:into:keepAlive:)`` through the local `stores`: a partition
    /// whose store is valid replays it and then only the changelog after its checkpoint; one in
    /// doubt is deleted, logged and restored from the whole changelog. What is read from the
    /// changelog is written to the store, so that it ends covering the changelog to its end.
    /// A partition with state set aside at its store's checkpoint resumes it instead of replaying
    /// the store (``DeviceStates/resume(_:coveredTo:servedStoreCoveredTo:)``); a restore that throws, or an attempt that
    /// starts over, lets that state go with the rest. The records a restore keeps are held in
    /// `stores` until their pacing says (``StateDirectory/hold(_:now:)``); one that throws may
    /// leave some held, which the next restore writes before it reads the stores; after a write
    /// that failed, none. Returns, by partition served from its device rows, the members that
    /// joined or left its topics after the rows' checkpoint, for the rows
    /// (``ServedDevices/serve(_:states:stores:members:)``).
    @discardableResult
    public func restore(
        _ partitions: [Int32], committed: CommittedInputs, forwards: [TopicPartitionOffset] = [],
        into states: inout DeviceStates, stores: inout StateDirectory?, keepAlive: () async throws -> Void = {}
    ) async throws -> [Int32: [MemberRowChange]] {
        guard !partitions.isEmpty else { return [:] }
        let forwards = forwards.filter {
            $0.topicPartition.topic == repartitionTopic && partitions.contains($0.topicPartition.partition)
        }
        let started = ContinuousClock.now
        metrics.restoringPartitions.record(partitions.count)
        defer { metrics.restoringPartitions.record(0) }
        var attempts = 1
        var startsOver = 0
        while true {
            do {
                let replay = try await attempt(
                    partitions, inputs: committed, forwards: forwards, into: &states, stores: &stores,
                    keepAlive: keepAlive)
                metrics.restoreDuration.recordInterval(since: started, now: ContinuousClock.now)
                metrics.restoredChanges.increment(by: replay.changes)
                replay.skipped.log(to: logger)
                logger.info(
                    "restored device state",
                    metadata: [
                        "partitions": "\(partitions)", "changes": "\(replay.changes)",
                        "from_local_stores": "\(replay.fromStores)", "resumed_in_memory": "\(replay.resumed)",
                        "from_device_rows": "\(replay.fromRows)",
                        "uncommitted_changes_dropped": "\(replay.skipped.uncommittedCount)",
                        "devices": "\(states.deviceCount)",
                        "forwards_in_flight": "\(partitions.reduce(0) { $0 + states.forwardsInFlight(in: $1) })",
                        "took": "\(ContinuousClock.now - started)", "attempts": "\(attempts)",
                    ])
                return replay.members
            } catch let startOver as RestoreStartsOver {
                // Not a stall: the stores in doubt are gone, and the next attempt reads their
                // partitions from the beginning. Each store is dropped once; more is a changelog
                // that keeps moving.
                for partition in partitions { states.drop(partition) }
                startsOver += 1
                guard startsOver <= partitions.count + stallLimit else { throw startOver }
            } catch let stall as RestoreStall {
                for partition in partitions { states.drop(partition) }
                guard attempts < stallLimit else {
                    throw RestoreStalled(
                        remaining: stall.remaining, standing: stall.standing, stallTimeout: stallTimeout,
                        attempts: attempts)
                }
                logger.warning(
                    "restoring device state made no progress; starting over with a new consumer",
                    metadata: [
                        "for": "\(stallTimeout)", "standing": "\(stall.standing)", "attempt": "\(attempts)",
                    ])
                attempts += 1
            } catch {
                for partition in partitions { states.drop(partition) }
                throw error
            }
        }
    }

    /// One attempt with a consumer of its own: returns what it replayed and dropped, or throws
    /// ``RestoreStall`` when it stalls.
    private func attempt(
        _ partitions: [Int32], inputs: CommittedInputs, forwards: [TopicPartitionOffset],
        into states: inout DeviceStates, stores: inout StateDirectory?, keepAlive: () async throws -> Void
    ) async throws -> ReplayCount {
        var configuration = consumerConfiguration
        configuration.groupID = nil
        configuration.reportsEndOfPartition = true
        // A checkpoint the changelog does not reach is a store to drop, not a position to reset.
        configuration.autoOffsetReset = .error
        // The reader empties the consumer queue faster than librdkafka's 1 s recheck of a full one.
        configuration.fetchQueueBackoff = .milliseconds(10)
        return try await withKafkaConsumer(configuration: configuration, logger: logger) { consumer in
            try await replay(
                partitions, inputs: inputs, forwards: forwards, with: consumer, into: &states, stores: &stores,
                keepAlive: keepAlive)
        }
    }

    /// Reads the changelog partitions from the beginning and the repartition partitions from
    /// `forwards` until each is read to its high watermark (see ``RestoreProgress``), keeping the
    /// changes of committed `inputs`; returns what it replayed and dropped.
    private func replay(
        _ partitions: [Int32], inputs: CommittedInputs, forwards: [TopicPartitionOffset], with consumer: KafkaConsumer,
        into states: inout DeviceStates, stores: inout StateDirectory?, keepAlive: () async throws -> Void
    ) async throws -> ReplayCount {
        let forwards = forwards.map {
            $0.offset >= 0 ? $0 : TopicPartitionOffset($0.topicPartition, offset: KafkaOffset.beginning)
        }
        var replayed = ReplayCount()
        for partition in partitions { states.adopt(partition) }
        // What an attempt or a restore before this one held and did not write (it failed) goes
        // first: those records run on from each store's checkpoint, and a store read after
        // them covers them. Held behind this attempt's records instead, they would move the
        // checkpoint back below records already stored.
        try await stores?.takeUnwritten()?.runOnThreadPool()
        var starts = try await load(partitions, into: &states, from: &stores)
        try await consumer.assign(
            partitions.map {
                TopicPartitionOffset(
                    TopicPartition(codec.topic, $0), offset: starts.offsets[$0] ?? KafkaOffset.beginning)
            } + forwards)
        // Every worker forwards to the repartition topic: what it holds past its stable end is
        // other workers' open transactions, which their own order covers; read what is committed.
        var progress = RestoreProgress(
            partitions: partitions.map { TopicPartition(codec.topic, $0) } + forwards.map(\.topicPartition),
            readableEndOnly: forwards.map(\.topicPartition))
        var lastReport = ContinuousClock.now
        var lastAdvance = lastReport
        var lastKeptAlive = lastReport
        // Records are decoded on the consumer's thread as they are taken, and applied here.
        // With stores, the records kept are held and written beside the polls.
        var storeWrites = RestoreStoreWrites()
        let storing = stores != nil
        let decode: @Sendable (ConsumedBatch) -> DecodedChanges = {
            self.decode($0, inputs: inputs, storing: storing)
        }
        return try await withThrowingTaskGroup(of: Void.self) { writes in
            do {
                var batch = try await consumer.poll(reading: decode)
                while true {
                    health?.turned()
                    // Before the poll's records are held: nothing at or past a record of a kind
                    // this version does not know is stored.
                    if let unknown = batch.unknownKind { throw UnknownRecordKind(record: unknown) }
                    stores?.hold(batch.stored)
                    batch.stored = StoreBatch()
                    if !batch.offsetsOutOfRange.isEmpty || !starts.unconfirmed.isEmpty {
                        // The check may delete a store: none is being written meanwhile.
                        try await storeWrites.settle(in: &writes)
                    }
                    try await confirm(
                        &starts, outOfRange: batch.offsetsOutOfRange, with: consumer, progress: &progress,
                        stores: &stores)
                    let remaining = progress.remaining.count
                    try note(batch, in: &progress, of: consumer)
                    let now = ContinuousClock.now
                    if progress.remaining.count < remaining || batch.recordCount > 0 {
                        lastAdvance = now
                    }
                    if progress.isComplete {
                        try await storeWrites.finish(from: &stores, in: &writes)
                        try await readRows(namedBy: batch, into: &states, from: stores)
                        replayed.add(&batch, to: &states)
                        replayed.fromStores = starts.records
                        replayed.resumed = starts.resumed
                        replayed.fromRows = starts.fromRows
                        return replayed
                    }
                    // Before the stall check: every attempt, stalled or not, calls back at least once.
                    if now - lastKeptAlive >= keepAliveInterval {
                        lastKeptAlive = now
                        try await keepAlive()
                    }
                    guard now - lastAdvance < stallTimeout else {
                        throw RestoreStall(
                            remaining: progress.remaining, standing: standing(of: progress.remaining, in: consumer))
                    }
                    if now - lastReport >= Self.reportInterval {
                        lastReport = now
                        logger.notice(
                            "restoring device state",
                            metadata: [
                                "changes": "\(replayed.changes)",
                                "remaining": "\(standing(of: progress.remaining, in: consumer))",
                            ])
                    }
                    try await storeWrites.writeIfDue(from: &stores, in: &writes)
                    // While these changes are applied, the next poll already runs and decodes on
                    // the consumer's thread.
                    async let next = consumer.poll(reading: decode)
                    try await readRows(namedBy: batch, into: &states, from: stores)
                    replayed.add(&batch, to: &states)
                    batch = try await next
                }
            } catch {
                try await storeWrites.abandon(after: error, from: &stores, in: &writes)
            }
        }
    }

    /// Reads into `states` the devices and topics' members that `batch`'s changes name in
    /// partitions served from their rows, which a change needs before it applies
    /// (``ServedDevices/read(_:into:rows:)``).
    private func readRows(
        namedBy batch: DecodedChanges, into states: inout DeviceStates, from stores: StateDirectory?
    )
        async throws
    {
        guard let served, let rows = stores?.rows, rows.keys.contains(where: { states.isServed($0) }) else { return }
        var named: [Int32: [String]] = [:]
        for (key, _, partition) in batch.changes where states.isServed(partition) {
            named[partition, default: []].append(key.token)
        }
        var members: [Int32: MemberReads] = [:]
        for case (.member(let topic, let token, _), let partition) in batch.topicChanges
        where states.isServed(partition) {
            members[partition, default: MemberReads()].memberships[topic, default: []].append(token)
        }
        try await served.read(named, into: &states, rows: rows)
        try await served.read(members, into: &states, rows: rows)
    }

    /// Notes the ends of partitions `batch` reached in `progress`; after a poll that took
    /// nothing, the consumer's positions, since an end that did not move is reported once.
    private func note(
        _ batch: DecodedChanges, in progress: inout RestoreProgress<TopicPartition>, of consumer: KafkaConsumer
    ) throws {
        for end in batch.endsOfPartition {
            progress.reachedEnd(
                of: end.topicPartition, position: end.offset,
                highWatermark: consumer.highWatermark(of: end.topicPartition))
        }
        guard batch.recordCount == 0 && batch.endsOfPartition.isEmpty else { return }
        for (partition, position) in try consumer.positions(Array(progress.remaining)) {
            progress.reachedEnd(of: partition, position: position, highWatermark: consumer.highWatermark(of: partition))
        }
    }

    /// Decodes the records of `batch`, read in place: the changelog's changes of committed
    /// `inputs`, with their devices' keys (hashed here, off the thread that applies them), and
    /// the repartition topic's forwards. An unreadable changelog record is logged and skipped.
    /// With `storing`, the changelog records kept are copied to ``DecodedChanges/stored``, each
    /// partition's checkpoint past the last record read of it, kept or not (exactly past it: a
    /// transaction's marker after it is read again, and returns nothing).
    /// (The restore's consumer is in no group, so no poll returns a rebalance.)
    private func decode(
        _ batch: ConsumedBatch, inputs: CommittedInputs,
        storing: Bool
    ) -> DecodedChanges {
        var decoded = DecodedChanges(
            endsOfPartition: batch.endsOfPartition, offsetsOutOfRange: batch.offsetsOutOfRange,
            recordCount: batch.recordCount)
        decoded.changes.reserveCapacity(batch.recordCount)
        batch.readRecords { record in
            if record.topic == repartitionTopic {
                decoded.forwards.append(Self.forward(record))
                return
            }
            if storing { decoded.stored.checkpoints[record.partition] = record.offset.saturatingAdd(1) }
            switch inputs.verdict(header: record.header(ChangelogInput.headerNameText)) {
            case .committed, .unattributed: break
            case .uncommitted(let input, let offset):
                decoded.skipped.dropped(input, at: offset)
                return
            case .unknownInput(let input):
                decoded.skipped.unknownInputs[input, default: 0] += 1
            case .malformed:
                logger.error(
                    "skipping a changelog record with an unreadable input header",
                    metadata: ["record": "\(record.topic)[\(record.partition)]@\(record.offset)"])
                return
            }
            do {
                let view = ChangelogRecordView(
                    topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
                    value: record.value, createTime: record.createTime)
                let change = try codec.decode(view, header: { record.header($0) })
                if storing { decoded.stored.append(record) }
                switch change {
                case .device(let token, let change):
                    decoded.changes.append((DeviceKey(token: token), change, record.partition))
                case .topic(let change):
                    decoded.topicChanges.append((change, record.partition))
                }
            } catch let error as MalformedRecord where error.isUnknownKind {
                decoded.unknownKind = decoded.unknownKind ?? error
            } catch {
                logger.error("skipping an unreadable changelog record", metadata: ["error": "\(error)"])
            }
        }
        return decoded
    }

    /// What ``DeviceStates/restoreForward(_:)`` reads of a repartition record: its place, key and
    /// `source` header, copied (a repartition backlog is short).
    private static func forward(_ record: borrowing ConsumerRecordView) -> InMemoryRecord {
        InMemoryRecord(
            topic: record.topic, partition: record.partition, offset: record.offset,
            key: record.key.map { ByteBuffer(bytes: $0) }, value: nil,
            headers: record.header("source").map { ["source": String(decoding: $0, as: UTF8.self)] } ?? [:]
        )
    }

    /// How often a restore that has not finished says how far it is.
    private static let reportInterval = Duration.seconds(5)

    /// Where each of `partitions` stands, as the consumer's position and the high watermark its
    /// last fetch reported say: "topic[p] read to 12 of 40", or "topic[p] (no fetch answered)".
    private func standing(of partitions: Set<TopicPartition>, in consumer: KafkaConsumer) -> String {
        let positions = (try? consumer.positions(Array(partitions))) ?? [:]
        return partitions.sorted().map { partition in
            guard let highWatermark = consumer.highWatermark(of: partition) else {
                return "\(partition) (no fetch answered)"
            }
            return "\(partition) read to \(positions[partition].map { String($0) } ?? "its start") of \(highWatermark)"
        }.joined(separator: ", ")
    }
}

/// An attempt to restore read nothing and reached no end for a while.
struct RestoreStall: Error {
    var remaining: Set<TopicPartition>
    var standing: String
}

/// Every attempt to read a changelog to its end stalled.
struct RestoreStalled: Error, CustomStringConvertible {
    /// The partitions not read to their end.
    var remaining: Set<TopicPartition>
    /// Where the partitions not read to their end stood when the last attempt gave up.
    var standing: String
    var stallTimeout: Duration
    var attempts: Int

    var description: String {
        "restoring device state made no progress on \(standing) for \(stallTimeout), in each of \(attempts) attempts"
    }
}
