import BridgeConfig
import BridgeCore
import BridgeStore
import Foundation
import Kafka
import TestSupport
import Testing

@_spi(Benchmarks) @testable import BridgeWorker

/// A worker with a state directory and device rows, SIGKILLed at random moments and restarted on
/// the same directory: after each kill its stores restore exactly what a restore of the whole
/// changelog does, each partition's rows hold what its store does at the same checkpoint, and
/// nothing sent is lost or, exactly once, repeated.
@Suite("Workers with a state directory, killed", .needsBroker, .timeLimit(.minutes(6)))
struct StoreKillTests {
    static let kills = 10
    static let devices = 12
    static let rounds = 90

    @Test(
        "killed 10 times at random moments: the stores always restore what the whole changelog does, the rows hold what the stores do, and nothing is lost",
        arguments: [
            (BridgeConfiguration.Delivery.exactlyOnce, nil), (.atLeastOnce, nil),
            // Served from the rows, holding 2 of the 12 devices: nearly every send reads its device.
            (.exactlyOnce, 2),
        ] as [(BridgeConfiguration.Delivery, Int?)])
    func killedAtRandom(delivery: BridgeConfiguration.Delivery, devicesHeld: Int?) async throws {
        let transactionalID = "store-kill-\(UUID().uuidString.prefix(8))"
        let fixture = try await BridgeFixture.make(partitions: 2, delivery: delivery) {
            $0.kafka.transactionalID = transactionalID
        }
        let directory = TemporaryDirectory()
        // Writes often, so that most kills find the rows at their store's checkpoint.
        let environment = [
            "FCM_BRIDGE_STATE_DIRECTORY": directory.path, "FCM_BRIDGE_STATE_DEVICE_ROWS": "true",
            "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "200",
        ].merging(devicesHeld.map { ["FCM_BRIDGE_STATE_DEVICES_HELD": "\($0)"] } ?? [:]) { $1 }
        let tokens = (0..<Self.devices).map { uniqueToken("store-kill\($0)") }
        let faults = FaultTests()
        // Sends only, to devices that stay offline: each device's inputs come from one input
        // partition in one order, so work done again after a kill writes the same keys. Fewer
        // rounds than a device may have messages waiting.
        let stream = Task {
            var expected: [String: [String]] = [:]
            for round in 0..<Self.rounds where !Task.isCancelled {
                for (token, id) in zip(tokens, try await faults.sendRound(round, tokens: tokens, fixture: fixture)) {
                    expected[token, default: []].append(id)
                }
                try? await Task.sleep(for: .milliseconds(700))
            }
            return expected
        }
        var worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        var storeUsed = false
        var rowsCompared = 0
        var countsCompared = 0
        var restartsFromRows = 0
        // Partitions whose rows the last kill left servable: the restart serves them from the rows.
        var servable: Set<Int32> = []
        for _ in 0..<Self.kills {
            #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
            let restored = worker.output.split(separator: "\n").first { $0.contains("restored device state") } ?? ""
            if devicesHeld != nil {
                // Of the partitions this restore took (the first may not take them all).
                let expected = servable.intersection(Self.partitions("partitions", of: restored))
                let fromRows = Self.partitions("from_device_rows", of: restored)
                #expect(expected.isSubset(of: fromRows), "rows at their checkpoint of \(expected): \(restored)")
                if !expected.isEmpty { restartsFromRows += 1 }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...1_500)))
            worker.kill()
            if delivery == .exactlyOnce { try await Self.fence(transactionalID) }
            let compared = try await fixture.expectRowsHoldTheStores(in: directory.path)
            rowsCompared += compared.partitions
            countsCompared += compared.counts
            servable = compared.servable
            storeUsed = try await expectStoresRestoreTheChangelog(directory.path, fixture: fixture) || storeUsed
            worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        }
        stream.cancel()
        let expected = try await stream.value
        #expect(storeUsed, "no restore read a store")
        #expect(rowsCompared >= Self.kills / 2, "\(rowsCompared) partitions found rows at their store's checkpoint")
        if devicesHeld != nil {
            // Served: restarts read the changelog's tail onto the rows, which keep their counts;
            // enough kills leave rows to serve from for the check above to count.
            #expect(
                restartsFromRows >= Self.kills / 4 && countsCompared >= Self.kills / 2,
                "\(restartsFromRows) restarts served from the rows, \(countsCompared) counts compared")
        }
        // The devices connect once every kill is over: exactly once, each message reaches its
        // inbox once; at least once, a repeat is the same record.
        try await faults.expectEverythingDelivered(
            expected, fixture: fixture, exactlyOnce: delivery == .exactlyOnce)
        worker.terminate()
    }

    /// The partitions a log line lists for `key` (`key=[0, 1]`).
    static func partitions(_ key: String, of line: Substring) -> Set<Int32> {
        guard let start = line.range(of: " \(key)=[") else { return [] }
        let list = line[start.upperBound...].prefix { $0 != "]" }
        return Set(list.split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// Aborts the open transaction a killed worker left, as its successor's start does.
    static func fence(_ transactionalID: String) async throws {
        try await withKafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: TestBroker.kafka(), transactionalID: transactionalID),
            logger: TestBroker.logger
        ) { try await $0.initTransactions() }
    }

    /// Restores every state partition twice, as the next worker would: once through a copy of
    /// the stores in `path`, once from the whole changelog; expects the same state. Returns
    /// whether the stores held anything.
    func expectStoresRestoreTheChangelog(_ path: String, fixture: BridgeFixture) async throws -> Bool {
        let configuration = fixture.configuration
        let copy = TemporaryDirectory()
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.copyItem(atPath: path, toPath: copy.path)
        }
        let partitions: [Int32] = [0, 1]
        let (committed, forwards) = try await withKafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: configuration.kafka.groupID),
            logger: TestBroker.logger
        ) { consumer in
            try await CommittedInputs.read(
                feeding: partitions,
                inputs: [
                    (.repartition, configuration.repartitionTopic), (.send, configuration.topics.send),
                    (.presence, configuration.topics.presence),
                ], stateTopic: configuration.repartitionTopic, from: consumer, timeout: .seconds(10))
        }
        var consumerConfiguration = TestBroker.consumerConfiguration(group: nil)
        consumerConfiguration.fetchWaitMax = .milliseconds(10)
        let lines = LogLines()
        let restorer = ChangelogRestorer(
            consumerConfiguration: consumerConfiguration, changelogTopic: configuration.changelogTopic,
            repartitionTopic: configuration.repartitionTopic, logger: lines.logger)
        var whole = DeviceStates()
        try await restorer.restore(partitions, committed: committed, forwards: forwards, into: &whole)
        var stores: StateDirectory? = try StateDirectory(
            path: copy.path, group: configuration.kafka.groupID, topic: configuration.changelogTopic,
            changelogID: nil, cleanupDelay: .seconds(600))
        var restored = DeviceStates()
        try await restorer.restore(
            partitions, committed: committed, forwards: forwards, into: &restored, stores: &stores)
        let same = restored == whole
        #expect(same, "the stores and the changelog's tail restore what the whole changelog does")
        #expect(lines.containing("is not used").isEmpty, "\(lines.containing("is not used"))")
        return lines.containing("from_local_stores=0 ").count < 2
    }
}
