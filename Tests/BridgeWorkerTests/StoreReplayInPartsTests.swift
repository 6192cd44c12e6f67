import BridgeStore
import GRDB
import Kafka
import Logging
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A store replayed in parts, each read and decoded while the part before is applied, gives the
/// state a replay of the whole changelog gives, whatever the part size; a store found in doubt
/// halfway leaves nothing of its partition, whose changelog is then read from the start, and
/// the other stores replay whole.
@Suite("A store replayed in parts")
struct StoreReplayInPartsTests {
    @Test("parts of any size restore what the whole changelog does", arguments: [1, 13, 4_096])
    func anyPartSize(part: Int) async throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let whole = try Self.replayed(records, partitions: partitions)
        let files = TemporaryDirectory()
        let directory = try Self.stores(of: records, partitions: partitions, in: files)

        let restorer = Self.restorer(part: part)
        var restored = DeviceStates()
        for partition in partitions {
            restored.adopt(partition)
            let store = try #require(directory[partition])
            let count = try store.recordCount()
            #expect(part == 4_096 || count > part, "read in more than one part")
            #expect(try await restorer.replay(store, into: &restored) == count)
        }
        let same = restored == whole
        #expect(same, "the store in parts of \(part) restores what the whole changelog restores")
    }

    @Test(
        "a store's topic state but its members, found through its index of keys or read in parts in its order past the rows' records, is the whole changelog's",
        arguments: [
            RowCounts(devices: DeviceCounts(devices: 1 << 40, waitingMessages: 0), members: [:]),
            RowCounts(devices: DeviceCounts(devices: 0, waitingMessages: 0), members: ["news": 1 << 40]),
            RowCounts(devices: DeviceCounts(devices: 0, waitingMessages: 0), members: [:]),
        ])
    func topicStateEitherWay(rows counts: RowCounts) async throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let topicRecords = records.filter { record in
            record.key?.first.map { !ChangelogCodec.rowKeyKinds.contains($0) } ?? true
        }
        try #require(records.contains { $0.key?.first == UInt8(ascii: "t") }, "the fixture has members")
        try #require(topicRecords.count > 13 && topicRecords.count < records.count)
        let topics = try Self.replayed(topicRecords, partitions: partitions)
        let files = TemporaryDirectory()
        let directory = try Self.stores(of: records, partitions: partitions, in: files)

        let restorer = Self.restorer(part: 13)
        var restored = DeviceStates()
        for partition in partitions {
            restored.adopt(partition)
            let store = try #require(directory[partition])
            let stored = try store.recordCount(excludingKeysStartingWith: ChangelogCodec.rowKeyKinds, upTo: .max)
            #expect(try await restorer.replayTopics(of: store, besideRows: counts, into: &restored) == stored)
        }
        let same = restored == topics
        #expect(same, "the topic state of the whole changelog, with \(counts)")
    }

    @Test(
        "topic records are read in parts when they outnumber the rows' records (a device's, a message's and a member's each), through the index otherwise",
        arguments: [
            (0, DeviceCounts(devices: 0, waitingMessages: 0), [:], false),
            (1, DeviceCounts(devices: 0, waitingMessages: 0), [:], true),
            (10, DeviceCounts(devices: 4, waitingMessages: 6), [:], false),
            (11, DeviceCounts(devices: 4, waitingMessages: 6), [:], true),
            (9, DeviceCounts(devices: 4, waitingMessages: 6), [:], false),
            (13, DeviceCounts(devices: 4, waitingMessages: 6), ["a": 1, "b": 2], false),
            (14, DeviceCounts(devices: 4, waitingMessages: 6), ["a": 1, "b": 2], true),
            (1 << 49, DeviceCounts(devices: 1 << 48, waitingMessages: 1 << 48), [:], false),
            (Int.max, DeviceCounts(devices: 1 << 48, waitingMessages: 0), ["a": Int.max, "b": Int.max], false),
        ])
    func readInParts(topicRecords: Int, counts: DeviceCounts, members: [String: Int], inParts: Bool) {
        let rows = RowCounts(devices: counts, members: members)
        #expect(ChangelogRestorer.readsTopicsInParts(topicRecords: topicRecords, besideRows: rows) == inParts)
    }

    @Test(
        "a record that fails its checksum halfway through a store drops what that store replayed, for its changelog from the start; the other stores replay whole"
    )
    func doubtHalfway() async throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        // Neither the first nor the last: stores are read before and after it.
        try #require(partitions.count > 2)
        let damaged = partitions[1]
        let files = TemporaryDirectory()
        var directory: StateDirectory? = try Self.stores(of: records, partitions: partitions, in: files)
        let file = try #require(directory?.file(of: damaged))
        let others = partitions.filter { $0 != damaged }
        let undamaged = try others.reduce(0) { $0 + (try #require(directory?[$1]).recordCount()) }
        let part = 13
        let middle = try #require(try directory?[damaged]?.recordCount()) / 2
        try #require(middle > part, "the damage lies past the first part")
        let database = try DatabaseQueue(path: file)
        try await database.write {
            try $0.execute(
                sql:
                    "UPDATE record SET value = CAST('{}' AS BLOB) WHERE sequence = (SELECT sequence FROM record ORDER BY sequence LIMIT 1 OFFSET ?)",
                arguments: [middle])
        }
        try database.close()

        var restored = DeviceStates()
        for partition in partitions { restored.adopt(partition) }
        let lines = LogLines()
        let starts = try await Self.restorer(part: part, logger: lines.logger).load(
            partitions, into: &restored, from: &directory)

        // The others replayed their stores whole and read their changelogs on from their
        // checkpoints; the damaged one holds nothing of what it replayed before the damage, has
        // no checkpoint (its changelog is read from the start) and a new, empty store.
        let expected = try Self.replayed(records.filter { $0.partition != damaged }, partitions: partitions)
        let same = restored == expected
        #expect(same, "the damaged partition holds nothing, the others what their changelogs hold")
        #expect(starts.records == undamaged)
        #expect(starts.offsets == Dictionary(uniqueKeysWithValues: others.map { ($0, Int64(records.count)) }))
        #expect(starts.unconfirmed == Set(others))
        #expect(try directory?[damaged]?.recordCount() == 0)
        let warnings = lines.containing("does not match its checksum")
        #expect(
            warnings.count == 1 && warnings.allSatisfy { $0.contains(file) && $0.contains("it is deleted") },
            "\(warnings)")
    }

    /// The state a replay of `records` gives, with `partitions` adopted.
    static func replayed(_ records: [FixtureRecord], partitions: [Int32]) throws -> DeviceStates {
        let codec = ChangelogCodec(topic: "changelog")
        var states = DeviceStates()
        for partition in partitions { states.adopt(partition) }
        for record in records {
            states.restore(try codec.decode(record.record(topic: codec.topic)), in: record.partition)
        }
        return states
    }

    /// A state directory whose stores hold `records`, each partition's covering them all.
    static func stores(of records: [FixtureRecord], partitions: [Int32], in files: borrowing TemporaryDirectory) throws
        -> StateDirectory
    {
        var directory = try files.stateDirectory(topic: "changelog")
        for partition in partitions { _ = try directory.open(partition, logger: TestBroker.logger) }
        var batch = StoreBatch()
        for record in records { batch.append(record) }
        batch.checkpoints = Dictionary(uniqueKeysWithValues: partitions.map { ($0, Int64(records.count)) })
        directory.hold(batch)
        try directory.takeUnwritten()?.run()
        return directory
    }

    /// A restorer that reads stores in parts of `part` records, and no broker.
    static func restorer(part: Int, logger: Logger = TestBroker.logger) -> ChangelogRestorer {
        var restorer = ChangelogRestorer(
            consumerConfiguration: KafkaConsumerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: "127.0.0.1:1"), groupID: nil),
            changelogTopic: "changelog", repartitionTopic: "repartition", logger: logger)
        restorer.storePart = part
        return restorer
    }
}
