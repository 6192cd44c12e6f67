import BridgeStore
import DeviceQueues
import Kafka
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restore whose stores cannot be written (a state directory on a full file system) stops
/// with the write's error, naming `state.directory`, and leaves none of its partitions held.
@Suite(
    "Restoring into a full state directory", .needsBroker, .timeLimit(.minutes(2)),
    .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
struct RestoreFullDiskTests {
    /// With writes due at one record the first write fails while the changelog is still read;
    /// with the default, the one at the end.
    @Test("the restore stops naming state.directory, holding none of its partitions", arguments: [1, 65_536])
    func fullDisk(writtenAt records: Int) async throws {
        let fileSystem = try SmallFileSystem(kilobytes: 256)
        defer { fileSystem.unmount() }
        let (changelog, repartition) = try await RestoreChangelogTests.createTopics()
        // 4,000 device statuses of about 250 bytes: several times what the file system holds.
        let codec = ChangelogCodec(topic: changelog)
        var outputs = OutputRecords()
        let offline = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        for device in 0..<4_000 {
            codec.record(
                .device(offline), token: String(repeating: "t", count: 160) + "\(device)", partition: 0, to: &outputs)
        }
        try await RestoreChangelogTests.produce(outputs.copies, to: changelog)

        var stores: StateDirectory? = try StateDirectory(
            path: fileSystem.path, group: "group", topic: changelog, changelogID: nil, cleanupDelay: .seconds(600))
        stores?.writePacing = StoreWritePacing(records: records, age: .seconds(3600))
        let restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        var states = DeviceStates()
        let error = await #expect(throws: StateDirectoryError.self) {
            try await restorer.restore([0], committed: CommittedInputs([:]), into: &states, stores: &stores)
        }
        #expect(
            error?.description.hasPrefix("state.directory \(fileSystem.path) cannot write the store of partition 0")
                == true, "\(String(describing: error))")
        #expect(states.partitionCount == 0)
    }
}
