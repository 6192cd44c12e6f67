import BridgeStore
import Foundation
import Kafka
import Logging
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A partition given back after a revocation resumes the state set aside for it while its store
/// has not moved, and reads only the changelog written since; otherwise it replays its store.
/// Either way it restores what the whole changelog does.
@Suite("Resuming suspended partitions", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreSuspendedTests {
    /// Restores `partitions` into `states` through `stores`; returns the summary line it logged.
    static func restore(
        _ partitions: [Int32], of changelog: String, into states: inout DeviceStates, stores: inout StateDirectory?
    ) async throws -> String {
        let lines = LogLines()
        try await TestBroker.restorer(changelog: changelog, repartition: "\(changelog).none", logger: lines.logger)
            .restore(partitions, committed: CommittedInputs([:]), into: &states, stores: &stores)
        #expect(lines.containing("is not used").isEmpty)
        return try #require(lines.containing("restored device state").first)
    }

    /// Sets every partition's state aside at its store's checkpoint, and releases the stores, as
    /// a worker does when its partitions are revoked.
    static func revoke(_ partitions: [Int32], of states: inout DeviceStates, stores: inout StateDirectory?) throws {
        for partition in partitions {
            states.suspend(partition, coveredTo: try #require(try stores?[partition]?.checkpoint()))
            stores?.release(partition)
        }
    }

    /// The upgrade fixture's changelog on a new topic, its first half restored through stores in
    /// `files` and then revoked (``revoke(_:of:stores:)``): what a worker holds after a revoke.
    static func firstHalfRevoked(in files: borrowing TemporaryDirectory) async throws -> (
        records: [FixtureRecord], partitions: [Int32], changelog: String, cut: Int, stores: StateDirectory?,
        states: DeviceStates
    ) {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("suspended-changelog")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        let cut = records.count / 2
        try await RestoreStoreTests.produce(records[..<cut], to: changelog)
        var stores: StateDirectory? = try files.stateDirectory(topic: changelog)
        var states = DeviceStates()
        _ = try await restore(partitions, of: changelog, into: &states, stores: &stores)
        try revoke(partitions, of: &states, stores: &stores)
        return (records, partitions, changelog, cut, stores, states)
    }

    @Test("given back with its store unmoved, a partition resumes and reads the changelog's tail")
    func resumesAndReadsTail() async throws {
        let files = TemporaryDirectory()
        var (records, partitions, changelog, cut, stores, states) = try await Self.firstHalfRevoked(in: files)
        #expect(states.partitionCount == 0 && states.suspendedPartitions == Set(partitions))
        // Another worker held the partitions meanwhile and wrote the rest.
        try await RestoreStoreTests.produce(records[cut...], to: changelog)

        let summary = try await Self.restore(partitions, of: changelog, into: &states, stores: &stores)
        #expect(summary.contains("resumed_in_memory=\(partitions)"), "\(summary)")
        #expect(summary.contains("from_local_stores=0 ") && summary.contains("changes=\(records.count - cut) "))
        var none: StateDirectory?
        let whole = try await RestoreStoreTests.restore(partitions, of: changelog, stores: &none)
        let same = states == whole
        #expect(same, "the state resumed and the tail restore what the whole changelog does")
        #expect(states.suspendedPartitions.isEmpty)
    }

    @Test(
        "served from its rows and given back with its store unmoved, a partition resumes only where its rows are at the store's checkpoint"
    )
    func servedResumesWithItsRows() async throws {
        let files = TemporaryDirectory()
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("served-changelog")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        try await RestoreStoreTests.produce(records[...], to: changelog)
        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
        var states = DeviceStates()
        _ = try await Self.restore(partitions, of: changelog, into: &states, stores: &stores)
        for partition in partitions {
            stores?.holdRows(replacing: partition, with: try #require(states.devices(in: partition)), members: [:])
            states.serve(partition)
        }
        try stores?.takeUnwritten()?.run()
        try Self.revoke(partitions, of: &states, stores: &stores)
        // Partition 0's rows are lost while it is away: they open again empty.
        let lost = try #require(partitions.first)
        try FileManager.default.removeItem(atPath: try #require(stores?.rowsDirectory(of: lost)))

        let summary = try await Self.restore(partitions, of: changelog, into: &states, stores: &stores)
        #expect(summary.contains("resumed_in_memory=\(partitions.dropFirst())"), "\(summary)")
        #expect(states.isServed(lost) == false && partitions.dropFirst().allSatisfy(states.isServed))
    }

    @Test("given back after its store moved, a partition lets the state set aside go and replays its store")
    func storeMovedReplays() async throws {
        let files = TemporaryDirectory()
        var (records, partitions, changelog, cut, stores, states) = try await Self.firstHalfRevoked(in: files)
        // This worker held them again meanwhile, without the state set aside, and stored the rest.
        try await RestoreStoreTests.produce(records[cut...], to: changelog)
        var meanwhile = DeviceStates()
        _ = try await Self.restore(partitions, of: changelog, into: &meanwhile, stores: &stores)
        for partition in partitions { stores?.release(partition) }

        let summary = try await Self.restore(partitions, of: changelog, into: &states, stores: &stores)
        #expect(summary.contains("resumed_in_memory=[]") && !summary.contains("from_local_stores=0 "), "\(summary)")
        let same = states == meanwhile
        #expect(same, "replayed from the store, not from the state set aside")
        #expect(states.suspendedPartitions.isEmpty)
    }
}
