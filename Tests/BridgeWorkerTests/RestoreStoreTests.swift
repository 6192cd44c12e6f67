import BridgeStore
import DeviceQueues
import Foundation
import Kafka
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restore through the local stores reads each store and then only the changelog after its
/// checkpoint, from a real broker, and gives what a restore of the whole changelog gives; a
/// store the changelog does not reach is rebuilt.
@Suite("Restoring through local stores", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreStoreTests {
    /// Produces fixture records to `changelog`, each to its partition.
    static func produce(_ records: some Sequence<FixtureRecord>, to changelog: String) async throws {
        try await RestoreChangelogTests.produce(
            records.map { record in
                OutputRecords.Copy(
                    topic: .changelog, partition: record.partition, key: record.key.map(Array.init),
                    value: record.value.map(Array.init),
                    headers: record.headers.map { (name: $0.key, value: Array($0.value.utf8)) },
                    timestamp: record.timestamp)
            }, to: changelog)
    }

    /// Restores `partitions` of `changelog` into new state, through `stores` when given, writing
    /// them once `writtenAt` records are held.
    static func restore(
        _ partitions: [Int32], of changelog: String, stores: inout StateDirectory?, logger: Logger = TestBroker.logger,
        writtenAt records: Int = 65_536
    ) async throws -> DeviceStates {
        var states = DeviceStates()
        let restorer = TestBroker.restorer(changelog: changelog, repartition: "\(changelog).none", logger: logger)
        stores?.writePacing.records = records
        try await restorer.restore(partitions, committed: CommittedInputs([:]), into: &states, stores: &stores)
        return states
    }

    /// With writes due at one record, the stores are written as the restore goes (a test that
    /// fails if those writes are dropped); with the default, as the worker does.
    @Test(
        "a restart reads its store and the changelog written since, and restores what the whole changelog does",
        arguments: [1, 65_536])
    func storeAndTail(writtenAt: Int) async throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("store-changelog")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        let cut = records.count / 2
        try await Self.produce(records[..<cut], to: changelog)

        let files = TemporaryDirectory()
        var stores: StateDirectory? = try files.stateDirectory(topic: changelog)
        _ = try await Self.restore(partitions, of: changelog, stores: &stores, writtenAt: writtenAt)
        stores = nil  // the worker stops, and lets its directory go
        try await Self.produce(records[cut...], to: changelog)

        var none: StateDirectory?
        let whole = try await Self.restore(partitions, of: changelog, stores: &none)
        let lines = LogLines()
        var restarted: StateDirectory? = try files.stateDirectory(topic: changelog)
        let restored = try await Self.restore(partitions, of: changelog, stores: &restarted, logger: lines.logger)
        let same = restored == whole
        #expect(same, "the store and the changelog's tail restore what the whole changelog does")
        let summary = try #require(lines.containing("restored device state").first)
        #expect(summary.contains("changes=\(records.count - cut) "), "\(summary)")
        #expect(summary.contains("from_local_stores=") && !summary.contains("from_local_stores=0 "), "\(summary)")
        #expect(lines.containing("is not used").isEmpty)
    }

    /// A restore stopped by its caller (a rebalance) after it held records leaves them held; the
    /// next restore writes them before it reads the stores, so it reads them from there.
    @Test("records a stopped restore held are stored before the next restore reads the stores, which read on from them")
    func heldByAStoppedRestore() async throws {
        struct Stopped: Error {}
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("store-changelog")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        try await Self.produce(records, to: changelog)
        // More records than one poll takes (10,000): no restore ends at its first poll.
        let codec = ChangelogCodec(topic: changelog)
        var statuses = OutputRecords()
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        for device in 0..<25_000 {
            codec.record(.device(offline), token: "held\(device)", partition: partitions[0], to: &statuses)
        }
        try await RestoreChangelogTests.produce(statuses.copies, to: changelog)

        let files = TemporaryDirectory()
        var stores: StateDirectory? = try files.stateDirectory(topic: changelog)
        stores?.writePacing = StoreWritePacing(records: .max, age: .seconds(3600))
        var stopping = TestBroker.restorer(changelog: changelog, repartition: "\(changelog).none")
        stopping.keepAliveInterval = .zero
        // A poll may return nothing yet: stopped again until one held records.
        for _ in 0..<50 where stores?.unwritten.count == 0 {
            var states = DeviceStates()
            await #expect(throws: Stopped.self) {
                try await stopping.restore(
                    partitions, committed: CommittedInputs([:]), into: &states, stores: &stores,
                    keepAlive: { throw Stopped() })
            }
        }
        #expect(stores?.unwritten.count ?? 0 > 0, "no restore held records before it was stopped")

        var none: StateDirectory?
        let whole = try await Self.restore(partitions, of: changelog, stores: &none)
        let lines = LogLines()
        let restored = try await Self.restore(partitions, of: changelog, stores: &stores, logger: lines.logger)
        let same = restored == whole
        #expect(same)
        let summary = try #require(lines.containing("restored device state").first)
        #expect(
            summary.contains("from_local_stores=") && !summary.contains("from_local_stores=0 "),
            "the held records were not stored first: \(summary)")
        stores = nil
        var restarted: StateDirectory? = try files.stateDirectory(topic: changelog)
        let again = try await Self.restore(partitions, of: changelog, stores: &restarted)
        let stored = again == whole
        #expect(stored, "the stores hold what the whole changelog does")
    }

    @Test("a record of a kind this version does not know stops the restore before its store moves past it")
    func unknownKindNotStoredPast() async throws {
        let (changelog, repartition) = try await RestoreChangelogTests.createTopics()
        let codec = ChangelogCodec(topic: changelog)
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        func devices(_ tokens: [String]) -> [OutputRecords.Copy] {
            var outputs = OutputRecords()
            for token in tokens { codec.record(.device(offline), token: token, partition: 0, to: &outputs) }
            return outputs.copies
        }
        // Known records on both sides of the unknown one, at offset 2.
        let unknown = OutputRecords.Copy(
            topic: .changelog, partition: 0, key: Array("x device".utf8), value: Array("{}".utf8), headers: [],
            timestamp: nil)
        try await RestoreChangelogTests.produce(devices(["a", "b"]) + [unknown] + devices(["c"]), to: changelog)

        let files = TemporaryDirectory()
        var stores: StateDirectory? = try files.stateDirectory(topic: changelog)
        var states = DeviceStates()
        await #expect(throws: UnknownRecordKind.self) {
            try await TestBroker.restorer(changelog: changelog, repartition: repartition).restore(
                [0], committed: CommittedInputs([:]), into: &states, stores: &stores)
        }
        let checkpoint = try #require(try stores?[0]?.checkpoint())
        #expect(checkpoint <= 2, "the unknown record at offset 2 is read again by the next restore")
        #expect(try stores?[0]?.recordCount() == Int(checkpoint), "only the records before the checkpoint are stored")
    }

    @Test("a store whose checkpoint is past the changelog's end (a changelog recreated) is rebuilt, saying why")
    func aheadOfChangelog() async throws {
        let records = try FixtureRecord.upgradeChangelog().filter { $0.partition == 0 }.prefix(50)
        let changelog = TestBroker.uniqueName("store-changelog")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: 1)])
        try await Self.produce(records, to: changelog)
        let files = TemporaryDirectory()
        do {
            var stores = try files.stateDirectory(topic: changelog)
            _ = try stores.open(0, logger: TestBroker.logger)
            var batch = StoreBatch()
            batch.checkpoints = [0: 10_000]
            stores.hold(batch)
            try stores.takeUnwritten()?.run()
        }

        var none: StateDirectory?
        let whole = try await Self.restore([0], of: changelog, stores: &none)
        let lines = LogLines()
        var stores: StateDirectory? = try files.stateDirectory(topic: changelog)
        let restored = try await Self.restore([0], of: changelog, stores: &stores, logger: lines.logger)
        let same = restored == whole
        #expect(same)
        #expect(lines.containing("is not used").count == 1, "\(lines.lines.withLock { $0 })")
        #expect(try stores?[0]?.checkpoint() ?? 0 >= Int64(records.count), "a new store, read from the beginning")
        stores = nil
        var next: StateDirectory? = try files.stateDirectory(topic: changelog)
        let again = try await Self.restore([0], of: changelog, stores: &next)
        let rebuilt = again == whole
        #expect(rebuilt)
        #expect(try next?[0]?.checkpoint() ?? 0 >= Int64(records.count), "the next start keeps it")
    }
}

extension TemporaryDirectory {
    /// The directory as a state directory of group `group`, for the changelog `topic`.
    func stateDirectory(topic: String, group: String = "group") throws -> StateDirectory {
        try StateDirectory(testingAt: path, topic: topic, group: group)
    }
}

extension StateDirectory {
    /// The state directory at `path` of group `group`, for the changelog `topic`, with no
    /// changelog topic id and a cleanup delay no test reaches.
    init(testingAt path: String, topic: String = "changelog", group: String = "group", deviceRows: Bool = false) throws
    {
        try self.init(
            path: path, group: group, topic: topic, changelogID: nil, cleanupDelay: .seconds(600),
            deviceRows: deviceRows)
    }
}
