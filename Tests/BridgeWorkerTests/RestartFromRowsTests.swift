import BridgeStore
import DeviceQueues
import DeviceStore
import Kafka
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A partition served from its device rows takes its restore's changelog tail onto them: a
/// restart whose rows are at their store's checkpoint replays the store's topic state and reads
/// only the devices the tail names; a partition set aside and given back does the same. The rows
/// then hold the devices and topics' members the whole changelog makes.
@Suite("Restarts served from the device rows", .needsBroker, .timeLimit(.minutes(2)))
struct RestartFromRowsTests {
    @Test(
        "rows at their store's checkpoint: the tail's devices are read and changed, and rows, members, counts and topics end as the whole changelog makes them"
    )
    func tailOntoRows() async throws {
        let files = TemporaryDirectory()
        let (records, partitions, changelog) = try await Self.fixtureChangelog()
        let cut = records.count / 2
        try await RestoreStoreTests.produce(records[..<cut], to: changelog)
        // A first run restores the first half and writes every device to the rows.
        var rowsHold: [Int32: [DeviceKey: DeviceQueue]] = [:]
        var members: [Int32: [String: TopicMembers]] = [:]
        do {
            var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
            var states = DeviceStates()
            _ = try await RestoreSuspendedTests.restore(partitions, of: changelog, into: &states, stores: &stores)
            for partition in partitions {
                rowsHold[partition] = try #require(states.devices(in: partition))
                members[partition] = states.topics.members(in: partition)
                stores?.holdRows(
                    replacing: partition, with: try #require(rowsHold[partition]), members: members[partition] ?? [:])
            }
            try stores?.takeUnwritten()?.run()
        }
        // Another worker held the partitions meanwhile and wrote the rest.
        try await RestoreStoreTests.produce(records[cut...], to: changelog)
        try await Self.changeDevices(of: rowsHold, members: members, in: changelog)

        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
        var states = DeviceStates()
        let summary = try await Self.restoreServed(partitions, of: changelog, into: &states, stores: &stores)
        #expect(summary.contains("from_device_rows=\(partitions)"), "\(summary)")
        let whole = try await Self.expectRowsHoldTheWholeChangelog(partitions, of: changelog, states, stores)
        #expect(
            states.devicesInMemory > 0 && states.devicesInMemory < whole.devicesInMemory,
            "the tail's devices only: \(states.devicesInMemory) of \(whole.devicesInMemory)")
    }

    @Test(
        "served, set aside and given back with its store unmoved: the tail's devices are read from the rows before it applies"
    )
    func resumedReadsTail() async throws {
        let files = TemporaryDirectory()
        let (records, partitions, changelog) = try await Self.fixtureChangelog()
        try await RestoreStoreTests.produce(records[...], to: changelog)
        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
        var states = DeviceStates()
        _ = try await RestoreSuspendedTests.restore(partitions, of: changelog, into: &states, stores: &stores)
        var rowsHold: [Int32: [DeviceKey: DeviceQueue]] = [:]
        var members: [Int32: [String: TopicMembers]] = [:]
        for partition in partitions {
            rowsHold[partition] = try #require(states.devices(in: partition))
            members[partition] = states.topics.members(in: partition)
            stores?.holdRows(
                replacing: partition, with: try #require(rowsHold[partition]), members: members[partition] ?? [:])
            states.serve(partition)
        }
        try stores?.takeUnwritten()?.run()
        // Every device leaves memory: the rows hold them all.
        for partition in partitions { states.evict(in: partition, keeping: 0) }
        #expect(states.devicesInMemory == 0)
        try RestoreSuspendedTests.revoke(partitions, of: &states, stores: &stores)
        // Another worker held the partitions meanwhile and changed devices the rows hold.
        try await Self.changeDevices(of: rowsHold, members: members, in: changelog)

        let summary = try await Self.restoreServed(partitions, of: changelog, into: &states, stores: &stores)
        #expect(summary.contains("resumed_in_memory=\(partitions)"), "\(summary)")
        _ = try await Self.expectRowsHoldTheWholeChangelog(partitions, of: changelog, states, stores)
    }

    @Test(
        "rows at their store's checkpoint without counts: the restore reads every device, and the rows get their counts, so the next is served from them"
    )
    func countsWrittenOnRebuild() async throws {
        let files = TemporaryDirectory()
        let (records, partitions, changelog) = try await Self.fixtureChangelog()
        try await RestoreStoreTests.produce(records[...], to: changelog)
        do {
            var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
            var states = DeviceStates()
            _ = try await RestoreSuspendedTests.restore(partitions, of: changelog, into: &states, stores: &stores)
            for partition in partitions {
                stores?.holdRows(
                    replacing: partition, with: try #require(states.devices(in: partition)),
                    members: states.topics.members(in: partition))
            }
            try stores?.takeUnwritten()?.run()
            // A worker not serving its rows writes them without counts.
            for partition in partitions {
                let rows = try #require(stores?.rows[partition])
                try rows.write([DeviceRowUpdate](), checkpoint: try #require(try rows.checkpoint()))
                #expect(try rows.counts() == nil)
            }
        }
        for (number, servedFromRows) in [[], partitions].enumerated() {
            var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
            var states = DeviceStates()
            let summary = try await Self.restoreServed(partitions, of: changelog, into: &states, stores: &stores)
            #expect(summary.contains("from_device_rows=\(servedFromRows)"), "restore \(number): \(summary)")
            _ = try await Self.expectRowsHoldTheWholeChangelog(partitions, of: changelog, states, stores)
        }
    }

    /// The upgrade fixture's changelog records, their partitions, and a new changelog topic.
    static func fixtureChangelog() async throws -> (records: [FixtureRecord], partitions: [Int32], changelog: String) {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("rows-restart")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        return (records, partitions, changelog)
    }

    /// Writes to `changelog` changes to three devices of each partition of `devices`: a message
    /// joins one, another is forgotten, a third changes its status; and to the first topic of
    /// each partition of `members`: its first member leaves, and two new ones join (its count
    /// moves).
    static func changeDevices(
        of devices: [Int32: [DeviceKey: DeviceQueue]], members: [Int32: [String: TopicMembers]],
        in changelog: String
    ) async throws {
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        var changedMembers = 0
        for (partition, topics) in members {
            guard let (topic, held) = topics.min(by: { $0.key < $1.key }), let first = held.tokens.first else {
                continue
            }
            for change in [
                TopicChange.member(topic: topic, token: first, isMember: false),
                .member(topic: topic, token: "tail-member", isMember: true),
                .member(topic: topic, token: "tail-member-2", isMember: true),
            ] {
                codec.record(change, partition: partition, to: &outputs)
            }
            changedMembers += 1
        }
        #expect(changedMembers > 0, "the fixture has members")
        for (partition, held) in devices.sorted(by: { $0.key < $1.key }) {
            for (index, token) in held.keys.map(\.token).sorted().prefix(3).enumerated() {
                let changes: [StateChange] = [
                    .enqueued(
                        QueuedMessage(id: "tail\(index)", collapseKey: nil, sentAt: 9, expiresAt: nil, apns: [1])),
                    .forgotten, .device(DeviceStatus(isOnline: true, lastActivity: 9, pendingNotice: nil)),
                ]
                codec.record(changes[index], token: token, partition: partition, to: &outputs)
            }
        }
        try await RestoreChangelogTests.produce(outputs.copies, to: changelog)
    }

    /// Restores `partitions` into `states` through `stores` as a worker serving its devices from
    /// the rows does, and holds for the rows what it changed (``ServedDevices/serve(_:states:stores:)``),
    /// written; returns the summary line the restore logged.
    static func restoreServed(
        _ partitions: [Int32], of changelog: String, into states: inout DeviceStates, stores: inout StateDirectory?
    ) async throws -> String {
        let lines = LogLines()
        var restorer = TestBroker.restorer(changelog: changelog, repartition: "\(changelog).none", logger: lines.logger)
        let served = ServedDevices(
            limit: 0, rules: QueueRules(), directory: stores?.path ?? "", reads: WorkerMetrics.none.deviceReads,
            scanThread: .singleton)
        restorer.served = served
        let members = try await restorer.restore(
            partitions, committed: CommittedInputs([:]), into: &states, stores: &stores)
        served.serve(partitions, states: &states, stores: &stores, members: members)
        try stores?.takeUnwritten()?.run()
        return try #require(lines.containing("restored device state").first)
    }

    /// Expects `stores`' rows of `partitions` to hold the devices a replay of the whole
    /// `changelog` makes, at their stores' checkpoints, and to count them as `states` does, whose
    /// topic state is the replay's too; returns the replay.
    static func expectRowsHoldTheWholeChangelog(
        _ partitions: [Int32], of changelog: String, _ states: DeviceStates, _ stores: StateDirectory?
    ) async throws -> DeviceStates {
        var none: StateDirectory?
        let whole = try await RestoreStoreTests.restore(partitions, of: changelog, stores: &none)
        #expect(try heldLike(states.topics, rows: stores) == whole.topics)
        #expect(states.deviceCount == whole.deviceCount && states.waitingMessageCount == whole.waitingMessageCount)
        for partition in partitions {
            let rows = try #require(stores?.rows[partition])
            var held: [DeviceKey: DeviceQueue] = [:]
            try rows.forEachDevice { held[DeviceKey(token: $0)] = $1 }
            let expected = whole.devices(in: partition) ?? [:]
            let differing = Set(held.keys).union(expected.keys).filter { held[$0] != expected[$0] }
            #expect(differing.isEmpty, "partition \(partition): \(differing.map(\.token).sorted().prefix(10))")
            #expect(try rows.checkpoint() == stores?[partition]?.checkpoint())
            let counted = DeviceCounts(of: held.values)
            #expect(try rows.counts() == counted && states.counts(in: partition) == counted)
            let members = whole.topics.membersByTopic(in: partition)
            #expect(try rows.members() == members, "partition \(partition)")
            #expect(try rows.memberCounts() == members.mapValues(\.count), "partition \(partition)")
        }
        return whole
    }

    /// `topics` as a worker holding every member holds them: each partition served from its rows
    /// with the members the rows hold, once it no longer holds them too.
    static func heldLike(_ topics: TopicStates, rows stores: StateDirectory?) throws -> TopicStates {
        var topics = topics
        for (partition, held) in topics.partitions where held.served != nil {
            if held.served?.holdsMembers == false {
                let rows = try #require(stores?.rows[partition])
                topics.partitions[partition]?.members = try rows.members().mapValues(TopicMembers.of)
            }
            topics.partitions[partition]?.served = nil
        }
        return topics
    }
}
