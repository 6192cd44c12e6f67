import BridgeCore
import BridgeStore
import DeviceQueues
import DeviceStore
import Foundation
import TestSupport
import Testing

@_spi(Benchmarks) @testable import BridgeWorker

extension BridgeFixture {
    /// For each of the two state partitions whose device rows, in a copy of the state directory
    /// `path`, are at their store's checkpoint: expects the rows to hold exactly the devices a
    /// replay of the store alone gives, the members of its topics it gives, and counts (when they
    /// keep them) that count those devices.
    /// Returns how many partitions and devices were compared, and how many counts; and the
    /// partitions a restart serves from their rows (rows at a checkpoint past 0, with counts).
    func expectRowsHoldTheStores(in path: String) async throws -> (
        partitions: Int, devices: Int, counts: Int, servable: Set<Int32>
    ) {
        let copy = TemporaryDirectory()
        guard FileManager.default.fileExists(atPath: path) else { return (0, 0, 0, []) }
        try FileManager.default.copyItem(atPath: path, toPath: copy.path)
        let restorer = ChangelogRestorer(
            consumerConfiguration: TestBroker.consumerConfiguration(group: nil),
            changelogTopic: configuration.changelogTopic, repartitionTopic: configuration.repartitionTopic,
            logger: TestBroker.logger)
        var compared = (partitions: 0, devices: 0, counts: 0, servable: Set<Int32>())
        for partition: Int32 in [0, 1] {
            let file = "\(copy.path)/\(configuration.changelogTopic)-\(partition)"
            guard FileManager.default.fileExists(atPath: file + ".sqlite"),
                FileManager.default.fileExists(atPath: file + ".rows")
            else { continue }
            let store = try PartitionStore.open(
                at: file + ".sqlite",
                identity: StoreIdentity(
                    group: configuration.kafka.groupID, topic: configuration.changelogTopic, partition: partition),
                changelogID: nil)
            let rows = try DeviceRows(at: file + ".rows", cacheBytes: 1 << 20)
            guard let checkpoint = try rows.checkpoint(), try store.checkpoint() == checkpoint else { continue }
            var replayed = DeviceStates()
            replayed.adopt(partition)
            _ = try await restorer.replay(store, into: &replayed)
            var held: [DeviceKey: DeviceQueue] = [:]
            try rows.forEachDevice { held[DeviceKey(token: $0)] = $1 }
            #expect(held == replayed.devices(in: partition), "partition \(partition) at \(checkpoint)")
            let members = replayed.topics.membersByTopic(in: partition)
            #expect(try rows.members() == members, "partition \(partition) at \(checkpoint)")
            #expect(try rows.memberCounts() == members.mapValues(\.count), "partition \(partition) at \(checkpoint)")
            compared.partitions += 1
            compared.devices += held.count
            guard let counts = try rows.counts() else { continue }
            #expect(counts == DeviceCounts(of: held.values), "partition \(partition) at \(checkpoint)")
            compared.counts += 1
            if checkpoint > 0 { compared.servable.insert(partition) }
        }
        return compared
    }
}
