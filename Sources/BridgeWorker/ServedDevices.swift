import BridgeCore
import BridgeStore
import DeviceQueues
import DeviceStore
import Kafka
import Metrics
import NIOCore
import NIOPosix

/// Serves the state partitions from their device rows (``StateDirectory/rows``): the devices held
/// in memory are a cache of the rows (``DeviceStates/serve(_:written:)``), about ``limit`` of them
/// over all partitions. Before records are processed, the devices they name that are not held
/// are read from the rows, on NIO's thread pool while the loop waits; the sweeps' scans of the
/// rows for idle devices run on ``scanThread`` while the loop goes on (``IdleScanInFlight``).
/// Either runs beside a store write that may be under way: it writes devices that are held, never
/// one that is read, and each device a scan finds is judged again once read.
struct ServedDevices: Sendable {
    /// Devices held in memory over the partitions served, at most, but for those the open batch
    /// uses and those whose last change the rows do not hold yet, which stay.
    let limit: Int
    /// The rules the idle sweep judges devices by.
    let rules: QueueRules
    /// The state directory, for errors.
    let directory: String
    /// Counts the devices asked of the rows, found or not.
    let reads: Counter
    /// The thread the idle scans run on, their own: a scan takes seconds, and on NIO's pool it
    /// would hold back the reads the loop waits for.
    let scanThread: NIOThreadPool

    /// Serves `partitions`, just restored. Those a restore rebuilt in memory have their rows held
    /// in `stores` to be replaced whole by their devices (or left as they are, holding them
    /// already); those served from their rows already have the devices their restore changed held
    /// for their rows, and the members that joined or left their topics given by partition in
    /// `members`. Both have their counts held for the rows, and may let devices go once the
    /// write that takes them ends, which a batch of their own, held after them, says
    /// (``DeviceStates/seal()``), whether or not records follow.
    func serve(
        _ partitions: [Int32], states: inout DeviceStates, stores: inout StateDirectory?,
        members: [Int32: [MemberRowChange]]
    ) {
        let restored = partitions.filter { states.devices(in: $0) != nil }
        guard !restored.isEmpty else { return }
        var batch = StoreBatch()
        for partition in restored {
            // Rebuilt, or served from its rows already; either way its rows get its counts.
            if !states.isServed(partition) { states.serve(partition, written: false) }
            batch.rows.touch(partition, counts: states.counts(in: partition))
            if let members = members[partition] { batch.rows.add(members, of: partition, countedIn: states) }
            let changed = states.unwrittenDevices(in: partition)
            guard !changed.isEmpty else { continue }
            batch.rows.add(changed.mapValues { DeviceRowChanges.Change(device: $0, messages: .all) }, to: partition)
        }
        batch.rowsThrough = states.seal()
        stores?.hold(batch)
    }

    /// Lets go of the devices of served partitions over the limit, which is split evenly among
    /// them: the least recently used first, of those it may (``DeviceStates/evict(in:keeping:)``).
    func evict(states: inout DeviceStates, rows: [Int32: DeviceRows]) {
        let served = rows.keys.filter { states.isServed($0) }
        for partition in served { states.evict(in: partition, keeping: limit / served.count) }
    }

    /// Lets go of the devices over the limit (``evict(states:rows:)``), then decodes `records` and
    /// reads into `states` the devices of served partitions that they name and that must be read,
    /// and those the idle sweeps may forget within them. Returns the records decoded, in order, to
    /// be processed before any device is let go again. Throws when rows do not read.
    func prepare(
        _ records: [ConsumerRecord], processor: RecordProcessor, states: inout DeviceStates,
        rows: [Int32: DeviceRows]
    ) async throws(StateDirectoryError) -> [DecodedRecord<ConsumerRecord>] {
        evict(states: &states, rows: rows)
        let decoded = records.map { processor.decode($0) }
        var named: [Int32: [String]] = [:]
        var members: [Int32: MemberReads] = [:]
        var inputs: [Int32: Int] = [:]
        for record in decoded where states.isServed(record.record.partition) {
            let partition = record.record.partition
            named[partition, default: []] += processor.devices(namedBy: record, topics: states.topics)
            processor.members(namedBy: record, topics: states.topics, into: &members[partition, default: MemberReads()])
            inputs[partition, default: 0] += 1
        }
        for (partition, count) in inputs {
            named[partition, default: []] += states.sweepCandidatesToRead(in: partition, inputs: count)
        }
        try await read(named, into: &states, rows: rows)
        try await read(members, into: &states, rows: rows)
        return decoded
    }

    /// Reads into `states` what the batch's records name of served partitions' topics' members
    /// (``TopicStates/membersToRead(_:in:chunkMembers:)``), in one read per partition on NIO's
    /// thread pool. Throws when rows do not read.
    func read(_ named: [Int32: MemberReads], into states: inout DeviceStates, rows: [Int32: DeviceRows])
        async throws(StateDirectoryError)
    {
        let reads = named.compactMap { partition, reads in
            states.topics.membersToRead(reads, in: partition).map { (partition: partition, toRead: $0) }
        }
        let found = try await run(on: rows, reads.map(\.partition)) { partitionRows, index throws(DeviceStoreError) in
            let toRead = reads[index].toRead
            let areMembers = try partitionRows.memberships(toRead.memberships)
            var walked: [(tokens: [String], toEnd: Bool)] = []
            for walk in toRead.walks {
                walked.append(try partitionRows.members(of: walk.topic, from: walk.cursor, limit: walk.rows))
            }
            return (areMembers, walked)
        }
        for (read, (areMembers, walked)) in zip(reads, found) {
            states.admit(read.toRead, areMembers: areMembers, walked: walked, in: read.partition)
        }
    }

    /// Reads into `states` the devices `named` by served partition that must be read
    /// (``DeviceStates/devicesToRead(_:in:)``), in one batched read per partition on NIO's thread
    /// pool. Throws when rows do not read.
    func read(_ named: [Int32: [String]], into states: inout DeviceStates, rows: [Int32: DeviceRows])
        async throws(StateDirectoryError)
    {
        let reads = named.compactMap { partition, tokens in
            let toRead = states.devicesToRead(tokens, in: partition)
            return toRead.isEmpty ? nil : (partition: partition, tokens: toRead)
        }
        let found = try await run(on: rows, reads.map(\.partition)) { partitionRows, index throws(DeviceStoreError) in
            try partitionRows.devices(reads[index].tokens)
        }
        for (read, devices) in zip(reads, found) {
            states.admit(devices, read: read.tokens, in: read.partition)
            self.reads.increment(by: read.tokens.count)
        }
    }

    /// Starts, on ``scanThread``, the scans of their rows that the served partitions' idle sweeps
    /// ask for (``DeviceStates/takeStoreScans()``); nil when none asks. Throws when a partition has
    /// no rows open.
    func startIdleScans(states: inout DeviceStates, rows: [Int32: DeviceRows]) throws(StateDirectoryError)
        -> IdleScanInFlight?
    {
        let scans = states.takeStoreScans().sorted { $0.key < $1.key }
        guard !scans.isEmpty else { return nil }
        let rules = rules
        let found = try start(on: rows, scans.map(\.key), in: scanThread) {
            partitionRows, index throws(DeviceStoreError) in
            try partitionRows.idleTokens(at: scans[index].value, rules: rules)
        }
        return IdleScanInFlight(partitions: scans.map(\.key), found: PoolWork(found))
    }

    /// Waits for `scan` and adds the idle devices it found to their partitions' sweeps. Throws
    /// when rows do not read.
    func addIdle(from scan: IdleScanInFlight, to states: inout DeviceStates) async throws(StateDirectoryError) {
        let idle = try await wait { try await scan.found.value() }
        for (partition, tokens) in zip(scan.partitions, idle) { states.addIdle(tokens, in: partition) }
    }

    /// Runs `read` on the rows of each of `partitions`, in order, on NIO's thread pool; returns
    /// what each gave.
    private func run<Value: Sendable>(
        on rows: [Int32: DeviceRows], _ partitions: [Int32],
        _ read: @escaping @Sendable (DeviceRows, Int) throws(DeviceStoreError) -> Value
    ) async throws(StateDirectoryError) -> [Value] {
        guard !partitions.isEmpty else { return [] }
        let reads = try start(on: rows, partitions, in: .singleton, read)
        return try await wait { try await reads.get() }
    }

    /// Starts `read` on the rows of each of `partitions`, in order, in `pool`.
    private func start<Value: Sendable>(
        on rows: [Int32: DeviceRows], _ partitions: [Int32], in pool: NIOThreadPool,
        _ read: @escaping @Sendable (DeviceRows, Int) throws(DeviceStoreError) -> Value
    ) throws(StateDirectoryError) -> EventLoopFuture<[Value]> {
        var opened: [DeviceRows] = []
        for partition in partitions {
            guard let partitionRows = rows[partition] else {
                throw StateDirectoryError(path: directory, "has no device rows open for partition \(partition)")
            }
            opened.append(partitionRows)
        }
        return pool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) {
            [opened] in
            var values: [Value] = []
            for (index, partitionRows) in opened.enumerated() {
                do throws(DeviceStoreError) {
                    values.append(try read(partitionRows, index))
                } catch {
                    throw PartitionRowsError(partition: partitions[index], error: error)
                }
            }
            return values
        }
    }

    /// What `reads` gives once they have ended; their error as the state directory's.
    private func wait<Value: Sendable>(_ reads: () async throws -> Value) async throws(StateDirectoryError) -> Value {
        do {
            return try await reads()
        } catch let error as PartitionRowsError {
            throw StateDirectoryError(
                path: directory,
                "has device rows of partition \(error.partition) that do not read (\(error.error)): delete that partition's .rows directory, which the next start writes again"
            )
        } catch {
            throw StateDirectoryError(path: directory, "could not be read: \(error)")
        }
    }
}

/// The rows of a partition did not read.
private struct PartitionRowsError: Error {
    let partition: Int32
    let error: DeviceStoreError
}
