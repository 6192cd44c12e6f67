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
}
