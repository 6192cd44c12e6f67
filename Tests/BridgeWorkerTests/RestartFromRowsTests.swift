import BridgeStore
import DeviceQueues
import Kafka
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restart whose device rows are at their store's checkpoint serves the partition from them:
/// the store's topic state is replayed, and of the devices only those the changelog's tail names
/// are read and changed. The rows then hold what the whole changelog makes.
@Suite("Restarts served from the device rows", .needsBroker, .timeLimit(.minutes(2)))
struct RestartFromRowsTests {
    @Test(
        "rows at their store's checkpoint: the tail's devices are read and changed, and rows, counts and topics end as the whole changelog makes them"
    )
    func tailOntoRows() async throws {
        let files = TemporaryDirectory()
        let records = try FixtureRecord.upgradeChangelog()
        let partitions = Set(records.map(\.partition)).sorted()
        let changelog = TestBroker.uniqueName("rows-restart")
        try await TestBroker.createTopics([NewTopic(name: changelog, partitions: Int32(partitions.count))])
        let cut = records.count / 2
        try await RestoreStoreTests.produce(records[..<cut], to: changelog)
        // A first run restores the first half and writes every device to the rows.
        var firstHalf: [(partition: Int32, token: String)] = []
        do {
            var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
            var states = DeviceStates()
            _ = try await RestoreSuspendedTests.restore(partitions, of: changelog, into: &states, stores: &stores)
            for partition in partitions {
                let devices = try #require(states.devices(in: partition))
                stores?.holdRows(replacing: partition, with: devices)
                firstHalf += devices.keys.map { (partition, $0.token) }.sorted { $0.1 < $1.1 }.prefix(3)
            }
            try stores?.takeUnwritten()?.run()
        }
        // Another worker held the partitions meanwhile and wrote the rest, and changed devices the
        // rows hold: a message joins one, another is forgotten, a third changes its status.
        try await RestoreStoreTests.produce(records[cut...], to: changelog)
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        for (index, (partition, token)) in firstHalf.enumerated() {
            let changes: [StateChange] = [
                .enqueued(QueuedMessage(id: "tail\(index)", collapseKey: nil, sentAt: 9, expiresAt: nil, apns: [1])),
                .forgotten, .device(DeviceStatus(isOnline: true, lastActivity: 9, pendingNotice: nil)),
            ]
            codec.record(changes[index % changes.count], token: token, partition: partition, to: &outputs)
        }
        try await RestoreChangelogTests.produce(outputs.copies, to: changelog)

        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
        var states = DeviceStates()
        let lines = LogLines()
        var restorer = TestBroker.restorer(changelog: changelog, repartition: "\(changelog).none", logger: lines.logger)
        let served = ServedDevices(
            limit: 0, rules: QueueRules(), directory: files.path, reads: WorkerMetrics.none.deviceReads)
        restorer.served = served
        try await restorer.restore(partitions, committed: CommittedInputs([:]), into: &states, stores: &stores)
        let summary = try #require(lines.containing("restored device state").first)
        #expect(summary.contains("from_device_rows=\(partitions)"), "\(summary)")
        served.serve(partitions, states: &states, stores: &stores)
        try stores?.takeUnwritten()?.run()

        var none: StateDirectory?
        let whole = try await RestoreStoreTests.restore(partitions, of: changelog, stores: &none)
        #expect(states.topics == whole.topics)
        #expect(states.deviceCount == whole.deviceCount && states.waitingMessageCount == whole.waitingMessageCount)
        #expect(
            states.devicesInMemory > 0 && states.devicesInMemory < whole.devicesInMemory,
            "the tail's devices only: \(states.devicesInMemory) of \(whole.devicesInMemory)")
        for partition in partitions {
            let rows = try #require(stores?.rows[partition])
            var held: [DeviceKey: DeviceQueue] = [:]
            try rows.forEachDevice { held[DeviceKey(token: $0)] = $1 }
            let expected = whole.devices(in: partition) ?? [:]
            let differing = Set(held.keys).union(expected.keys).filter { held[$0] != expected[$0] }
            #expect(differing.isEmpty, "partition \(partition): \(differing.map(\.token).sorted().prefix(10))")
            #expect(try rows.checkpoint() == stores?[partition]?.checkpoint())
            let counted = DeviceCounts(
                devices: held.count, waitingMessages: held.values.reduce(0) { $0 + $1.waiting.count })
            #expect(try rows.counts() == counted && states.counts(in: partition) == counted)
        }
    }
}
