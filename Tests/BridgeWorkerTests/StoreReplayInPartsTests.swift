import BridgeStore
import Kafka
import Logging
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A store replayed in parts, each read and decoded while the part before is applied, gives the
/// state a replay of the whole changelog gives, whatever the part size.
@Suite("A store replayed in parts")
struct StoreReplayInPartsTests {
    @Test("parts of any size restore what the whole changelog does", arguments: [1, 13, 4_096])
    func anyPartSize(part: Int) async throws {
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let codec = ChangelogCodec(topic: "changelog")
        var whole = DeviceStates()
        for partition in partitions { whole.adopt(partition) }
        for record in records {
            whole.restore(try codec.decode(record.record(topic: codec.topic)), in: record.partition)
        }

        let files = TemporaryDirectory()
        var directory = try files.stateDirectory(topic: "changelog")
        for partition in partitions { _ = try directory.open(partition, logger: TestBroker.logger) }
        var batch = StoreBatch()
        for record in records { batch.append(record) }
        batch.checkpoints = Dictionary(uniqueKeysWithValues: partitions.map { ($0, Int64(records.count)) })
        directory.hold(batch)
        try directory.takeUnwritten()?.run()

        var restorer = ChangelogRestorer(
            consumerConfiguration: KafkaConsumerConfiguration(
                kafka: KafkaConfiguration(bootstrapServers: "127.0.0.1:1"), groupID: nil),
            changelogTopic: "changelog", repartitionTopic: "repartition", logger: TestBroker.logger)
        restorer.storePart = part
        var restored = DeviceStates()
        var replayed = 0
        var stored = 0
        for partition in partitions {
            restored.adopt(partition)
            let store = try #require(directory[partition])
            let count = try store.recordCount()
            #expect(part == 4_096 || count > part, "read in more than one part")
            replayed += try await restorer.replay(store, into: &restored)
            stored += count
        }
        #expect(replayed == stored)
        let same = restored == whole
        #expect(same, "the store in parts of \(part) restores what the whole changelog restores")
    }
}
