import BridgeStore
import DeviceQueues
import Kafka
import TestSupport
import Testing

@testable import BridgeCore
@testable import BridgeWorker

/// A committed batch's changelog records, held for the stores by their delivery reports.
@Suite("A batch's records held for the stores")
struct StoreWritesTests {
    @Test("a partition whose report has no offset holds none of its records and is returned, its store to delete")
    func reportWithoutOffset() async throws {
        let files = TemporaryDirectory()
        var stores: StateDirectory? = try StateDirectory(testingAt: files.path)
        for partition: Int32 in [0, 1] { _ = try stores?.open(partition, logger: TestBroker.logger) }
        let codec = ChangelogCodec(topic: "changelog")
        var outputs = OutputRecords()
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        for (token, partition): (String, Int32) in [("a", 0), ("b", 1), ("c", 0)] {
            codec.record(.device(offline), token: token, partition: partition, to: &outputs)
        }
        let deliveries = PendingDeliveries(count: 3) { _ in "changelog" }
        deliveries.complete(0, partition: 0, offset: 10, error: nil)
        deliveries.complete(1, partition: 1, offset: -1, error: nil)
        deliveries.complete(2, partition: 0, offset: 11, error: nil)
        var writes = StoreWrites()
        writes.add(changelogOf: outputs, deliveries: deliveries)

        #expect(await writes.hold(in: &stores) == [1])
        #expect(stores?.unwritten.count == 2)
        #expect(stores?.unwritten.checkpoints == [0: 12])
    }

    @Test(
        "the device rows take each device the batch changed as it was at the seal, at its records' checkpoint; a partition without an offset, none, and the batch is not said to be held"
    )
    func rowsAsSealed() async throws {
        let files = TemporaryDirectory()
        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, deviceRows: true)
        for partition: Int32 in [0, 1] { _ = try stores?.open(partition, logger: TestBroker.logger) }
        let codec = ChangelogCodec(topic: "changelog")
        let rules = QueueRules()
        var states = DeviceStates()
        for partition: Int32 in [0, 1] { states.adopt(partition) }
        var outputs = OutputRecords()
        for (token, partition): (String, Int32) in [("a", 0), ("b", 1), ("c", 0), ("untouched", 0)] {
            let routed = RoutedInput(token: token, input: .send(Self.message(token)), time: 1_700_000_000_000)
            let changes = states.handle(routed, in: partition, rules: rules).changes
            if token != "untouched" {
                for change in changes { codec.record(change, token: token, partition: partition, to: &outputs) }
            }
        }
        codec.record(.member(topic: "news", token: "a", isMember: true), partition: 0, to: &outputs)
        var changed = ChangedRows()
        changed.add(changelogOf: outputs)
        var writes = StoreWrites()
        writes.rows = changed.rows(in: states)
        writes.rowsThrough = 7
        let sealed = states
        // The next batch changes a device before this one commits: its rows keep the seal's.
        _ = states.handle(
            RoutedInput(token: "a", input: .send(Self.message("a2")), time: 1_700_000_000_001), in: 0, rules: rules)

        let deliveries = PendingDeliveries(count: outputs.count) { _ in "changelog" }
        for index in 0..<outputs.count {
            let partition = outputs.records[index].partition ?? 0
            deliveries.complete(
                index, partition: partition, offset: partition == 1 ? -1 : Int64(20 + index), error: nil)
        }
        writes.add(changelogOf: outputs, deliveries: deliveries)
        #expect(await writes.hold(in: &stores) == [1])
        let write = stores?.takeUnwritten()
        // Not every partition's rows are kept: the write does not say the rows hold the batch.
        #expect(write != nil && write?.records.rowsThrough == nil)
        try write?.run()

        let rows = try #require(stores?.rows[0])
        let checkpoint = try #require(try stores?[0]?.checkpoint())
        #expect(try rows.checkpoint() == checkpoint && checkpoint == Int64(20 + outputs.count))
        var held: [String: DeviceQueue] = [:]
        try rows.forEachDevice { held[$0] = $1 }
        let expected = ["a", "c"].map { (DeviceKey(token: $0), $0) }
        #expect(
            held
                == Dictionary(
                    uniqueKeysWithValues: expected.compactMap { key, token in
                        sealed.devices(in: 0)?[key].map { (token, $0) }
                    }))
        #expect(held["a"] != states.devices(in: 0)?[DeviceKey(token: "a")])
        #expect(try stores?.rows[1]?.checkpoint() == nil)
    }

    @Test("a batch whose records change topic state only moves its rows' checkpoint with the store's")
    func topicStateOnly() async throws {
        let files = TemporaryDirectory()
        var stores: StateDirectory? = try StateDirectory(testingAt: files.path, deviceRows: true)
        _ = try stores?.open(0, logger: TestBroker.logger)
        var states = DeviceStates()
        states.adopt(0)
        var outputs = OutputRecords()
        ChangelogCodec(topic: "changelog").record(
            .member(topic: "news", token: "a", isMember: true), partition: 0, to: &outputs)
        var changed = ChangedRows()
        changed.add(changelogOf: outputs)
        var writes = StoreWrites()
        writes.rows = changed.rows(in: states)
        let deliveries = PendingDeliveries(count: 1) { _ in "changelog" }
        deliveries.complete(0, partition: 0, offset: 41, error: nil)
        writes.add(changelogOf: outputs, deliveries: deliveries)
        #expect(await writes.hold(in: &stores) == [])
        try stores?.takeUnwritten()?.run()
        #expect(try stores?.rows[0]?.checkpoint() == 42)
        #expect(try stores?[0]?.checkpoint() == 42)
    }

    static func message(_ id: String) -> QueuedMessage {
        QueuedMessage(id: id, collapseKey: nil, sentAt: 1_700_000_000_000, expiresAt: nil, apns: Array("{}".utf8))
    }
}
