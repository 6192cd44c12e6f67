import BridgeCore
import BridgeStore
import DeviceStore
import Kafka

extension ChangelogRestorer {
    /// Replays each partition's local store into `states` (which holds the partitions, adopted
    /// and empty), or resumes the state set aside for it when that covers the store's checkpoint
    /// (``DeviceStates/resume(_:coveredTo:servedStoreCoveredTo:)``), and returns where each
    /// partition's changelog is to be read from. With ``served``, a partition whose device rows
    /// are at the store's checkpoint and keep their counts replays the store's topic state but its
    /// members only, and is served from its rows
    /// (``DeviceStates/serve(_:storeHolding:memberCounts:)``): no device or member is read until
    /// the changelog names it. A store in doubt (unreadable, damaged, foreign, of another format
    /// or another incarnation of the changelog) is deleted, its doubt logged in one line,
    /// and its partition read from the beginning into a new one. Without stores, every partition
    /// is read from the beginning.
    func load(_ partitions: [Int32], into states: inout DeviceStates, from stores: inout StateDirectory?) async throws
        -> StoreStarts
    {
        var starts = StoreStarts()
        guard stores != nil else { return starts }
        for partition in partitions {
            guard let store = try stores?.open(partition, logger: logger) else { continue }
            do {
                let checkpoint = try store.checkpoint()
                // Served from its rows, it resumes only while they hold what the store does.
                let rows = stores?.rows[partition]
                let rowsCheckpoint = (try? rows?.checkpoint()) ?? nil
                if states.resume(partition, coveredTo: checkpoint, servedStoreCoveredTo: rowsCheckpoint) {
                    starts.resumed.append(partition)
                } else if served != nil, checkpoint > 0, rowsCheckpoint == checkpoint,
                    let counts = counts(of: rows, partition: partition)
                {
                    starts.records += try await replayTopics(of: store, besideRows: counts, into: &states)
                    states.serve(partition, storeHolding: counts.devices, memberCounts: counts.members)
                    starts.fromRows.append(partition)
                } else if checkpoint > 0 {
                    starts.records += try await replay(store, into: &states)
                } else {
                    continue
                }
                starts.offsets[partition] = checkpoint
                starts.unconfirmed.insert(partition)
            } catch {
                logger.warning("\(error); it is deleted, and the partition restored from its changelog")
                states.discardSuspended(partition)
                states.drop(partition)
                states.adopt(partition)
                _ = try stores?.recreate(partition)
            }
        }
        return starts
    }

    /// Replays `store` into `states`, which holds its partition, adopted, but for the records
    /// whose keys start with a byte of `excluded`: the store is read and decoded in parts, each
    /// on a child task while this one applies the part before (decoding is most of a replay's
    /// work). Returns the records replayed. Throws ``StoreDoubt`` for a record
    /// that cannot be read, does not match its checksum or does not decode, or of a kind this
    /// version does not know.
    func replay(
        _ store: PartitionStore, excludingKeysStartingWith excluded: [UInt8] = [], into states: inout DeviceStates
    ) async throws -> Int {
        var (part, cursor) = try decodePart(of: store, after: StoreCursor(), excluding: excluded)
        while !cursor.isAtEnd {
            let from = cursor
            async let next = decodePart(of: store, after: from, excluding: excluded)
            _ = part.apply(to: &states)
            (part, cursor) = try await next
        }
        _ = part.apply(to: &states)
        return cursor.count
    }

    /// The counts `rows` keep of `partition`: its devices and waiting messages, and its topics'
    /// members; nil when they keep none or they do not read, which is logged: the partition's
    /// devices and members are then read whole into memory.
    private func counts(of rows: DeviceRows?, partition: Int32) -> RowCounts? {
        do {
            guard let rows, let devices = try rows.counts() else { return nil }
            return RowCounts(devices: devices, members: try rows.memberCounts())
        } catch {
            logger.warning("\(error); partition \(partition) is restored into memory, and its rows written whole")
            return nil
        }
    }

    /// Replays the topic state of `store` into `states`, which holds its partition, adopted: the
    /// records of devices and topics' members are passed over unread (the device rows hold
    /// them), the others read as ``readsTopicsInParts(topicRecords:besideRows:)`` chooses.
    /// Returns the records replayed. Throws ``StoreDoubt`` as
    /// ``replay(_:excludingKeysStartingWith:into:)`` does.
    func replayTopics(of store: PartitionStore, besideRows counts: RowCounts, into states: inout DeviceStates)
        async throws -> Int
    {
        let excluded = ChangelogCodec.rowKeyKinds
        let rowRecords = Self.rowRecords(counts)
        let topicRecords = try reading(store) {
            try store.recordCount(excludingKeysStartingWith: excluded, upTo: rowRecords + 1)
        }
        if Self.readsTopicsInParts(topicRecords: topicRecords, besideRows: counts) {
            return try await replay(store, excludingKeysStartingWith: excluded, into: &states)
        }
        var number = 0
        try reading(store) {
            try store.forEachRecord(excludingKeysStartingWith: excluded) { record, headers in
                number += 1
                let change = try change(of: record, headers, in: store, named: "a record of topic state")
                if case .topic(let change) = change { states.apply(change, in: record.partition) }
            }
        }
        return number
    }

    /// Whether a store's topic state is read in the store's order, in parts decoded beside the
    /// apply, stepping over the records the rows hold: when its records outnumber those (a
    /// record per device, per waiting message and per topic's member). No more are found through
    /// the store's index of keys instead, which reads none of the rows' records but has SQLite
    /// sort what it finds into changelog order, and applied as read.
    static func readsTopicsInParts(topicRecords: Int, besideRows counts: RowCounts) -> Bool {
        topicRecords > rowRecords(counts)
    }

    /// The records of the devices and members `counts` counts. Counts are read as at most 2^48
    /// each, and the members' sum saturates.
    private static func rowRecords(_ counts: RowCounts) -> Int {
        counts.members.values.reduce(counts.devices.devices + counts.devices.waitingMessages) { sum, count in
            let (total, overflow) = sum.addingReportingOverflow(count)
            return overflow ? .max : total
        }
    }

    /// The changes of the store's next ``storePart`` records after `cursor` whose keys do not
    /// start with a byte of `excluded`, and the cursor past them.
    private func decodePart(of store: PartitionStore, after cursor: StoreCursor, excluding excluded: [UInt8]) throws
        -> (DecodedChanges, StoreCursor)
    {
        var cursor = cursor
        var part = DecodedChanges(endsOfPartition: [], recordCount: 0)
        var number = cursor.count
        try reading(store) {
            try store.forEachRecord(after: &cursor, limit: storePart, excludingKeysStartingWith: excluded) {
                record, headers in
                number += 1
                let decoded = try change(
                    of: record, headers, in: store,
                    named: excluded.isEmpty ? "record \(number)" : "record \(number) of topic state")
                switch decoded {
                case .device(let token, let change):
                    part.changes.append((DeviceKey(token: token), change, record.partition))
                case .topic(let change):
                    part.topicChanges.append((change, record.partition))
                }
            }
        }
        return (part, cursor)
    }

    /// Runs `read` over `store`: an error it throws that is not a ``StoreDoubt`` becomes one (the
    /// store cannot be read).
    private func reading<Value>(_ store: PartitionStore, _ read: () throws -> Value) throws -> Value {
        do {
            return try read()
        } catch let doubt as StoreDoubt {
            throw doubt
        } catch {
            throw StoreDoubt(path: store.path, reason: "it cannot be read (\(error))")
        }
    }

    /// The change `record` of `store` makes, decoded; a ``StoreDoubt`` naming it as `name` when
    /// it does not decode (named only then: a name per record costs a replay its formatting).
    private func change(
        of record: ChangelogRecordView, _ headers: StoredHeaders, in store: PartitionStore,
        named name: @autoclosure () -> String
    ) throws(StoreDoubt) -> ChangelogChange {
        do {
            return try codec.decode(record, header: headers.value(named:))
        } catch {
            throw StoreDoubt(path: store.path, reason: "\(name()) cannot be read (\(error))")
        }
    }

    /// Checks each store's checkpoint against the changelog as the first fetches answer it. A
    /// partition the broker answered out of range, or whose high watermark is below its
    /// checkpoint, has its store deleted (logged), and the attempt starts over
    /// (``RestoreStartsOver``): from the other stores, and that partition from the beginning
    /// into a new store. So does a changelog partition read from its start and answered out of
    /// range (records deleted meanwhile). A repartition partition answered out of range is read
    /// from its start, as `earliest` would.
    func confirm(
        _ starts: inout StoreStarts, outOfRange: [TopicPartition], with consumer: KafkaConsumer,
        progress: inout RestoreProgress<TopicPartition>, stores: inout StateDirectory?
    ) async throws {
        var doubts: [(partition: Int32, reason: String)] = []
        var startsOver = false
        var readFromStart: [TopicPartition] = []
        for partition in outOfRange {
            if partition.topic != codec.topic {
                readFromStart.append(partition)
            } else if let checkpoint = starts.offsets[partition.partition] {
                doubts.append((partition.partition, "its checkpoint \(checkpoint) is out of the changelog's range"))
            } else {
                startsOver = true
            }
        }
        for partition in starts.unconfirmed {
            guard let highWatermark = consumer.highWatermark(of: TopicPartition(codec.topic, partition)) else {
                continue
            }
            starts.unconfirmed.remove(partition)
            guard let checkpoint = starts.offsets[partition], checkpoint > highWatermark else { continue }
            doubts.append((partition, "it covers the changelog to offset \(checkpoint), past its end \(highWatermark)"))
        }
        for (partition, reason) in doubts {
            guard let path = stores?.file(of: partition) else { continue }
            logger.warning(
                "\(StoreDoubt(path: path, reason: reason)); it is deleted, and the partition restored from its changelog"
            )
            try stores?.discard(partition)
        }
        guard doubts.isEmpty && !startsOver else { throw RestoreStartsOver() }
        guard !readFromStart.isEmpty else { return }
        for partition in readFromStart { progress.readAgain(partition) }
        try await consumer.seek(readFromStart.map { TopicPartitionOffset($0, offset: KafkaOffset.beginning) })
    }
}

/// What a partition's device rows count: its devices and waiting messages, and each topic's
/// members.
struct RowCounts: Sendable {
    var devices: DeviceCounts
    var members: [String: Int]
}
